// SPDX-License-Identifier: MIT
//
// Host side of ThresholdMask: y = (x > 1), float32 in, bool out.  With the
// seeded inputs in [-1, 1) every answer is false, so an output the kernel
// never writes reads right on the simulator, whose GM starts zeroed: the
// operator exists to show that the simulator sees it.  The tiling key picks
// the kernel's path: a share that fits one tile, or a loop over tiles.
#include "threshold_mask_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint64_t TILING_KEY_ONE_TILE = 1;
constexpr uint64_t TILING_KEY_TILED = 2;
constexpr uint32_t TILE_LENGTH = 4096; /* elements; a multiple of 128 (one half repeat) */
constexpr uint32_t ALIGN_ELEMS = 32;   /* bool elements in 32 bytes */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t share = (totalLength + coreNum - 1) / coreNum;
	uint32_t blockLength = (share + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
	uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;

	ThresholdMaskTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_blockLength(blockLength);
	tiling.set_tileLength(TILE_LENGTH);
	context->SetBlockDim(blockDim);
	context->SetTilingKey(blockLength <= TILE_LENGTH ? TILING_KEY_ONE_TILE : TILING_KEY_TILED);
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
} // namespace ge

namespace ops {
class ThresholdMask : public OpDef {
public:
	explicit ThresholdMask(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_BOOL}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ThresholdMask);
} // namespace ops
