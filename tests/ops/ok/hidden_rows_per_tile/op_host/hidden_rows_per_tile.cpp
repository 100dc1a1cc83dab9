// SPDX-License-Identifier: MIT
//
// Host side of HiddenRowsPerTile: y = x + b for a [rows, cols] float
// matrix x and a [cols] row b.  A row-wise tiling: each core takes
// rowsPerCore whole rows (the last core what is left) and the kernel moves
// rowsPerTile of them at a time.  That count is a plain local set to 1, a
// start no one tuned, and a value of 1 is no knob to the plain literal
// finder.
#include "hidden_rows_per_tile_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint32_t cols = (uint32_t)shape.GetDim(dims - 1);
	uint32_t rows = cols ? (uint32_t)(shape.GetShapeSize() / cols) : 0;
	if (rows == 0 || cols == 0 || context->GetInputShape(1)->GetStorageShape().GetShapeSize() != (int64_t)cols)
		return ge::GRAPH_FAILED;
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t rowsPerCore = (rows + coreNum - 1) / coreNum;
	uint32_t usedCores = (rows + rowsPerCore - 1) / rowsPerCore;
	uint32_t rowsPerTile = 1; /* rows the kernel moves and adds at a time */

	HiddenRowsPerTileTilingData tiling;
	tiling.set_rows(rows);
	tiling.set_cols(cols);
	tiling.set_rowsPerCore(rowsPerCore);
	tiling.set_rowsPerTile(rowsPerTile);
	context->SetBlockDim(usedCores);
	context->SetTilingKey(0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	size_t *workspace = context->GetWorkspaceSizes(1);
	workspace[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class HiddenRowsPerTile : public OpDef {
public:
	explicit HiddenRowsPerTile(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(HiddenRowsPerTile);
} // namespace ops
