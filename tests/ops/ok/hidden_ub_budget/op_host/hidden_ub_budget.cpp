// SPDX-License-Identifier: MIT
//
// Host side of HiddenUbBudget: y = 3x, float32.  The tile is the UB
// divided as real tiling programs write it, in one expression: BUFFER_NUM
// copies of 8 live tensors (a count kept from a kernel that held more;
// this one holds x and y), each sizeof(float) wide, rounded down to 64
// elements.  The 8 and the 64 are choices that no constant names.
#include "hidden_ub_budget_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
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
	uint32_t tileLength = (uint32_t)(ubSize / (BUFFER_NUM * 8 * sizeof(float)) / 64 * 64);
	uint32_t blocks = (totalLength * sizeof(float) + 31) / 32;
	if (coreNum > blocks)
		coreNum = blocks;
	uint32_t shareLength = (blocks + coreNum - 1) / coreNum * 32 / sizeof(float);
	uint32_t usedCores = (totalLength + shareLength - 1) / shareLength;

	HiddenUbBudgetTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_shareLength(shareLength);
	tiling.set_tileLength(tileLength);
	context->SetBlockDim(usedCores);
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
class HiddenUbBudget : public OpDef {
public:
	explicit HiddenUbBudget(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(HiddenUbBudget);
} // namespace ops
