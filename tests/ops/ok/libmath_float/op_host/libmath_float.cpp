// SPDX-License-Identifier: MIT
//
// Host side of libmath_float: every library math API on float, row k of the
// output y[26, ...] being API k of x (in [-0.95, 0.95]) or of p (in
// [0.1, 8]); see the kernel for the list.  The sharedTmpBuffer is the
// largest minValue of the APIs given one, so that they work in many
// passes; the UB left after the buffers holds the whole temp space of the
// APIs that take their own (Erfc needs the most), sized from
// GetErfcTmpBufferFactorSize as a real tiling would.
#include "libmath_float_tiling.h"
#include "graph/tensor.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
static constexpr uint32_t ROWS = 26;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;

	/* the sharedTmpBuffer: enough for each API that gets one, and no more */
	std::vector<int64_t> dims = {(int64_t)total};
	ge::Shape shape(dims), one(std::vector<int64_t>{1});
	uint32_t maxValue = 0, minValue = 0, tmpBytes = 0;
	AscendC::GetCosMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetTanMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetAtanMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetCoshMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetErfMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetCeilMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetLog2MaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetPowerMaxMinTmpSize(shape, shape, false, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetSigmoidMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetExpMaxMinTmpSize(shape, sizeof(float), false, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	AscendC::GetSinMaxMinTmpSize(shape, sizeof(float), true, maxValue, minValue);
	tmpBytes = std::max(tmpBytes, minValue);
	tmpBytes = (tmpBytes + 31) / 32 * 32;

	/* the temp space of the APIs that take their own: Erfc's is the largest,
	 * plus Power's extra bytes */
	uint32_t live = 0, extra = 0, powLive = 0, powExtra = 0;
	AscendC::GetErfcTmpBufferFactorSize(sizeof(float), live, extra);
	AscendC::GetPowerTmpBufferFactorSize(true, false, false, sizeof(float), powLive, powExtra);
	live = std::max(live, powLive);
	extra = std::max(extra, powExtra);
	/* x, p and y double-buffered, q once, and the reserve */
	const uint64_t bytesPerElement = 3 * 2 * sizeof(float) + sizeof(float) + live * sizeof(float);
	uint64_t tileLength = (ubSize - tmpBytes - extra) / bytesPerElement / 64 * 64;
	if (tileLength > 4096)
		tileLength = 4096;
	uint64_t blockLength = (total + coreNum - 1) / coreNum;
	blockLength = (blockLength + 63) / 64 * 64;
	uint64_t blockDim = (total + blockLength - 1) / blockLength;
	LibmathFloatTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength((uint32_t)tileLength);
	tiling.set_tmpBytes(tmpBytes);
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
	context->SetOutputDataType(0, ge::DT_FLOAT);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class LibmathFloat : public OpDef {
public:
	explicit LibmathFloat(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("p")
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
OP_ADD(LibmathFloat);
} // namespace ops
