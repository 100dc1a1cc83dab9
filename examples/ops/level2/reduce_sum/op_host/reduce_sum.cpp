// SPDX-License-Identifier: MIT
//
// Host side of reduce_sum: y[r] = sum over c of x[r, c] for a float matrix.
// Every core gets ceil(rows / cores) rows and the last core the remainder;
// the kernel streams one row at a time through a single UB buffer and
// collects the sums in a small output tile.
#include "reduce_sum_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 1;
const uint32_t OUT_TILE_ROWS = 256;

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
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t colsAligned = (cols + 7) / 8 * 8;
	/* one row per buffer, plus the ReduceSum work area and the output tile */
	if (colsAligned * sizeof(float) * BUFFER_NUM + colsAligned * sizeof(float) / 8 + 4096 > ubSize)
		return ge::GRAPH_FAILED;

	uint64_t rowsPerCore = (rows + coreNum - 1) / coreNum;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	ReduceSumTilingData tiling;
	tiling.set_rows((uint32_t)rows);
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_rowsPerCore((uint32_t)rowsPerCore);
	tiling.set_tailCoreRows((uint32_t)(rows - rowsPerCore * (blockDim - 1)));
	tiling.set_outTileRows(OUT_TILE_ROWS);
	tiling.set_bufferNum(BUFFER_NUM);
	context->SetBlockDim(blockDim);
	context->SetTilingKey(0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	size_t *workspace = context->GetWorkspaceSizes(1);
	workspace[0] = 0;
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
class ReduceSum : public OpDef {
public:
	explicit ReduceSum(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReduceSum);
} // namespace ops
