// SPDX-License-Identifier: MIT
//
// Host side of sigmoid_tanh: s = Sigmoid(x) and t = Tanh(x) on float.
// The tiling gives each core a contiguous chunk (a multiple of 128 elements)
// and cuts it into UB tiles sized for 3 double-buffered tensors.
#include "../op_kernel/sigmoid_tanh_tiling_data.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint64_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;
	const uint64_t bytesPerElement = 28; /* 3 queues x 2 buffers x 4 bytes, and 4 for Sigmoid's temporaries */
	uint64_t tileLength = ubSize / bytesPerElement / 128 * 128;
	if (tileLength > 8192)
		tileLength = 8192;
	uint64_t blockLength = (total + coreNum - 1) / coreNum;
	blockLength = (blockLength + 127) / 128 * 128;
	uint64_t blockDim = (total + blockLength - 1) / blockLength;
	SigmoidTanhTilingData *tiling = context->GetTilingData<SigmoidTanhTilingData>();
	if (tiling == nullptr)
		return ge::GRAPH_FAILED;
	tiling->totalLength = (uint32_t)total;
	tiling->blockLength = (uint32_t)blockLength;
	tiling->tileLength = (uint32_t)tileLength;
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
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	*context->GetOutputShape(1) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, ge::DT_FLOAT);
	context->SetOutputDataType(1, ge::DT_FLOAT);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SigmoidTanh : public OpDef {
public:
	explicit SigmoidTanh(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("s")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("t")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SigmoidTanh);
} // namespace ops
