// SPDX-License-Identifier: MIT
//
// Host side of AddCustom: z = x + y, elementwise, float16 or float32.
//
// The tiling follows the usual open-source recipe: split the UB into
// UB_PART_NUM tensors x BUFFER_NUM buffers, spread the 32-byte blocks of the
// input over all vector cores (the first `bigCoreNum` cores take one block
// more) and let each core loop over UB-sized tiles.
#include "add_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BLOCK_SIZE = 32;
const uint32_t BUFFER_NUM = 2;
const uint32_t UB_PART_NUM = 3;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	AddCustomTilingData tiling;
	auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();

	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (typeLength == 0 || totalLength == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;

	uint32_t blockElems = BLOCK_SIZE / typeLength;
	uint32_t totalBlocks = (totalLength + blockElems - 1) / blockElems;
	if (coreNum > totalBlocks)
		coreNum = totalBlocks;
	uint32_t smallCoreBlocks = totalBlocks / coreNum;
	uint32_t bigCoreNum = totalBlocks % coreNum;

	uint32_t tileBlocks = (uint32_t)(ubSize / BUFFER_NUM / UB_PART_NUM / BLOCK_SIZE);
	uint32_t tileLength = tileBlocks * blockElems;

	tiling.set_totalLength(totalLength);
	tiling.set_blockElems(blockElems);
	tiling.set_smallCoreBlocks(smallCoreBlocks);
	tiling.set_bigCoreNum(bigCoreNum);
	tiling.set_tileLength(tileLength);

	context->SetBlockDim(coreNum);
	context->SetTilingKey(0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	size_t *currentWorkspace = context->GetWorkspaceSizes(1);
	currentWorkspace[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	const gert::Shape *xShape = context->GetInputShape(0);
	gert::Shape *zShape = context->GetOutputShape(0);
	*zShape = *xShape;
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
	explicit AddCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("z")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(AddCustom);
} // namespace ops
