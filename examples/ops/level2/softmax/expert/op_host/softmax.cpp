// SPDX-License-Identifier: MIT
//
// Host side of the hand-tuned softmax over the last axis.  Rows are
// balanced over all vector cores (Exp and two reductions per row make the
// vector unit nearly as busy as the copies), and each
// tile holds as many whole rows as fit in the UB with the input and the
// output both double-buffered.
#include "softmax_tiling.h"
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
	if (rows == 0 || cols == 0)
		return ge::GRAPH_FAILED;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t coreNum = platform.GetCoreNumAiv();

	uint64_t colsAligned = (cols + 7) / 8 * 8;
	uint64_t workStride = ((colsAligned + 63) / 64 + 7) / 8 * 8;
	/* UB shared by the work area and 2 x BUFFER_NUM row buffers (in and out) */
	uint64_t rowBytes = 2 * BUFFER_NUM * colsAligned * 4;
	if (ubSize < RESERVED_UB_BYTES + workStride * 4 + rowBytes)
		return ge::GRAPH_FAILED;
	uint64_t tileRows = (ubSize - RESERVED_UB_BYTES - workStride * 4) / rowBytes;
	if (tileRows > 4095)
		tileRows = 4095;

	uint64_t blockDim = rows < coreNum ? rows : coreNum;
	uint64_t smallRows = rows / blockDim;
	if (tileRows > smallRows + 1)
		tileRows = smallRows + 1;

	SoftmaxTilingData tiling;
	tiling.set_cols((uint32_t)cols);
	tiling.set_colsAligned((uint32_t)colsAligned);
	tiling.set_smallCoreRows((uint32_t)smallRows);
	tiling.set_bigCoreNum((uint32_t)(rows % blockDim));
	tiling.set_tileRows((uint32_t)tileRows);
	tiling.set_workStride((uint32_t)workStride);
	context->SetBlockDim((uint32_t)blockDim);
	context->SetTilingKey(cols % 8 == 0 ? 1 : 0);
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
class Softmax : public OpDef {
public:
	explicit Softmax(const char *name) : OpDef(name)
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
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(Softmax);
} // namespace ops
