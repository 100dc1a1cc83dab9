// SPDX-License-Identifier: MIT
//
// Host side of foreach_add_scalar: y[i] = x[i] + alpha for every tensor of a
// dynamic (list) input, one core per tensor.
#include "foreach_add_scalar_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	ForeachAddScalarTilingData tiling;
	uint32_t lengths[16] = {0};
	uint32_t n = 0;
	while (n < 16 && context->GetDynamicInputShape(0, n) != nullptr) {
		lengths[n] = (uint32_t)context->GetDynamicInputShape(0, n)->GetStorageShape().GetShapeSize();
		n++;
	}
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (n == 0 || alpha == nullptr || context->GetDynamicInputShape(0, n) != nullptr)
		return ge::GRAPH_FAILED;
	tiling.set_tensorNum(n);
	tiling.set_lengths(lengths);
	tiling.set_alpha(*alpha);
	context->SetBlockDim(n);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class ForeachAddScalar : public OpDef {
public:
	explicit ForeachAddScalar(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ForeachAddScalar);
} // namespace ops
