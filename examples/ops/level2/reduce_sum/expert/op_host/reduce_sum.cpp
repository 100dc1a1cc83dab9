// SPDX-License-Identifier: MIT
//
// Host side of the hand-tuned reduce_sum.  Rows are balanced over the
// vector cores (remainder on the first cores), and each tile holds as many
// whole rows as fit in a double-buffered share of the UB, capped at 255 so
// that one WholeReduceSum can pack the tile's sums.
#include "reduce_sum_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 2;
const uint64_t MAX_TILE_BYTES = 160 * 1024;
const uint32_t MAX_TILE_ROWS = 255;
const uint64_t CORE_MTE2_BYTES_PER_CYCLE = 34;

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
	uint64_t coreNum = platform.GetCoreNumAiv();
	/* HBM saturates once enough cores stream at once; more cores only add launch time */
	uint64_t hbmBw = 0;
	platform.GetCoreMemBw(platform_ascendc::CoreMemType::HBM, hbmBw);
	uint64_t streamCores = (hbmBw + CORE_MTE2_BYTES_PER_CYCLE - 1) / CORE_MTE2_BYTES_PER_CYCLE;
	if (streamCores > 0 && coreNum > streamCores)
		coreNum = streamCores;

	uint64_t colsAligned = (cols + 7) / 8 * 8;
	uint64_t workStride = ((colsAligned + 63) / 64 + 7) / 8 * 8; /* ReduceSum partials per row */
	/* per row of a tile: the input (x BUFFER_NUM), a 32-byte sum slot, its work area, and the output */
	uint64_t rowBytes = BUFFER_NUM * colsAligned * 4 + 32 + workStride * 4 + BUFFER_NUM * 4;
	uint64_t tileRows = (ubSize - 1024) / rowBytes;
	uint64_t byTileBytes = MAX_TILE_BYTES / (colsAligned * 4);
	if (byTileBytes == 0)
		byTileBytes = 1;
	if (tileRows > byTileBytes)
		tileRows = byTileBytes;
	if (tileRows > MAX_TILE_ROWS)
		tileRows = MAX_TILE_ROWS;
	if (tileRows == 0)
		return ge::GRAPH_FAILED; /* a row does not fit the UB */

	uint64_t blockDim = rows < coreNum ? rows : coreNum;
	uint64_t smallRows = rows / blockDim;
	if (tileRows > (smallRows + 1))
		tileRows = smallRows + 1;

	ReduceSumTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_smallCoreRows((uint32_t)smallRows);
	tiling.set_bigCoreNum((uint32_t)(rows % blockDim));
	tiling.set_tileRows((uint32_t)tileRows);
	tiling.set_workStride((uint32_t)workStride);
	context->SetBlockDim((uint32_t)blockDim);
	context->SetTilingKey(cols % 8 == 0 ? 1 : 0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
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
