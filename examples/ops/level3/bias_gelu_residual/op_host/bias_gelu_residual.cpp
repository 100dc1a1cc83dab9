// SPDX-License-Identifier: MIT
//
// Host side of bias_gelu_residual: y = gelu(x + bias) + residual, with the
// tanh form of gelu and bias broadcast along the last axis.  Rows go
// ceil(rows / CORE_NUM) to a core, the remainder to the last core; each row
// is walked in chunks of TILE_COLS elements.
#include "bias_gelu_residual_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 24;    /* one vector core per AI core */
const uint32_t TILE_COLS = 4096; /* halves per chunk: 8 KB */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &xShape = context->GetInputShape(0)->GetStorageShape();
	const gert::Shape &biasShape = context->GetInputShape(1)->GetStorageShape();
	const gert::Shape &resShape = context->GetInputShape(2)->GetStorageShape();
	size_t dims = xShape.GetDimNum();
	if (dims == 0 || resShape.GetShapeSize() != xShape.GetShapeSize())
		return ge::GRAPH_FAILED;
	int64_t cols = xShape.GetDim(dims - 1);
	if (cols <= 0 || biasShape.GetShapeSize() != cols)
		return ge::GRAPH_FAILED;
	uint64_t rows = (uint64_t)xShape.GetShapeSize() / (uint64_t)cols;

	uint32_t rowsPerCore = (uint32_t)((rows + CORE_NUM - 1) / CORE_NUM);
	uint32_t usedCores = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	BiasGeluResidualTilingData tiling;
	tiling.set_rowNum((uint32_t)rows);
	tiling.set_colNum((uint32_t)cols);
	tiling.set_rowsPerCore(rowsPerCore);
	tiling.set_lastCoreRows((uint32_t)(rows - (uint64_t)rowsPerCore * (usedCores - 1)));
	tiling.set_tileCols(TILE_COLS);
	context->SetBlockDim(usedCores);
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
class BiasGeluResidual : public OpDef {
public:
	explicit BiasGeluResidual(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("bias")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("residual")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(BiasGeluResidual);
} // namespace ops
