// SPDX-License-Identifier: MIT
//
// Host side of sort_segments: Sort32, Sort, MrgSort and Extract over
// segments of 1024 scores, one segment at a time per core.
#include "sort_segments_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t total = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total % 128 || context->GetInputShape(1)->GetStorageShape().GetShapeSize() != total)
		return ge::GRAPH_FAILED;
	uint32_t segments = (total + 1023) / 1024;
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	SortSegmentsTilingData tiling;
	tiling.set_total(total);
	tiling.set_segments(segments);
	context->SetBlockDim(segments < coreNum ? segments : coreNum);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class SortSegments : public OpDef {
public:
	explicit SortSegments(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("h").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("gv").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("gi").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("fv").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("fi").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("mv").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("mi").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("hv").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("hi").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("ex").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SortSegments);
} // namespace ops
