// SPDX-License-Identifier: MIT
//
// Host side of the huge_workspace bad operator: its tiling asks for an
// 8 GiB workspace, past what one case may take in GM.
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	context->SetBlockDim(1);
	context->GetRawTilingData()->SetDataSize(0);
	context->GetWorkspaceSizes(1)[0] = 8ull << 30; /* the rule this operator breaks */
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class HugeWorkspace : public OpDef {
public:
	explicit HugeWorkspace(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(HugeWorkspace);
} // namespace ops
