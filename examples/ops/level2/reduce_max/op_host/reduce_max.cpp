// SPDX-License-Identifier: MIT
//
// Host side of reduce_max: y[r] = max over c of x[r, c] for a half matrix.
// Rows go to a fixed number of cores in equal chunks (the last core takes
// the remainder), and each core walks its chunk in TILE_NUM tiles of a few
// rows, so the tile follows from both constants.
#include "reduce_max_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 32;
const uint32_t TILE_NUM = 64; /* tiles per core: 4 rows (8 KB) each on 8192x1024 */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint64_t cols = (uint64_t)shape.GetDim(dims - 1);
	uint64_t rows = cols ? (uint64_t)shape.GetShapeSize() / cols : 0;
	if (rows == 0 || cols == 0)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t colsAligned = (cols + 15) / 16 * 16;
	uint64_t rowsPerCore = (rows + CORE_NUM - 1) / CORE_NUM;
	uint64_t tileRows = (rowsPerCore + TILE_NUM - 1) / TILE_NUM;
	if (tileRows * colsAligned * 2 + colsAligned / 8 + 4096 > ubSize)
		return ge::GRAPH_FAILED;

	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	ReduceMaxTilingData *t = context->GetTilingData<ReduceMaxTilingData>();
	t->cols = (uint32_t)cols;
	t->colsAligned = (uint32_t)colsAligned;
	t->rowsPerCore = (uint32_t)rowsPerCore;
	t->tailCoreRows = (uint32_t)(rows - rowsPerCore * (blockDim - 1));
	t->tileRows = (uint32_t)tileRows;
	context->SetBlockDim(blockDim);
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	const gert::Shape *x = context->GetInputShape(0);
	gert::Shape *y = context->GetOutputShape(0);
	y->SetDimNum(0);
	for (size_t i = 0; i + 1 < x->GetDimNum(); i++)
		y->AppendDim(x->GetDim(i));
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ReduceMax : public OpDef {
public:
	explicit ReduceMax(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReduceMax);
} // namespace ops
