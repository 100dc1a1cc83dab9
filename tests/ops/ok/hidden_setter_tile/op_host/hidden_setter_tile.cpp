// SPDX-License-Identifier: MIT
//
// Host side of HiddenSetterTile: y = 2x + 1, float32.  Its one choice is
// the tile, and it is written nowhere but in the call of the generated
// setter, tiling.set_tileLength(512): no constant, no #define.  The cores
// come from the platform and each takes a 32-byte-aligned share; the last
// takes what is left.
#include "hidden_setter_tile_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t blocks = (totalLength * sizeof(float) + 31) / 32;
	if (coreNum > blocks)
		coreNum = blocks;
	uint32_t shareBlocks = (blocks + coreNum - 1) / coreNum;
	uint32_t shareLength = shareBlocks * 32 / sizeof(float);
	uint32_t usedCores = (totalLength + shareLength - 1) / shareLength;

	HiddenSetterTileTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_shareLength(shareLength);
	tiling.set_tileLength(512);
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
class HiddenSetterTile : public OpDef {
public:
	explicit HiddenSetterTile(const char *name) : OpDef(name)
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
OP_ADD(HiddenSetterTile);
} // namespace ops
