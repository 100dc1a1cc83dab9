// SPDX-License-Identifier: MIT
//
// Host side of TailCoreSplit: y = 2x, float32.  The kernel reads a
// former/tail split from the tiling data (the first formerNum cores take
// formerLength elements, the other tailNum cores tailLength), but this
// tiling fills it the simple way: every core but the last takes an equal
// 32-byte-rounded-down share and the last core takes the share plus
// whatever is left, up to 47 blocks more on 48 cores.
#include "tail_core_split_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 2048;
constexpr uint32_t BLOCK_ELEMS = 8; /* float32 elements in 32 bytes */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t blocks = (totalLength + BLOCK_ELEMS - 1) / BLOCK_ELEMS;
	if (coreNum > blocks)
		coreNum = blocks;
	uint32_t shareLength = blocks / coreNum * BLOCK_ELEMS;

	TailCoreSplitTilingData tiling;
	tiling.set_formerNum(coreNum - 1);
	tiling.set_formerLength(shareLength);
	tiling.set_tailNum(1);
	tiling.set_tailLength(totalLength - shareLength * (coreNum - 1));
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
class TailCoreSplit : public OpDef {
public:
	explicit TailCoreSplit(const char *name) : OpDef(name)
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
OP_ADD(TailCoreSplit);
} // namespace ops
