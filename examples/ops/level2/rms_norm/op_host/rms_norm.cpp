// SPDX-License-Identifier: MIT
//
// Host side of rms_norm: y = x / sqrt(mean(x^2 over the last axis) + epsilon)
// * gamma for a [rows, cols] float matrix.  Rows go to a fixed number of
// cores in equal chunks, the last core taking the remainder; the tiling is
// written through GetTilingData<T>().
#include "rms_norm_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 40;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint64_t cols = (uint64_t)shape.GetDim(dims - 1);
	uint64_t rows = cols ? (uint64_t)shape.GetShapeSize() / cols : 0;
	if (rows == 0 || cols == 0 || context->GetInputShape(1)->GetStorageShape().GetShapeSize() != (int64_t)cols)
		return ge::GRAPH_FAILED;
	const float *epsilon = context->GetAttrs()->GetFloat(0);
	if (epsilon == nullptr)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t colsAligned = (cols + 7) / 8 * 8;
	/* x, y, gamma, a temporary and the ReduceSum work area */
	if (4 * colsAligned * sizeof(float) + colsAligned / 8 * sizeof(float) + 1024 > ubSize)
		return ge::GRAPH_FAILED;

	uint64_t rowsPerCore = (rows + CORE_NUM - 1) / CORE_NUM;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	RmsNormTilingData *t = context->GetTilingData<RmsNormTilingData>();
	t->cols = (uint32_t)cols;
	t->colsAligned = (uint32_t)colsAligned;
	t->rowsPerCore = (uint32_t)rowsPerCore;
	t->tailCoreRows = (uint32_t)(rows - rowsPerCore * (blockDim - 1));
	t->invCols = 1.0f / (float)cols;
	t->epsilon = *epsilon;
	context->SetBlockDim(blockDim);
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
class RmsNorm : public OpDef {
public:
	explicit RmsNorm(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6f);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(RmsNorm);
} // namespace ops
