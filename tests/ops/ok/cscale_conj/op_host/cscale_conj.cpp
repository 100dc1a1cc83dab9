// SPDX-License-Identifier: MIT
//
// Host side of cscale_conj: y = alpha * conj(x) for complex64 x, alpha a
// real attribute.  As the complex BLAS-style kernels of Atlas A2 do, the
// kernel reads a complex64 tensor as pairs of floats (real, imaginary).
#include "cscale_conj_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	CscaleConjTilingData tiling;
	const gert::StorageShape *x = context->GetInputShape(0);
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (x == nullptr || alpha == nullptr || context->GetInputDesc(0)->GetDataType() != ge::DT_COMPLEX64)
		return ge::GRAPH_FAILED;
	uint32_t total = (uint32_t)x->GetStorageShape().GetShapeSize();
	uint32_t perCore = ((total + 7) / 8 + 3) / 4 * 4;
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
class CscaleConj : public OpDef {
public:
	explicit CscaleConj(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_COMPLEX64}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_COMPLEX64}).Format({ge::FORMAT_ND});
		this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(CscaleConj);
} // namespace ops
