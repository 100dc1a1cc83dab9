// SPDX-License-Identifier: MIT
//
// Host side of rows_no_tail: y = 2x + 1 over a [rows, cols] matrix.  Written
// without tail handling, as quick kernels often are: every core takes
// rows / CORE_NUM whole rows and walks each row in cols / TILE_LEN tiles, so
// a core count that does not divide the rows leaves the last rows unwritten
// and a tile that does not divide the row leaves its end unwritten.  Both
// answer wrong, the same way every time (Stage I's constraint learning is
// tested on it, tests/t0044-stage1-constraints.sh).
#include "rows_no_tail_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
constexpr uint32_t CORE_NUM = 8;   // @tune 1..64 pow2
constexpr uint32_t TILE_LEN = 256; // @tune 32..4096 align32

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::StorageShape *x = context->GetInputShape(0);
	if (x == nullptr || x->GetStorageShape().GetDimNum() != 2)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)x->GetStorageShape().GetDim(0);
	uint32_t cols = (uint32_t)x->GetStorageShape().GetDim(1);
	RowsNoTailTilingData tiling;
	tiling.set_rowsPerCore(rows / CORE_NUM);
	tiling.set_cols(cols);
	tiling.set_tileLen(TILE_LEN);
	tiling.set_tileNum(cols / TILE_LEN);
	context->SetBlockDim(CORE_NUM);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
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
class RowsNoTail : public OpDef {
public:
	explicit RowsNoTail(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(RowsNoTail);
} // namespace ops
