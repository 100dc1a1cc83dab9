// SPDX-License-Identifier: MIT
//
// Host side of the gather_offset_misaligned bad operator (a Gather byte offset that is not a multiple of the element size).
#include "gather_offset_misaligned_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	GatherOffsetMisalignedTilingData tiling;
	tiling.set_total(total);
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class GatherOffsetMisaligned : public OpDef {
public:
	explicit GatherOffsetMisaligned(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(GatherOffsetMisaligned);
} // namespace ops
