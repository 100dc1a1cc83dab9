// SPDX-License-Identifier: MIT
//
// Host side of foreach_add_list: z[i] = x[i] + alpha * y[i] for every pair
// of tensors of two dynamic (list) inputs, written to a dynamic output list.
// Each tensor gets one core of its own, whatever its size.
#include "foreach_add_list_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
const uint32_t MAX_TENSORS = 16;
const uint32_t TILE_LENGTH = 2048;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	ForeachAddListTilingData tiling;
	uint32_t lengths[MAX_TENSORS] = {0};
	uint32_t n = 0;
	while (n < MAX_TENSORS && context->GetDynamicInputShape(0, n) != nullptr) {
		const gert::StorageShape *ys = context->GetDynamicInputShape(1, n);
		int64_t len = context->GetDynamicInputShape(0, n)->GetStorageShape().GetShapeSize();
		if (ys == nullptr || ys->GetStorageShape().GetShapeSize() != len)
			return ge::GRAPH_FAILED;
		lengths[n] = (uint32_t)len;
		n++;
	}
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (n == 0 || alpha == nullptr || context->GetDynamicInputShape(0, n) != nullptr)
		return ge::GRAPH_FAILED;
	tiling.set_tensorNum(n);
	tiling.set_tileLength(TILE_LENGTH);
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
class ForeachAddList : public OpDef {
public:
	explicit ForeachAddList(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ForeachAddList);
} // namespace ops
