// SPDX-License-Identifier: MIT
//
// Host side of the hand-optimized AddCustom: z = x + y.
//
//  - work is split in 512-byte units so every core's range and every tile
//    start on the fastest GM alignment; the remainder units go one each to
//    the first cores (no tail core);
//  - the tile is derived from the UB size: 3 tensors x 2 buffers plus a
//    256-byte pad that keeps the two inputs in different UB bank groups,
//    rounded down to whole 512-byte units (about 30 KB per copy).
#include "add_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t ALIGN_BYTES = 512;
const uint32_t BUFFER_NUM = 2;
const uint32_t UB_TENSOR_NUM = 3;
const uint32_t BANK_PAD_BYTES = 256;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (typeLength == 0 || totalLength == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;

	uint32_t unitElems = ALIGN_BYTES / typeLength;
	uint32_t units = (totalLength + unitElems - 1) / unitElems;
	uint32_t usedCores = coreNum < units ? coreNum : units;
	uint32_t unitsPerCore = units / usedCores;
	uint32_t bigCoreNum = units % usedCores;

	uint64_t tileBytes = (ubSize - BANK_PAD_BYTES) / (BUFFER_NUM * UB_TENSOR_NUM) / ALIGN_BYTES * ALIGN_BYTES;
	uint32_t tileLength = (uint32_t)(tileBytes / typeLength);

	AddCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_unitElems(unitElems);
	tiling.set_unitsPerCore(unitsPerCore);
	tiling.set_bigCoreNum(bigCoreNum);
	tiling.set_tileLength(tileLength);

	context->SetBlockDim(usedCores);
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
