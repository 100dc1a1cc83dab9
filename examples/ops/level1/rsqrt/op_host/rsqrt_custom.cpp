// SPDX-License-Identifier: MIT
//
// Host side of RsqrtCustom: y = 1 / sqrt(x) for positive float16 x
// (computed in float32 inside the kernel).  The launch is fixed at
// BLOCK_DIM cores (one per AI core of a 910B2); each takes an equal,
// 32-byte-rounded share, walked in tiles of TILE_LENGTH elements.
#include "rsqrt_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_DIM = 24;
constexpr uint32_t TILE_LENGTH = 2048;
constexpr uint32_t ALIGN_ELEMS = 16;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t blockLength = (totalLength + BLOCK_DIM - 1) / BLOCK_DIM;
	blockLength = (blockLength + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;

	RsqrtCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_blockLength(blockLength);
	tiling.set_tileLength(TILE_LENGTH);
	context->SetBlockDim((totalLength + blockLength - 1) / blockLength);
	context->SetTilingKey(0);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
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
class RsqrtCustom : public OpDef {
public:
	explicit RsqrtCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
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
OP_ADD(RsqrtCustom);
} // namespace ops
