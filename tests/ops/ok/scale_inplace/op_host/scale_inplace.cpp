// SPDX-License-Identifier: MIT
//
// Host side of scale_inplace: x = x * alpha + 1 in place.  The OpDef
// declares no output at all (as BLAS-style scal operators do): the kernel
// takes x, the workspace and the tiling, and the manifest reads x back
// after the run as a ref output.
#include "scale_inplace_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	ScaleInplaceTilingData tiling;
	const gert::StorageShape *x = context->GetInputShape(0);
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (x == nullptr || alpha == nullptr || context->GetComputeNodeOutputNum() != 0)
		return ge::GRAPH_FAILED;
	uint32_t total = (uint32_t)x->GetStorageShape().GetShapeSize();
	uint32_t perCore = ((total + 3) / 4 + 7) / 8 * 8;
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
class ScaleInplace : public OpDef {
public:
	explicit ScaleInplace(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("alpha").AttrType(OPTIONAL).Float(2.0f);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ScaleInplace);
} // namespace ops
