// SPDX-License-Identifier: MIT
//
// Host side of isamax, the BLAS-style index search: y = the (0-based) index
// of the first element of x with the largest absolute value.  Each core
// searches its chunk and publishes (value, index) in the user workspace;
// after a SyncAll core 0 picks the winner.
#include "isamax_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t TILE_LENGTH = 1024;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (total == 0 || total > 0x7fffffffULL)
		return ge::GRAPH_FAILED;
	uint64_t blockLength = ((total + coreNum - 1) / coreNum + 7) / 8 * 8;
	uint32_t blockDim = (uint32_t)((total + blockLength - 1) / blockLength);
	IsamaxTilingData tiling;
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
	context->SetOutputDataType(0, ge::DT_INT32);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class Isamax : public OpDef {
public:
	explicit Isamax(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(Isamax);
} // namespace ops
