// SPDX-License-Identifier: MIT
//
// Host side of Narrow: y = x[..., start:start + length], a slice of the
// last axis (int attributes start and length).  Rows are shared out in
// equal chunks, the last core taking what is left, and each core moves
// TILE_ROWS rows at a time through UB, where every row starts on a
// 32-byte boundary.
#include "narrow_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_ROWS = 64;
constexpr uint32_t FLOATS_PER_BLOCK = 8;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	const int64_t *start = context->GetAttrs()->GetInt(0);
	const int64_t *length = context->GetAttrs()->GetInt(1);
	size_t dims = shape.GetDimNum();
	if (dims == 0 || coreNum == 0 || start == nullptr || length == nullptr)
		return ge::GRAPH_FAILED;
	int64_t cols = shape.GetDim(dims - 1);
	if (cols <= 0 || *start < 0 || *length <= 0 || *start + *length > cols)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)(shape.GetShapeSize() / cols);
	if (rows == 0)
		return ge::GRAPH_FAILED;
	uint32_t rowsPerCore = (rows + coreNum - 1) / coreNum;

	NarrowTilingData tiling;
	tiling.set_rowNum(rows);
	tiling.set_cols((uint32_t)cols);
	tiling.set_start((uint32_t)*start);
	tiling.set_length((uint32_t)*length);
	tiling.set_lengthAligned((uint32_t)(*length + FLOATS_PER_BLOCK - 1) / FLOATS_PER_BLOCK * FLOATS_PER_BLOCK);
	tiling.set_rowsPerCore(rowsPerCore);
	tiling.set_tileRows(TILE_ROWS);
	context->SetBlockDim((rows + rowsPerCore - 1) / rowsPerCore);
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
	const gert::Shape *x = context->GetInputShape(0);
	const int64_t *length = context->GetAttrs()->GetInt(1);
	gert::Shape *y = context->GetOutputShape(0);
	size_t dims = x->GetDimNum();
	if (dims == 0 || length == nullptr)
		return GRAPH_FAILED;
	*y = *x;
	y->SetDim(dims - 1, *length);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class Narrow : public OpDef {
public:
	explicit Narrow(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Attr("start").AttrType(REQUIRED).Int();
		this->Attr("length").AttrType(REQUIRED).Int();
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(Narrow);
} // namespace ops
