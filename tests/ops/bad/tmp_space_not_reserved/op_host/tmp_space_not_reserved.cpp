// SPDX-License-Identifier: MIT
//
// Host side of the tmp_space_not_reserved bad operator: the tile fills the
// whole UB with two double-buffered queues and leaves nothing for the temp
// space Erf takes when it gets no sharedTmpBuffer.
#include "tmp_space_not_reserved_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	TmpSpaceNotReservedTilingData tiling;
	tiling.set_total(total);
	tiling.set_tileLength((uint32_t)(ubSize / (2 * 2 * sizeof(float)) / 8 * 8));
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class TmpSpaceNotReserved : public OpDef {
public:
	explicit TmpSpaceNotReserved(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TmpSpaceNotReserved);
} // namespace ops
