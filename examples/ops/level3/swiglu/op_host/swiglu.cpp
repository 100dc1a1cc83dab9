// SPDX-License-Identifier: MIT
//
// Host side of swiglu: y = silu(a) * b where x = [a, b] is split in two
// along its last axis (attribute dim, only -1 is supported).  The tiling
// gives every core ceil(rows / CORE_NUM) rows, leaves the remainder to the
// last core, and walks each row in chunks of TILE_COLS elements.
#include "swiglu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 40;    /* cores the operator launches on */
const uint32_t TILE_COLS = 2048; /* elements of a, b and y per chunk */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	const int64_t *dim = context->GetAttrs()->GetInt(0);
	if (dims == 0 || (dim != nullptr && *dim != -1 && *dim != (int64_t)dims - 1))
		return ge::GRAPH_FAILED;
	int64_t last = shape.GetDim(dims - 1);
	if (last <= 0 || last % 2 != 0)
		return ge::GRAPH_FAILED;
	uint64_t rows = (uint64_t)shape.GetShapeSize() / (uint64_t)last;
	uint32_t cols = (uint32_t)(last / 2);

	uint32_t rowsPerCore = (uint32_t)((rows + CORE_NUM - 1) / CORE_NUM);
	uint32_t usedCores = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	uint32_t lastCoreRows = (uint32_t)(rows - (uint64_t)rowsPerCore * (usedCores - 1));

	SwiGluTilingData tiling;
	tiling.set_rowNum((uint32_t)rows);
	tiling.set_colNum(cols);
	tiling.set_rowsPerCore(rowsPerCore);
	tiling.set_lastCoreRows(lastCoreRows);
	tiling.set_tileCols(TILE_COLS);
	context->SetBlockDim(usedCores);
	context->SetTilingKey(1);
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
	gert::Shape *y = context->GetOutputShape(0);
	*y = *x;
	size_t dims = x->GetDimNum();
	y->SetDim(dims - 1, x->GetDim(dims - 1) / 2);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SwiGlu : public OpDef {
public:
	explicit SwiGlu(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Attr("dim").AttrType(OPTIONAL).Int(-1);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SwiGlu);
} // namespace ops
