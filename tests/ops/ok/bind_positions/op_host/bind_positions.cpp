// SPDX-License-Identifier: MIT
//
// Host side of bind_positions: y = 2x (float, a multiple of 64 elements),
// each core a contiguous share.
#include "bind_positions_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t cores = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	if (total == 0 || total % 64 != 0 || total > UINT32_MAX || cores == 0)
		return ge::GRAPH_FAILED;
	uint64_t per = (total / 64 + cores - 1) / cores * 64;
	BindPositionsTilingData tiling;
	tiling.set_total((uint32_t)total);
	tiling.set_perCore((uint32_t)per);
	context->SetBlockDim((uint32_t)((total + per - 1) / per));
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class BindPositions : public OpDef {
public:
	explicit BindPositions(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(BindPositions);
} // namespace ops
