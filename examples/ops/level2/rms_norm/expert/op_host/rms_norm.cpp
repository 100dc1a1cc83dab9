// SPDX-License-Identifier: MIT
//
// Host side of the hand-tuned rms_norm.  Rows are balanced over all vector
// cores (remainder on the first cores), whose vector units are nearly as
// busy as the copies, and each tile holds as many whole rows as fit in the
// UB next to gamma, with input and output double-buffered.
#include "rms_norm_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 2;
const uint64_t RESERVED_UB_BYTES = 1024;

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
	uint64_t coreNum = platform.GetCoreNumAiv();

	uint64_t colsAligned = (cols + 7) / 8 * 8;
	uint64_t workStride = ((colsAligned + 63) / 64 + 7) / 8 * 8;
	uint64_t fixedBytes = RESERVED_UB_BYTES + workStride * 4 + 2 * colsAligned * 4; /* work, gamma, x^2 */
	uint64_t rowBytes = 2 * BUFFER_NUM * colsAligned * 4;                          /* x and y tiles */
	if (ubSize < fixedBytes + rowBytes)
		return ge::GRAPH_FAILED;
	uint64_t tileRows = (ubSize - fixedBytes) / rowBytes;
	if (tileRows > 4095)
		tileRows = 4095;

	uint64_t blockDim = rows < coreNum ? rows : coreNum;
	uint64_t smallRows = rows / blockDim;
	if (tileRows > smallRows + 1)
		tileRows = smallRows + 1;

	RmsNormTilingData *t = context->GetTilingData<RmsNormTilingData>();
	t->cols = (uint32_t)cols;
	t->colsAligned = (uint32_t)colsAligned;
	t->smallCoreRows = (uint32_t)smallRows;
	t->bigCoreNum = (uint32_t)(rows % blockDim);
	t->tileRows = (uint32_t)tileRows;
	t->workStride = (uint32_t)workStride;
	t->invCols = 1.0f / (float)cols;
	t->epsilon = *epsilon;
	context->SetBlockDim((uint32_t)blockDim);
	context->SetTilingKey(cols % 8 == 0 ? 1 : 0);
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
