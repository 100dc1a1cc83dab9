// SPDX-License-Identifier: MIT
//
// Host side of libmath_pointer_half: APIs on half handed to the kernel as
// template arguments of function-pointer type, row k of y[33, ...] being
// API k of x (in [-0.9, 0.9]) or p (in [0.25, 4]).  No API gets a
// sharedTmpBuffer: the tile leaves the UB the one needing the most (Erfc
// on half) takes for itself, from GetErfcTmpBufferFactorSize.
#include "libmath_pointer_half_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
static constexpr uint32_t ROWS = 33;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;
	uint32_t live = 0, extra = 0;
	AscendC::GetErfcTmpBufferFactorSize(2, live, extra);
	/* x, p and y double-buffered, q once, and what Erfc takes */
	const uint64_t bytesPerElement = 3 * 2 * 2 + 2 + live * 2;
	uint64_t tileLength = (ubSize - extra) / bytesPerElement / 128 * 128;
	if (tileLength > 4096)
		tileLength = 4096;
	uint64_t blockLength = (total + coreNum - 1) / coreNum;
	blockLength = (blockLength + 127) / 128 * 128;
	uint64_t blockDim = (total + blockLength - 1) / blockLength;
	LibmathPointerHalfTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength((uint32_t)tileLength);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->SetBlockDim((uint32_t)blockDim);
	context->SetTilingKey(0);
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
	y->SetDimNum(0);
	y->AppendDim(optiling::ROWS);
	for (size_t i = 0; i < x->GetDimNum(); i++)
		y->AppendDim(x->GetDim(i));
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, ge::DT_FLOAT16);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class LibmathPointerHalf : public OpDef {
public:
	explicit LibmathPointerHalf(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("p")
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
OP_ADD(LibmathPointerHalf);
} // namespace ops
