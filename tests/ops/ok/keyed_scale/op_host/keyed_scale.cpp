// SPDX-License-Identifier: MIT
//
// Host side of KeyedScale: y = 3x for float32 or float16, written the way
// cann-ops tiling functions often are.  The tiling key tells the kernel
// which dtype path to take (TILING_KEY_FLOAT, TILING_KEY_HALF), the byte
// width of the dtype comes from BYTE_LEN_* constants, and the float16
// branch budgets a third UB part for its cast.  Its manifest runs float32
// only, so the float16 branch never runs there: nothing in it may be tuned.
// The real choices are the tiles per core and the buffers the UB holds.
#include "keyed_scale_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint64_t TILING_KEY_FLOAT = 1;
constexpr uint64_t TILING_KEY_HALF = 2;
constexpr uint32_t BYTE_LEN_4 = 4;
constexpr uint32_t BYTE_LEN_2 = 2;
constexpr uint32_t HALF_TILE_NUM = 16; /* float16 tiles per core */
constexpr uint32_t TILE_NUM = 8;       /* tiles per core */
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();

	uint64_t tilingKey = TILING_KEY_FLOAT;
	uint32_t typeLength = BYTE_LEN_4;
	uint32_t tileNum = TILE_NUM;
	uint32_t ubPartNum = 2;
	if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16) {
		tilingKey = TILING_KEY_HALF;
		typeLength = BYTE_LEN_2;
		tileNum = HALF_TILE_NUM;
		ubPartNum = 3;
	}
	uint32_t alignElems = 32 / typeLength;
	uint32_t blocks = (totalLength + alignElems - 1) / alignElems;
	if (coreNum > blocks)
		coreNum = blocks;
	uint32_t blockLength = (blocks + coreNum - 1) / coreNum * alignElems;
	uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
	uint32_t tileLength = (blockLength + tileNum - 1) / tileNum;
	tileLength = (tileLength + alignElems - 1) / alignElems * alignElems;
	uint32_t tileCap = (uint32_t)(ubSize / (BUFFER_NUM * ubPartNum * typeLength)) / alignElems * alignElems;
	if (tileLength > tileCap)
		tileLength = tileCap;

	KeyedScaleTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_blockLength(blockLength);
	tiling.set_tileLength(tileLength);
	context->SetBlockDim(blockDim);
	context->SetTilingKey(tilingKey);
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
class KeyedScale : public OpDef {
public:
	explicit KeyedScale(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(KeyedScale);
} // namespace ops
