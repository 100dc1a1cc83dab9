// SPDX-License-Identifier: MIT
//
// Host side of tiling_named: z = x * scale, the scale an attribute carried
// in the tiling data next to a nested split struct.
#include "tiling_named_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0)
		return ge::GRAPH_FAILED;
	const float *scale = context->GetAttrs()->GetAttrPointer<float>(0);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t per = (total + coreNum - 1) / coreNum;
	per = (per + 63) / 64 * 64;
	TilingNamedTilingData tiling;
	tiling.set_total(total);
	tiling.set_scale(scale ? *scale : 1.0f);
	TilingNamedSplit split;
	split.set_perCore(per);
	split.set_tile(per < 4096 ? per : 4096);
	tiling.set_split(split);
	context->SetBlockDim((total + per - 1) / per);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TilingNamed : public OpDef {
public:
	explicit TilingNamed(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("scale").AttrType(OPTIONAL).Float(1.0f);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TilingNamed);
} // namespace ops
