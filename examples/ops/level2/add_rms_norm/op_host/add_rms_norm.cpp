// SPDX-License-Identifier: MIT
//
// Host side of add_rms_norm: x = x1 + x2 (the residual add, kept as a
// second output) and y = x / sqrt(mean(x^2) + epsilon) * gamma over the last
// axis, half in and out with float arithmetic inside.  Rows go to a fixed
// number of cores in equal chunks, the last core taking the remainder.
#include "add_rms_norm_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 24;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint64_t cols = (uint64_t)shape.GetDim(dims - 1);
	uint64_t rows = cols ? (uint64_t)shape.GetShapeSize() / cols : 0;
	if (rows == 0 || cols == 0 || context->GetInputShape(2)->GetStorageShape().GetShapeSize() != (int64_t)cols)
		return ge::GRAPH_FAILED;
	const float *epsilon = context->GetAttrs()->GetFloat(0);
	if (epsilon == nullptr)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t colsAligned = (cols + 15) / 16 * 16;
	/* x1, x2, x and y in half, gamma and two rows in float, the work area */
	if (colsAligned * (4 * 2 + 3 * 4) + colsAligned / 8 * 4 + 1024 > ubSize)
		return ge::GRAPH_FAILED;

	uint64_t rowsPerCore = (rows + CORE_NUM - 1) / CORE_NUM;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	AddRmsNormTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_rowsPerCore((uint32_t)rowsPerCore);
	tiling.set_tailCoreRows((uint32_t)(rows - rowsPerCore * (blockDim - 1)));
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
	*context->GetOutputShape(1) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	context->SetOutputDataType(1, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AddRmsNorm : public OpDef {
public:
	explicit AddRmsNorm(const char *name) : OpDef(name)
	{
		this->Input("x1").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("x2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6f);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(AddRmsNorm);
} // namespace ops
