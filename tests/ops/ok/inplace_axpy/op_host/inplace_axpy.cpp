// SPDX-License-Identifier: MIT
//
// Host side of inplace_axpy: y += alpha * x, updating y in place.  The
// OpDef declares y as an input and as an output of the same name, which
// for CANN is one tensor (a ref tensor): the kernel gets its address for
// both arguments.
#include "inplace_axpy_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	InplaceAxpyTilingData tiling;
	const gert::StorageShape *y = context->GetInputShape(0), *x = context->GetInputShape(1);
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (y == nullptr || x == nullptr || alpha == nullptr ||
	    y->GetStorageShape().GetShapeSize() != x->GetStorageShape().GetShapeSize())
		return ge::GRAPH_FAILED;
	uint32_t total = (uint32_t)y->GetStorageShape().GetShapeSize();
	uint32_t cores = 8;
	uint32_t perCore = (total + cores - 1) / cores;
	perCore = (perCore + 7) / 8 * 8;
	tiling.set_total(total);
	tiling.set_perCore(perCore);
	tiling.set_alpha(*alpha);
	context->SetBlockDim((total + perCore - 1) / perCore);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class InplaceAxpy : public OpDef {
public:
	explicit InplaceAxpy(const char *name) : OpDef(name)
	{
		this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(InplaceAxpy);
} // namespace ops
