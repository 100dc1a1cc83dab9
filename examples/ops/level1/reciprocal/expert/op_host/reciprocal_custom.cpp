// SPDX-License-Identifier: MIT
//
// Host side of the hand-optimized ReciprocalCustom: y = 1 / x.
//
//  - work is split in 512-byte units so every core's range and every tile
//    start on the fastest GM alignment; the remainder units go one each to
//    the first cores (no tail core);
//  - the tile is derived from the UB size: x and y halves double-buffered
//    plus two float tensors (the widened x and the ones), 16 bytes per
//    element, rounded down to whole units.
#include "reciprocal_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t ALIGN_BYTES = 512;
const uint32_t BUFFER_NUM = 2;
const uint32_t HALF_BYTES = 2;
const uint32_t FLOAT_BYTES = 4;
const uint32_t MAX_TILE_ELEMS = 8192;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;

	uint32_t unitElems = ALIGN_BYTES / HALF_BYTES;
	uint32_t units = (totalLength + unitElems - 1) / unitElems;
	uint32_t usedCores = coreNum < units ? coreNum : units;

	uint64_t bytesPerElem = 2 * BUFFER_NUM * HALF_BYTES + 2 * FLOAT_BYTES;
	uint32_t tileLength = (uint32_t)(ubSize / bytesPerElem) / unitElems * unitElems;
	if (tileLength > MAX_TILE_ELEMS)
		tileLength = MAX_TILE_ELEMS;
	if (tileLength == 0)
		return ge::GRAPH_FAILED;

	ReciprocalCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_unitElems(unitElems);
	tiling.set_unitsPerCore(units / usedCores);
	tiling.set_bigCoreNum(units % usedCores);
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
class ReciprocalCustom : public OpDef {
public:
	explicit ReciprocalCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReciprocalCustom);
} // namespace ops
