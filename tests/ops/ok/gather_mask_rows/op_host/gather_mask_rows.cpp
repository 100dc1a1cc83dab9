// SPDX-License-Identifier: MIT
//
// Host side of gather_mask_rows: GatherMask over rows of 128 halves with
// built-in and tensor patterns.  Rows go to the cores in groups of 16.
#include "gather_mask_rows_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &x = context->GetInputShape(0)->GetStorageShape();
	const gert::Shape &p = context->GetInputShape(1)->GetStorageShape();
	if (x.GetDimNum() != 2 || x.GetDim(1) != 128 || x.GetDim(0) == 0 || x.GetDim(0) % 16 ||
	    p.GetDimNum() != 2 || p.GetDim(0) != x.GetDim(0) || p.GetDim(1) != 16)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)x.GetDim(0);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t perCore = (rows / 16 + coreNum - 1) / coreNum * 16;
	GatherMaskRowsTilingData tiling;
	tiling.set_rows(rows);
	tiling.set_rowsPerCore(perCore);
	context->SetBlockDim((rows + perCore - 1) / perCore);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class GatherMaskRows : public OpDef {
public:
	explicit GatherMaskRows(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("p").ParamType(REQUIRED).DataType({ge::DT_INT16}).Format({ge::FORMAT_ND});
		this->Output("odd").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("q3").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("sel").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("cnt").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("pk").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(GatherMaskRows);
} // namespace ops
