// SPDX-License-Identifier: MIT
//
// Host side of the tiling_crash bad operator: the tiling function divides the
// elements by a tile count of 0, so it crashes before any kernel runs.
#include "tiling_crash_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
constexpr uint32_t TILE_NUM = 0; /* the rule this operator breaks */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	TilingCrashTilingData tiling;
	tiling.set_total(total);
	tiling.set_tileLength((total + TILE_NUM - 1) / TILE_NUM);
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TilingCrash : public OpDef {
public:
	explicit TilingCrash(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TilingCrash);
} // namespace ops
