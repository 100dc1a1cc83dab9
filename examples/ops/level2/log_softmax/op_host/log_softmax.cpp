// SPDX-License-Identifier: MIT
//
// Host side of log_softmax over the last axis of a half matrix:
// y = x - max - ln(sum(exp(x - max))), computed in float.  Every core gets
// ceil(rows / cores) rows (the last core the remainder), one row per step.
#include "log_softmax_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	if (dims < 1)
		return ge::GRAPH_FAILED;
	uint64_t cols = (uint64_t)shape.GetDim(dims - 1);
	uint64_t rows = cols ? (uint64_t)shape.GetShapeSize() / cols : 0;
	if (rows == 0 || cols == 0)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t colsAligned = (cols + 15) / 16 * 16;
	/* half in and out, two float rows, the work area */
	if (colsAligned * (2 + 2 + 4 + 4) + colsAligned / 8 * 4 + 1024 > ubSize)
		return ge::GRAPH_FAILED;

	uint64_t rowsPerCore = (rows + coreNum - 1) / coreNum;
	uint32_t blockDim = (uint32_t)((rows + rowsPerCore - 1) / rowsPerCore);
	LogSoftmaxTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_rowsPerCore((uint32_t)rowsPerCore);
	tiling.set_tailCoreRows((uint32_t)(rows - rowsPerCore * (blockDim - 1)));
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
class LogSoftmax : public OpDef {
public:
	explicit LogSoftmax(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(LogSoftmax);
} // namespace ops
