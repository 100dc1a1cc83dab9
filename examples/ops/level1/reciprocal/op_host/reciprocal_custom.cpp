// SPDX-License-Identifier: MIT
//
// Host side of ReciprocalCustom: y = 1 / x for float16 x (divided in
// float32 inside the kernel).  Every vector core takes an equal,
// 32-byte-rounded share (the last core what is left).  As in the add_custom
// sample, a core's share is cut into TILE_NUM * BUFFER_NUM tiles:
// tileLength = ceil(blockLength / (TILE_NUM * BUFFER_NUM)) rounded up to a
// 32-byte block (never less than one block), and the kernel gives each of
// its queues BUFFER_NUM buffers (tiling field bufferNum).
#include "reciprocal_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// each core's share is cut into TILE_NUM * BUFFER_NUM tiles
constexpr uint32_t TILE_NUM = 86;
// buffers per queue (1: single buffering, 2: double buffering)
constexpr uint32_t BUFFER_NUM = 1;
constexpr uint32_t ALIGN_ELEMS = 16;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;
	uint32_t blockLength = (totalLength + coreNum - 1) / coreNum;
	blockLength = (blockLength + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
	uint32_t tileCount = TILE_NUM * BUFFER_NUM;
	uint32_t tileLength = (blockLength + tileCount - 1) / tileCount;
	tileLength = (tileLength + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
	if (tileLength < ALIGN_ELEMS)
		tileLength = ALIGN_ELEMS;

	ReciprocalCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_blockLength(blockLength);
	tiling.set_tileLength(tileLength);
	tiling.set_bufferNum(BUFFER_NUM);
	context->SetBlockDim((totalLength + blockLength - 1) / blockLength);
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
class ReciprocalCustom : public OpDef {
public:
	explicit ReciprocalCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReciprocalCustom);
} // namespace ops
