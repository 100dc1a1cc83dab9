// SPDX-License-Identifier: MIT
//
// Host side of optional_bias: y = (x + bias) * gamma row by row, or
// y = x * gamma when the case leaves the OPTIONAL bias out.  The tiling
// asks the context whether bias is there (GetOptionalInputShape is null
// when it is not) and runs one core per row.
#include "optional_bias_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	OptionalBiasTilingData tiling;
	const gert::StorageShape *x = context->GetInputShape(0);
	const gert::StorageShape *bias = context->GetOptionalInputShape(1);
	if (x == nullptr || x->GetStorageShape().GetDimNum() != 2)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)x->GetStorageShape().GetDim(0);
	uint32_t cols = (uint32_t)x->GetStorageShape().GetDim(1);
	if (bias != nullptr && (uint32_t)bias->GetStorageShape().GetShapeSize() != cols)
		return ge::GRAPH_FAILED;
	tiling.set_cols(cols);
	tiling.set_hasBias(bias != nullptr);
	context->SetBlockDim(rows);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class OptionalBias : public OpDef {
public:
	explicit OptionalBias(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(OptionalBias);
} // namespace ops
