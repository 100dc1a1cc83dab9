// SPDX-License-Identifier: MIT
//
// Host side of HiddenShareMultiple: y = x / 2, float32.  Each core's
// share is the total over the cores rounded up to 8 elements (one 32-byte
// block), the finest multiple DataCopy allows; a coarser one would start
// every share on a 512-byte boundary, but the 8 is written only inside
// the rounding, (share + 7) / 8 * 8.
#include "hidden_share_multiple_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t shareLength = (totalLength + coreNum - 1) / coreNum;
	shareLength = (shareLength + 7) / 8 * 8;
	uint32_t usedCores = (totalLength + shareLength - 1) / shareLength;

	HiddenShareMultipleTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_shareLength(shareLength);
	tiling.set_tileLength(TILE_LENGTH);
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
class HiddenShareMultiple : public OpDef {
public:
	explicit HiddenShareMultiple(const char *name) : OpDef(name)
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
OP_ADD(HiddenShareMultiple);
} // namespace ops
