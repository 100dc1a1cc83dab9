// SPDX-License-Identifier: MIT
//
// Host side of bias_add: y[n, c] = x[n, c] + bias[c], the [C] bias broadcast
// over the rows of an [N, C] matrix.  Every core gets ceil(N / cores) rows
// (the last core the remainder), moved in tiles of whole rows.  As in the
// add_custom sample, the tile follows from TILE_NUM and BUFFER_NUM: a core's
// rows are cut into TILE_NUM * BUFFER_NUM tiles, tileRows =
// ceil(rowsPerCore / (TILE_NUM * BUFFER_NUM)) (at least one row, at most
// 4095, the multi-row DataCopyPad's limit), and the kernel gives both of its
// queues BUFFER_NUM buffers (tiling field bufferNum).  Each row is padded to
// a 32-byte block in UB, so a tile of whole rows is always aligned.  The
// kernel is a template over the element type (bias_add<half>,
// bias_add<float>).
#include "bias_add_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// each core's rows are cut into TILE_NUM * BUFFER_NUM tiles
const uint32_t TILE_NUM = 12;
// buffers per queue (2: double buffering)
const uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint64_t cols = (uint64_t)shape.GetDim(dims - 1);
	uint64_t rows = cols ? (uint64_t)shape.GetShapeSize() / cols : 0;
	if (rows == 0 || cols == 0 || context->GetInputShape(1)->GetStorageShape().GetShapeSize() != (int64_t)cols)
		return ge::GRAPH_FAILED;
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (typeLength == 0)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t perBlock = 32 / typeLength;
	uint64_t colsAligned = (cols + perBlock - 1) / perBlock * perBlock;
	uint64_t rowBytes = colsAligned * typeLength;
	uint64_t rowsPerCore = (rows + coreNum - 1) / coreNum;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	uint64_t tileCount = (uint64_t)TILE_NUM * BUFFER_NUM;
	uint64_t tileRows = tileCount ? (rowsPerCore + tileCount - 1) / tileCount : rowsPerCore;
	if (tileRows == 0)
		tileRows = 1;
	if (tileRows > 4095)
		tileRows = 4095;
	if (2 * BUFFER_NUM * tileRows * rowBytes + rowBytes > ubSize)
		return ge::GRAPH_FAILED;

	BiasAddTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_rowsPerCore((uint32_t)rowsPerCore);
	tiling.set_tailCoreRows((uint32_t)(rows - rowsPerCore * (blockDim - 1)));
	tiling.set_tileRows((uint32_t)tileRows);
	tiling.set_bufferNum(BUFFER_NUM);
	context->SetBlockDim(blockDim);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class BiasAdd : public OpDef {
public:
	explicit BiasAdd(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("bias")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(BiasAdd);
} // namespace ops
