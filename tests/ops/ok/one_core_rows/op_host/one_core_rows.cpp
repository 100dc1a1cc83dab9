// SPDX-License-Identifier: MIT
//
// Host side of one_core_rows: y[r], the mean of row r of x, written as a
// first kernel often is: on one core (SetBlockDim(1)), which walks every
// row in tiles of TILE_COLS columns.  The test operator of the
// spread_over_cores motif, which gives each vector core its own rows.
#include "one_core_rows_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t TILE_COLS = 1024; // columns of a row per tile, a multiple of 8

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(0) < 1 || shape.GetDim(1) < 1)
		return ge::GRAPH_FAILED;
	OneCoreRowsTilingData tiling;
	tiling.set_rows((uint32_t)shape.GetDim(0));
	tiling.set_cols((uint32_t)shape.GetDim(1));
	tiling.set_tileCols(TILE_COLS);
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = gert::Shape({context->GetInputShape(0)->GetDim(0)});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class OneCoreRows : public OpDef {
public:
	explicit OneCoreRows(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(OneCoreRows);
} // namespace ops
