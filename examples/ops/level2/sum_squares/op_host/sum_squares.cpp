// SPDX-License-Identifier: MIT
//
// Host side of sum_squares, the snrm2-style reduction y = sum(x[i]^2) over a
// whole float tensor.  Each core sums the squares of its chunk, publishes
// the partial in the user workspace (32 bytes per core) and, after a
// SyncAll, core 0 adds the partials up.
#include "sum_squares_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t TILE_LENGTH = 2048;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total > 0xffffffffULL)
		return ge::GRAPH_FAILED;
	uint64_t blockLength = ((total + coreNum - 1) / coreNum + 7) / 8 * 8;
	uint32_t blockDim = (uint32_t)((total + blockLength - 1) / blockLength);
	SumSquaresTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength(TILE_LENGTH);
	context->SetBlockDim(blockDim);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	size_t *ws = context->GetWorkspaceSizes(1);
	ws[0] = platform.GetLibApiWorkSpaceSize() + (size_t)blockDim * 32;
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
