// SPDX-License-Identifier: MIT
//
// Host side of layer_norm over the last axis:
// y = (x - mean) / sqrt(var + epsilon) * gamma + beta, with the biased
// variance, for a [rows, cols] float matrix and [cols] gamma and beta.
// Every core gets ceil(rows / cores) rows (the last core the remainder) and
// the kernel normalises one row per step.
#include "layer_norm_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 1;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint64_t cols = (uint64_t)shape.GetDim(dims - 1);
	uint64_t rows = cols ? (uint64_t)shape.GetShapeSize() / cols : 0;
	if (rows == 0 || cols == 0 || context->GetInputShape(1)->GetStorageShape().GetShapeSize() != (int64_t)cols ||
	    context->GetInputShape(2)->GetStorageShape().GetShapeSize() != (int64_t)cols)
		return ge::GRAPH_FAILED;
	const float *epsilon = context->GetAttrs()->GetFloat(0);
	if (epsilon == nullptr)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t colsAligned = (cols + 7) / 8 * 8;
	/* x and y per buffer, gamma, beta, two scratch rows, the work area */
	if ((2 * BUFFER_NUM + 4) * colsAligned * 4 + colsAligned / 8 * 4 + 1024 > ubSize)
		return ge::GRAPH_FAILED;

	uint64_t rowsPerCore = (rows + coreNum - 1) / coreNum;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	LayerNormTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_rowsPerCore((uint32_t)rowsPerCore);
	tiling.set_tailCoreRows((uint32_t)(rows - rowsPerCore * (blockDim - 1)));
	tiling.set_bufferNum(BUFFER_NUM);
	tiling.set_invCols(1.0f / (float)cols);
	tiling.set_epsilon(*epsilon);
	context->SetBlockDim(blockDim);
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
class LayerNorm : public OpDef {
public:
	explicit LayerNorm(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("beta").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(LayerNorm);
} // namespace ops
