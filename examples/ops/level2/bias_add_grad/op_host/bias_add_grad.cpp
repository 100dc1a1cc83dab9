// SPDX-License-Identifier: MIT
//
// Host side of bias_add_grad: dbias[c] = sum over n of dy[n, c], the
// gradient of a [C] bias broadcast over an [N, C] float matrix.  Every core
// sums ceil(N / cores) rows (the last core the remainder) in UB and adds
// its partial column sums into dbias with an atomic add; core 0 clears
// dbias first and a SyncAll holds the others back until it has.  As in the
// add_custom sample, a core's rows are cut into TILE_NUM * BUFFER_NUM tiles
// of whole rows, tileRows = ceil(rowsPerCore / (TILE_NUM * BUFFER_NUM)) (at
// least one row, at most 4095, the multi-row DataCopyPad's limit), and the
// kernel's input queue gets BUFFER_NUM buffers (tiling field bufferNum).
// The baseline's counts give one row per tile on the bench case.
#include "bias_add_grad_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// each core's rows are cut into TILE_NUM * BUFFER_NUM tiles
const uint32_t TILE_NUM = 512;
// buffers of the input queue (2: double buffering)
const uint32_t BUFFER_NUM = 1;

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
	uint64_t rowsPerCore = (rows + coreNum - 1) / coreNum;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	uint64_t tileCount = (uint64_t)TILE_NUM * BUFFER_NUM;
	uint64_t tileRows = tileCount ? (rowsPerCore + tileCount - 1) / tileCount : rowsPerCore;
	if (tileRows == 0)
		tileRows = 1;
	if (tileRows > 4095)
		tileRows = 4095;
	if ((BUFFER_NUM * tileRows + 1) * colsAligned * sizeof(float) + 1024 > ubSize)
		return ge::GRAPH_FAILED;

	BiasAddGradTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_rowsPerCore((uint32_t)rowsPerCore);
	tiling.set_tailCoreRows((uint32_t)(rows - rowsPerCore * (blockDim - 1)));
	tiling.set_tileRows((uint32_t)tileRows);
	tiling.set_bufferNum(BUFFER_NUM);
	context->SetBlockDim(blockDim);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	const gert::Shape *dy = context->GetInputShape(0);
	*context->GetOutputShape(0) = gert::Shape({dy->GetDim(dy->GetDimNum() - 1)});
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class BiasAddGrad : public OpDef {
public:
	explicit BiasAddGrad(const char *name) : OpDef(name)
	{
		this->Input("dy").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("dbias").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(BiasAddGrad);
} // namespace ops
