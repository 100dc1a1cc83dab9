// SPDX-License-Identifier: MIT
//
// Host side of reduce_whole: whole-repeat and per-block reductions of a
// [rows, 128] half matrix, one repeat per row.
#include "reduce_whole_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(1) != 128 || shape.GetDim(0) == 0)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	ReduceWholeTilingData tiling;
	uint32_t perCore = (rows + coreNum - 1) / coreNum;
	tiling.set_rows(rows);
	tiling.set_rowsPerCore(perCore);
	tiling.set_tileRows(64);
	context->SetBlockDim((rows + perCore - 1) / perCore);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	int64_t rows = context->GetInputShape(0)->GetDim(0);
	*context->GetOutputShape(0) = gert::Shape({rows});
	*context->GetOutputShape(1) = gert::Shape({rows, 2});
	*context->GetOutputShape(2) = gert::Shape({rows, 8});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ReduceWhole : public OpDef {
public:
	explicit ReduceWhole(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("s").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("mi").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReduceWhole);
} // namespace ops
