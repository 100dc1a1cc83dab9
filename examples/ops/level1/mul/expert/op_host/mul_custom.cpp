// SPDX-License-Identifier: MIT
//
// Host side of the hand-optimized MulCustom: z = x * y.
// 512-byte units spread over all vector cores with the remainder on the
// first cores; UB-derived tiles (3 tensors x 2 buffers + a 256-byte bank
// pad), rounded down to whole units.
#include "mul_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ALIGN_BYTES = 512;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t UB_TENSOR_NUM = 3;
constexpr uint32_t BANK_PAD_BYTES = 256;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (totalLength == 0 || coreNum == 0 || typeLength == 0)
		return ge::GRAPH_FAILED;

	uint32_t unitElems = ALIGN_BYTES / typeLength;
	uint32_t units = (totalLength + unitElems - 1) / unitElems;
	uint32_t usedCores = coreNum < units ? coreNum : units;
	uint64_t tileBytes = (ubSize - BANK_PAD_BYTES) / (BUFFER_NUM * UB_TENSOR_NUM) / ALIGN_BYTES * ALIGN_BYTES;

	MulCustomTilingData *tiling = context->GetTilingData<MulCustomTilingData>();
	if (tiling == nullptr)
		return ge::GRAPH_FAILED;
	tiling->totalLength = totalLength;
	tiling->unitElems = unitElems;
	tiling->unitsPerCore = units / usedCores;
	tiling->bigCoreNum = units % usedCores;
	tiling->tileLength = (uint32_t)(tileBytes / typeLength);

	context->SetBlockDim(usedCores);
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
