// SPDX-License-Identifier: MIT
//
// Host side of the tiling_error bad operator (the tiling function returns GRAPH_FAILED).
#include "tiling_error_tiling.h"
#include "register/op_def_registry.h"

#include <cstdio>

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total > 0) { /* the rule this operator breaks, said as real tilings say it */
		std::printf("x has %u elements, and this operator takes none\n", total);
		return ge::GRAPH_FAILED;
	}
	TilingErrorTilingData tiling;
	tiling.set_total(total);
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TilingError : public OpDef {
public:
	explicit TilingError(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TilingError);
} // namespace ops
