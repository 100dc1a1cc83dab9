// SPDX-License-Identifier: MIT
//
// Host side of u64_delta: for uint64 timestamps ts, echo = ts (moved
// through UB) and d = (double)(ts - base) * scale[0] in float64, computed
// in scalar code as Atlas A2 kernels treat 64-bit data.
#include "u64_delta_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	U64DeltaTilingData tiling;
	const gert::StorageShape *ts = context->GetInputShape(0);
	const int64_t *base = context->GetAttrs()->GetInt(0);
	if (ts == nullptr || base == nullptr || context->GetInputDesc(0)->GetDataType() != ge::DT_UINT64 ||
	    context->GetInputDesc(1)->GetDataType() != ge::DT_DOUBLE)
		return ge::GRAPH_FAILED;
	uint32_t total = (uint32_t)ts->GetStorageShape().GetShapeSize();
	uint32_t perCore = ((total + 3) / 4 + 3) / 4 * 4;
	tiling.set_total(total);
	tiling.set_perCore(perCore);
	tiling.set_base((uint64_t)*base);
	context->SetBlockDim((total + perCore - 1) / perCore);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class U64Delta : public OpDef {
public:
	explicit U64Delta(const char *name) : OpDef(name)
	{
		this->Input("ts").ParamType(REQUIRED).DataType({ge::DT_UINT64}).Format({ge::FORMAT_ND});
		this->Input("scale").ParamType(REQUIRED).DataType({ge::DT_DOUBLE}).Format({ge::FORMAT_ND});
		this->Output("echo").ParamType(REQUIRED).DataType({ge::DT_UINT64}).Format({ge::FORMAT_ND});
		this->Output("d").ParamType(REQUIRED).DataType({ge::DT_DOUBLE}).Format({ge::FORMAT_ND});
		this->Attr("base").AttrType(REQUIRED).Int();
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(U64Delta);
} // namespace ops
