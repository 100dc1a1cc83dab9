// SPDX-License-Identifier: MIT
//
// Host side of the tmp_buffer_too_small bad operator: it sizes Sin's
// sharedTmpBuffer for isReuseSource = true, while the kernel calls Sin
// without it.
#include "tmp_buffer_too_small_tiling.h"
#include "graph/tensor.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t maxValue = 0, minValue = 0;
	AscendC::GetSinMaxMinTmpSize(ge::Shape(std::vector<int64_t>{total}), sizeof(float), true, maxValue, minValue);
	TmpBufferTooSmallTilingData tiling;
	tiling.set_total(total);
	tiling.set_tmpBytes(minValue);
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TmpBufferTooSmall : public OpDef {
public:
	explicit TmpBufferTooSmall(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TmpBufferTooSmall);
} // namespace ops
