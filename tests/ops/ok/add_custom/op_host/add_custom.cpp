// SPDX-License-Identifier: MIT
//
// Host side of add_custom: z = x + y.  The tiling splits the 32-byte blocks
// of the input over the cores (the first `tailBlockNum` cores take one block
// more), cuts each core's share into UB-sized tiles (3 tensors x 2 buffers)
// and picks tiling key 1 when there are big cores.
#include "add_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BLOCK_SIZE = 32;
const uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	TilingData tiling;
	uint64_t ubSize = 0;
	auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t coreNum = ascendcPlatform.GetCoreNum();

	uint64_t totalNum = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (typeLength == 0 || totalNum == 0)
		return ge::GRAPH_FAILED;
	uint64_t totalBytes = totalNum * typeLength;

	// int8 goes through half temporaries in the kernel, so UB holds more parts.
	uint64_t ubPartNum = (context->GetInputDesc(0)->GetDataType() == ge::DT_INT8) ? 5 : 3;
	uint64_t ubPartBlocks = ubSize / BLOCK_SIZE / BUFFER_NUM / ubPartNum;
	uint64_t ubPartDataNum = ubPartBlocks * BLOCK_SIZE / typeLength;

	uint64_t totalBlocks = (totalBytes + BLOCK_SIZE - 1) / BLOCK_SIZE;
	if (coreNum > totalBlocks)
		coreNum = totalBlocks;
	if (coreNum == 0)
		coreNum = 1;
	uint64_t smallBlocks = totalBlocks / coreNum;
	uint64_t tailBlockNum = totalBlocks % coreNum;
	uint64_t bigBlocks = smallBlocks + 1;

	uint64_t smallCoreDataNum = smallBlocks * BLOCK_SIZE / typeLength;
	uint64_t bigCoreDataNum = bigBlocks * BLOCK_SIZE / typeLength;
	uint64_t smallCoreLoopNum = (smallBlocks + ubPartBlocks - 1) / ubPartBlocks;
	uint64_t bigCoreLoopNum = (bigBlocks + ubPartBlocks - 1) / ubPartBlocks;
	uint64_t smallCoreTailDataNum = smallCoreDataNum - ubPartDataNum * (smallCoreLoopNum ? smallCoreLoopNum - 1 : 0);
	uint64_t bigCoreTailDataNum = bigCoreDataNum - ubPartDataNum * (bigCoreLoopNum - 1);

	tiling.set_smallCoreDataNum(smallCoreDataNum);
	tiling.set_bigCoreDataNum(bigCoreDataNum);
	tiling.set_smallCoreLoopNum(smallCoreLoopNum);
	tiling.set_bigCoreLoopNum(bigCoreLoopNum);
	tiling.set_ubPartDataNum(ubPartDataNum);
	tiling.set_smallCoreTailDataNum(smallCoreTailDataNum);
	tiling.set_bigCoreTailDataNum(bigCoreTailDataNum);
	tiling.set_tailBlockNum(tailBlockNum);

	context->SetTilingKey(tailBlockNum > 0 ? 1 : 0);
	context->SetBlockDim((uint32_t)coreNum);
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
	const gert::Shape *x1_shape = context->GetInputShape(0);
	gert::Shape *y_shape = context->GetOutputShape(0);
	*y_shape = *x1_shape;
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	const auto inputDataType = context->GetInputDataType(0);
	context->SetOutputDataType(0, inputDataType);
	return ge::GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
	explicit AddCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32, ge::DT_INT8})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32, ge::DT_INT8})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("z")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32, ge::DT_INT8})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(AddCustom);
} // namespace ops
