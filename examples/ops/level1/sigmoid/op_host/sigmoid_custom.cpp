// SPDX-License-Identifier: MIT
//
// Host side of SigmoidCustom: y = 1 / (1 + exp(-x)), float16 or float32.
// All vector cores; 32-byte blocks shared out with the remainder on the
// first cores; the tile fills the UB (2 tensors x 2 buffers) but for the
// temp space Sigmoid takes for itself, its GetSigmoidMaxMinTmpSize minimum.
#include "sigmoid_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
constexpr uint32_t BLOCK_SIZE = 32;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t UB_PART_NUM = 2;

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

	uint32_t blockElems = BLOCK_SIZE / typeLength;
	uint32_t totalBlocks = (totalLength + blockElems - 1) / blockElems;
	if (coreNum > totalBlocks)
		coreNum = totalBlocks;
	uint32_t tmpMax = 0, tmpMin = 0;
	AscendC::GetSigmoidMaxMinTmpSize(ge::Shape(std::vector<int64_t>{totalLength}), typeLength, false, tmpMax, tmpMin);
	uint32_t tileBlocks = (uint32_t)((ubSize - tmpMin) / BUFFER_NUM / UB_PART_NUM / BLOCK_SIZE);

	SigmoidCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_blockElems(blockElems);
	tiling.set_smallCoreBlocks(totalBlocks / coreNum);
	tiling.set_bigCoreNum(totalBlocks % coreNum);
	tiling.set_tileLength(tileBlocks * blockElems);
	context->SetBlockDim(coreNum);
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
class SigmoidCustom : public OpDef {
public:
	explicit SigmoidCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SigmoidCustom);
} // namespace ops
