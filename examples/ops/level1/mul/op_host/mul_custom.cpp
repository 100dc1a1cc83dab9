// SPDX-License-Identifier: MIT
//
// Host side of MulCustom: z = x * y, elementwise, float16 or float32.
// Each core gets ceil(total / cores) elements rounded up to a 32-byte block,
// so the last active core takes the short remainder.  As in the add_custom
// tutorial, a core's share is cut into TILE_NUM * BUFFER_NUM tiles:
// tileLength = ceil(blockLength / (TILE_NUM * BUFFER_NUM)) rounded up to a
// 32-byte block (never less than one block), and the kernel gives each TQue
// BUFFER_NUM buffers (tiling field bufferNum).
#include "mul_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_NUM = 42;   // tiles per core per queue buffer
constexpr uint32_t BUFFER_NUM = 2;  // buffers per TQue (2 = double buffering)
constexpr uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (totalLength == 0 || coreNum == 0 || typeLength == 0)
		return ge::GRAPH_FAILED;

	uint32_t alignElems = BLOCK_BYTES / typeLength;
	uint32_t blockLength = (totalLength + coreNum - 1) / coreNum;
	blockLength = (blockLength + alignElems - 1) / alignElems * alignElems;
	uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
	uint32_t tileCount = TILE_NUM * BUFFER_NUM;
	uint32_t tileLength = (blockLength + tileCount - 1) / tileCount;
	tileLength = (tileLength + alignElems - 1) / alignElems * alignElems;
	if (tileLength < alignElems)
		tileLength = alignElems;

	MulCustomTilingData *tiling = context->GetTilingData<MulCustomTilingData>();
	if (tiling == nullptr)
		return ge::GRAPH_FAILED;
	tiling->totalLength = totalLength;
	tiling->blockLength = blockLength;
	tiling->tileLength = tileLength;
	tiling->bufferNum = BUFFER_NUM;

	context->SetBlockDim(blockDim);
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
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class MulCustom : public OpDef {
public:
	explicit MulCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("z")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(MulCustom);
} // namespace ops
