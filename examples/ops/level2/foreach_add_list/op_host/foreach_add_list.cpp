// SPDX-License-Identifier: MIT
//
// Host side of foreach_add_list: z[i] = x[i] + alpha * y[i] for every pair
// of tensors of two dynamic (list) inputs, written to a dynamic output list.
// Each tensor gets one core of its own, whatever its size.  As in the
// add_custom sample, the tile length follows from TILE_NUM and BUFFER_NUM,
// and the kernel gives each of its queues BUFFER_NUM buffers (tiling field
// bufferNum).  All cores share one tile length (one tiling field, one UB
// layout), so the share it is cut from is that of the busiest core, the
// longest tensor: tileLength = ceil(maxLength / (TILE_NUM * BUFFER_NUM)),
// rounded up to ALIGN_ELEMS (a 32-byte block of floats) and never below it.
// The shorter tensors walk the same tiles, in fewer of them.
#include "foreach_add_list_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
const uint32_t MAX_TENSORS = 16;
// the longest tensor is cut into TILE_NUM * BUFFER_NUM tiles
const uint32_t TILE_NUM = 1024;
// buffers per queue (1: single buffering, 2: double buffering)
const uint32_t BUFFER_NUM = 1;
// tiles are whole 32-byte blocks of float32
const uint32_t ALIGN_ELEMS = 8;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	ForeachAddListTilingData tiling;
	uint32_t lengths[MAX_TENSORS] = {0};
	uint32_t n = 0;
	uint64_t maxLength = 0;
	while (n < MAX_TENSORS && context->GetDynamicInputShape(0, n) != nullptr) {
		const gert::StorageShape *ys = context->GetDynamicInputShape(1, n);
		int64_t len = context->GetDynamicInputShape(0, n)->GetStorageShape().GetShapeSize();
		if (ys == nullptr || ys->GetStorageShape().GetShapeSize() != len)
			return ge::GRAPH_FAILED;
		lengths[n] = (uint32_t)len;
		if ((uint64_t)len > maxLength)
			maxLength = (uint64_t)len;
		n++;
	}
	const float *alpha = context->GetAttrs()->GetFloat(0);
	if (n == 0 || alpha == nullptr || context->GetDynamicInputShape(0, n) != nullptr)
		return ge::GRAPH_FAILED;
	uint64_t tileCount = (uint64_t)TILE_NUM * BUFFER_NUM;
	uint64_t tileLength = tileCount ? (maxLength + tileCount - 1) / tileCount : maxLength;
	tileLength = (tileLength + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
	if (tileLength < ALIGN_ELEMS)
		tileLength = ALIGN_ELEMS;
	tiling.set_tensorNum(n);
	tiling.set_tileLength((uint32_t)tileLength);
	tiling.set_bufferNum(BUFFER_NUM);
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
