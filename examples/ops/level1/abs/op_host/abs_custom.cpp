// SPDX-License-Identifier: MIT
//
// Host side of AbsCustom: y = |x|, float16 or float32 (the kernel entry is a
// template over the element type).  Each core takes floor(total / cores)
// elements rounded down to a 32-byte block; the last core also takes the
// remainder.  Tiles are TILE_LENGTH elements.
#include "abs_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 2048;
constexpr uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (totalLength == 0 || coreNum == 0 || typeLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t alignElems = BLOCK_BYTES / typeLength;
	uint32_t blockLength = totalLength / coreNum / alignElems * alignElems;
	if (blockLength == 0)
		coreNum = 1;

	AbsCustomTilingData tiling;
	tiling.set_blockLength(blockLength);
	tiling.set_lastBlockLength(totalLength - blockLength * (coreNum - 1));
	tiling.set_tileLength(TILE_LENGTH);
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
class AbsCustom : public OpDef {
public:
	explicit AbsCustom(const char *name) : OpDef(name)
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
OP_ADD(AbsCustom);
} // namespace ops
