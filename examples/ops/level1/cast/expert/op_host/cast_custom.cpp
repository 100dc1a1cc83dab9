// SPDX-License-Identifier: MIT
//
// Host side of the hand-optimized CastCustom (float32 -> float16).
// 256-element units keep both the float32 input and the float16 output
// 512-byte aligned on GM; the remainder units go to the first cores; the
// tile fills the UB: 2 buffers x (4 + 2) bytes per element plus a 256-byte
// bank pad, rounded down to whole units.
#include "cast_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t UNIT_ELEMS = 256;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t BYTES_PER_ELEM = 4 + 2;
constexpr uint32_t BANK_PAD_BYTES = 256;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;
	uint32_t units = (totalLength + UNIT_ELEMS - 1) / UNIT_ELEMS;
	uint32_t usedCores = coreNum < units ? coreNum : units;
	uint64_t tileLength = (ubSize - BANK_PAD_BYTES) / (BUFFER_NUM * BYTES_PER_ELEM) / UNIT_ELEMS * UNIT_ELEMS;

	CastCustomTilingData *tiling = context->GetTilingData<CastCustomTilingData>();
	if (tiling == nullptr)
		return ge::GRAPH_FAILED;
	tiling->totalLength = totalLength;
	tiling->unitsPerCore = units / usedCores;
	tiling->bigCoreNum = units % usedCores;
	tiling->tileLength = (uint32_t)tileLength;
	context->SetBlockDim(usedCores);
	context->SetTilingKey(0);
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
	context->SetOutputDataType(0, ge::DT_FLOAT16);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class CastCustom : public OpDef {
public:
	explicit CastCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
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
OP_ADD(CastCustom);
} // namespace ops
