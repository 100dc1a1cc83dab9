// SPDX-License-Identifier: MIT
//
// Host side of CastCustom: y = (float16) x for float32 x, rounding to
// nearest even.  Each core converts floor(total / cores) elements, rounded
// down to 16 so both sides stay 32-byte aligned; the last core also takes
// the remainder.  As in the add_custom sample, the tile length follows from
// TILE_NUM and BUFFER_NUM: ceil(blockLength / (TILE_NUM * BUFFER_NUM)),
// rounded up to ALIGN_ELEMS and never below it, and the kernel gives each
// of its queues BUFFER_NUM buffers (tiling field bufferNum).
#include "cast_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// each core's share is cut into TILE_NUM * BUFFER_NUM tiles
constexpr uint32_t TILE_NUM = 700;
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
	uint32_t blockLength = totalLength / coreNum / ALIGN_ELEMS * ALIGN_ELEMS;
	if (blockLength == 0)
		coreNum = 1;

	CastCustomTilingData *tiling = context->GetTilingData<CastCustomTilingData>();
	if (tiling == nullptr)
		return ge::GRAPH_FAILED;
	tiling->blockLength = blockLength;
	tiling->lastBlockLength = totalLength - blockLength * (coreNum - 1);
	uint32_t tileLength = (blockLength + TILE_NUM * BUFFER_NUM - 1) / (TILE_NUM * BUFFER_NUM);
	tileLength = (tileLength + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
	if (tileLength < ALIGN_ELEMS)
		tileLength = ALIGN_ELEMS;
	tiling->tileLength = tileLength;
	tiling->bufferNum = BUFFER_NUM;
	context->SetBlockDim(coreNum);
	context->SetTilingKey(0);
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
	context->SetOutputDataType(0, ge::DT_FLOAT16);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class CastCustom : public OpDef {
public:
	explicit CastCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
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
OP_ADD(CastCustom);
} // namespace ops
