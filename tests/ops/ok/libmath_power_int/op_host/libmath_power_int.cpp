// SPDX-License-Identifier: MIT
//
// Host side of libmath_power_int: Power on int32_t, y[3, ...] = x ^ e,
// x ^ 3 and 2 ^ e, each with a sharedTmpBuffer of its minValue from
// GetPowerMaxMinTmpSize (tensor ^ tensor needs less than tensor ^ scalar).
#include "libmath_power_int_tiling.h"
#include "graph/tensor.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

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
	ge::Shape tensor(std::vector<int64_t>{(int64_t)total}), scalar(std::vector<int64_t>{1});
	uint32_t maxTT = 0, minTT = 0, maxTS = 0, minTS = 0;
	AscendC::GetPowerMaxMinTmpSize(tensor, tensor, true, sizeof(int32_t), false, maxTT, minTT);
	AscendC::GetPowerMaxMinTmpSize(tensor, scalar, true, sizeof(int32_t), false, maxTS, minTS);
	if (minTT == 0 || minTS <= minTT)
		return ge::GRAPH_FAILED;
	/* x, e and y double-buffered */
	uint64_t tileLength = (ubSize - minTS) / (3 * 2 * sizeof(int32_t)) / 64 * 64;
	if (tileLength > 2048)
		tileLength = 2048;
	uint64_t blockLength = (total + coreNum - 1) / coreNum;
	blockLength = (blockLength + 63) / 64 * 64;
	uint64_t blockDim = (total + blockLength - 1) / blockLength;
	LibmathPowerIntTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength((uint32_t)tileLength);
	tiling.set_tensorTmpBytes(minTT);
	tiling.set_scalarTmpBytes(minTS);
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
	y->AppendDim(3);
	for (size_t i = 0; i < x->GetDimNum(); i++)
		y->AppendDim(x->GetDim(i));
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, ge::DT_INT32);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class LibmathPowerInt : public OpDef {
public:
	explicit LibmathPowerInt(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_INT32})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("e")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_INT32})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_INT32})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(LibmathPowerInt);
} // namespace ops
