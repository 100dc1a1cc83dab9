// SPDX-License-Identifier: MIT
//
// Host side of scalar_loop: z = x + y in half, one element at a time with LocalTensor GetValue/SetValue.
// The tiling gives each core a contiguous chunk (a multiple of 128 elements)
// and cuts it into UB tiles sized for 3 double-buffered tensors.
#include "scalar_loop_tiling.h"
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
	const uint64_t bytesPerElement = 12; /* all queues x 2 buffers, plus temporaries */
	uint64_t tileLength = ubSize / bytesPerElement / 128 * 128;
	if (tileLength > 8192)
		tileLength = 8192;
	uint64_t blockLength = (total + coreNum - 1) / coreNum;
	blockLength = (blockLength + 127) / 128 * 128;
	uint64_t blockDim = (total + blockLength - 1) / blockLength;
	optiling::ScalarLoopTilingData tiling;
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
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, ge::DT_FLOAT16);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ScalarLoop : public OpDef {
public:
	explicit ScalarLoop(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("z")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ScalarLoop);
} // namespace ops
