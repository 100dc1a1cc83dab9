// SPDX-License-Identifier: MIT
//
// Host side of tiling_scope: z = x * 1.5 on one core.
#include "tiling_scope_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total > UINT32_MAX || BLOCK_SIZE == 0)
		return ge::GRAPH_FAILED;
	TilingScopeTilingData tiling;
	tiling.set_total((uint32_t)total);
	tiling.set_scale(1.5f);
	context->SetBlockDim(1);
	context->SetTilingKey(0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TilingScope : public OpDef {
public:
	explicit TilingScope(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TilingScope);
} // namespace ops
