// SPDX-License-Identifier: MIT
//
// Host side of scalar_cast_ceil: one core; the tile length is deliberately
// not a whole number of data blocks (the kernel aligns it down).
#include "scalar_cast_ceil_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total > UINT32_MAX)
		return ge::GRAPH_FAILED;
	ScalarCastCeilTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_tileLength(1001);
	context->SetBlockDim(1);
	context->SetTilingKey(0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class ScalarCastCeil : public OpDef {
public:
	explicit ScalarCastCeil(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("k").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("h").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("i").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ScalarCastCeil);
} // namespace ops
