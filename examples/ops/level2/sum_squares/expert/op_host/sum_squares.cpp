// SPDX-License-Identifier: MIT
//
// Host side of the hand-tuned sum_squares (snrm2-style y = sum(x[i]^2)).
// The 512-byte chunks of x are balanced over as many cores as it takes to
// saturate HBM (remainder on the first cores); tiles are derived from the
// UB (two input buffers, a square scratch and a vector accumulator).  The
// cores combine their partials with an atomic add into y.
#include "sum_squares_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 2;
const uint64_t CORE_MTE2_BYTES_PER_CYCLE = 34;
const uint64_t RESERVED_UB_BYTES = 2048;
const uint64_t CHUNK_ELEMS = 128; /* 512 bytes: the fastest GM alignment */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0, hbmBw = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	platform.GetCoreMemBw(platform_ascendc::CoreMemType::HBM, hbmBw);
	uint64_t coreNum = platform.GetCoreNumAiv();
	uint64_t streamCores = (hbmBw + CORE_MTE2_BYTES_PER_CYCLE - 1) / CORE_MTE2_BYTES_PER_CYCLE;
	if (streamCores > 0 && coreNum > streamCores)
		coreNum = streamCores;
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total > 0xffffffffULL)
		return ge::GRAPH_FAILED;

	uint64_t blocks = (total + CHUNK_ELEMS - 1) / CHUNK_ELEMS;
	uint64_t blockDim = blocks < coreNum ? blocks : coreNum;
	/* BUFFER_NUM inputs + square scratch + accumulator, plus the ReduceSum work area */
	uint64_t tileLength = (ubSize - RESERVED_UB_BYTES) / (4 * (BUFFER_NUM + 2) + 1) / CHUNK_ELEMS * CHUNK_ELEMS;
	uint64_t perCore = (blocks / blockDim + 1) * CHUNK_ELEMS;
	if (tileLength > perCore)
		tileLength = perCore;

	SumSquaresTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_smallCoreChunks((uint32_t)(blocks / blockDim));
	tiling.set_bigCoreNum((uint32_t)(blocks % blockDim));
	tiling.set_tileLength((uint32_t)tileLength);
	context->SetBlockDim((uint32_t)blockDim);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = gert::Shape({1});
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SumSquares : public OpDef {
public:
	explicit SumSquares(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SumSquares);
} // namespace ops
