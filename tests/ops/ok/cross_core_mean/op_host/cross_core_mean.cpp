// SPDX-License-Identifier: MIT
//
// Host side of cross_core_mean: z = x - mean(x).  Every core needs the sum of
// all cores' partial sums, exchanged through the user workspace (32 bytes
// per core, after the system workspace) and a mode-0 CrossCoreSetFlag/WaitFlag.
#include "cross_core_mean_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0)
		return ge::GRAPH_FAILED;
	uint64_t blockLength = ((total + coreNum - 1) / coreNum + 7) / 8 * 8;
	if (blockLength * sizeof(float) > 96 * 1024)
		return ge::GRAPH_FAILED; /* one chunk per core must fit the UB */
	uint32_t blockDim = (uint32_t)((total + blockLength - 1) / blockLength);
	CrossCoreMeanTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	context->SetBlockDim(blockDim);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	size_t *ws = context->GetWorkspaceSizes(1);
	ws[0] = platform.GetLibApiWorkSpaceSize() + (size_t)blockDim * 32;
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
class CrossCoreMean : public OpDef {
public:
	explicit CrossCoreMean(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(CrossCoreMean);
} // namespace ops
