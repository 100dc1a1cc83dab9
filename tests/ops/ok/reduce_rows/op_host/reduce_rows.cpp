// SPDX-License-Identifier: MIT
//
// Host side of reduce_rows: per-row sum and max of a float matrix.  Rows are
// spread over the cores; the tiling is written through GetTilingData<T>().
#include "../op_kernel/reduce_rows_tiling_data.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0), cols = (uint32_t)shape.GetDim(1);
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	if (rows == 0 || cols == 0 || cols > 8192)
		return ge::GRAPH_FAILED;
	ReduceRowsTilingData *t = context->GetTilingData<ReduceRowsTilingData>();
	t->rows = rows;
	t->cols = cols;
	t->rowsPerCore = (rows + coreNum - 1) / coreNum;
	t->colsAligned = (cols + 7) / 8 * 8;
	context->SetBlockDim((rows + t->rowsPerCore - 1) / t->rowsPerCore);
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	const gert::Shape *x = context->GetInputShape(0);
	gert::Shape *s = context->GetOutputShape(0), *m = context->GetOutputShape(1);
	s->SetDimNum(0);
	s->AppendDim(x->GetDim(0));
	*m = *s;
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ReduceRows : public OpDef {
public:
	explicit ReduceRows(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("s").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("m").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReduceRows);
} // namespace ops
