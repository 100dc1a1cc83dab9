// SPDX-License-Identifier: MIT
//
// Host side of gather_table: a float table x looked up at int32 indices idx.
// Indices are split over the cores in multiples of 64 (one float repeat) and
// each core keeps the whole table in UB.
#include "gather_table_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint64_t table = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint64_t total = context->GetInputShape(1)->GetStorageShape().GetShapeSize();
	if (table == 0 || table % 8 || table > 8192 || total == 0 || total % 64)
		return ge::GRAPH_FAILED;
	uint64_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint64_t blockLength = (total / 64 + coreNum - 1) / coreNum * 64;
	GatherTableTilingData tiling;
	tiling.set_tableLength((uint32_t)table);
	tiling.set_total((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength(2048);
	context->SetBlockDim((uint32_t)((total + blockLength - 1) / blockLength));
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class GatherTable : public OpDef {
public:
	explicit GatherTable(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("idx").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("r").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->Output("w").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(GatherTable);
} // namespace ops
