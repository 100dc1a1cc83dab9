// SPDX-License-Identifier: MIT
//
// Host side of sum_rows: y and z, the sums of x's rows, by the high-level
// Sum with and without a sharedTmpBuffer.  One core, all of x in UB: at
// most 64 rows of at most 4096 floats, and at most 160 KiB of them.
#include "sum_rows_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(0) < 1 || shape.GetDim(0) > 64 || shape.GetDim(1) < 1 ||
	    shape.GetDim(1) > 4096 || shape.GetDim(0) * ((shape.GetDim(1) + 7) / 8 * 8) * 4 > 160 * 1024)
		return ge::GRAPH_FAILED;
	SumRowsTilingData tiling;
	tiling.set_rows((uint32_t)shape.GetDim(0));
	tiling.set_cols((uint32_t)shape.GetDim(1));
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = gert::Shape({context->GetInputShape(0)->GetDim(0)});
	*context->GetOutputShape(1) = gert::Shape({context->GetInputShape(0)->GetDim(0)});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SumRows : public OpDef {
public:
	explicit SumRows(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SumRows);
} // namespace ops
