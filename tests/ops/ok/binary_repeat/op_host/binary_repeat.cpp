// SPDX-License-Identifier: MIT
//
// Host side of binary_repeat: the mask/repeat forms of the binary vector
// instructions.  Needs a length that is a multiple of 128 floats.
#include "binary_repeat_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total % 128 != 0)
		return ge::GRAPH_FAILED;
	uint64_t blockLength = ((total + coreNum - 1) / coreNum + 127) / 128 * 128;
	BinaryRepeatTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength(4096); /* 64 repeats of 64 floats */
	context->SetBlockDim((uint32_t)((total + blockLength - 1) / blockLength));
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	*context->GetOutputShape(1) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class BinaryRepeat : public OpDef {
public:
	explicit BinaryRepeat(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("w").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(BinaryRepeat);
} // namespace ops
