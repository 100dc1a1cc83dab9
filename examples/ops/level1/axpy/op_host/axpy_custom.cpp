// SPDX-License-Identifier: MIT
//
// Host side of AxpyCustom: z = alpha * x + y, with the float attribute
// alpha.  The 32-byte blocks are shared out evenly ("former" cores take one
// block more than "tail" cores).  As in the add_custom tutorial, a core's
// share is cut into TILE_NUM * BUFFER_NUM tiles: tileLength =
// ceil(share / (TILE_NUM * BUFFER_NUM)) rounded up to a 32-byte block (never
// less than one block), and the kernel gives each TQue BUFFER_NUM buffers
// (tiling field bufferNum).  All cores use the same tile, so the share is
// the larger one (formerLength when there are former cores): the busiest
// core, which sets the time, then walks at most TILE_NUM * BUFFER_NUM tiles,
// where the tail share could give it one tile more.
#include "axpy_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_NUM = 342;  // tiles per core per queue buffer
constexpr uint32_t BUFFER_NUM = 1;  // buffers per TQue (1 = single buffering)
constexpr uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (totalLength == 0 || coreNum == 0 || typeLength == 0 || alpha == nullptr)
		return ge::GRAPH_FAILED;

	uint32_t alignElems = BLOCK_BYTES / typeLength;
	uint32_t totalBlocks = (totalLength + alignElems - 1) / alignElems;
	if (coreNum > totalBlocks)
		coreNum = totalBlocks;
	uint32_t formerNum = totalBlocks % coreNum;
	uint32_t tailLength = totalBlocks / coreNum * alignElems;
	uint32_t formerLength = tailLength + alignElems;
	uint32_t share = formerNum > 0 ? formerLength : tailLength;
	uint32_t tileCount = TILE_NUM * BUFFER_NUM;
	uint32_t tileLength = (share + tileCount - 1) / tileCount;
	tileLength = (tileLength + alignElems - 1) / alignElems * alignElems;
	if (tileLength < alignElems)
		tileLength = alignElems;

	AxpyCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_formerNum(formerNum);
	tiling.set_formerLength(formerLength);
	tiling.set_tailLength(tailLength);
	tiling.set_tileLength(tileLength);
	tiling.set_bufferNum(BUFFER_NUM);
	tiling.set_alpha(*alpha);
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
class AxpyCustom : public OpDef {
public:
	explicit AxpyCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("z")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(AxpyCustom);
} // namespace ops
