// SPDX-License-Identifier: MIT
//
// Host side of ReluCustom: y = max(x, 0), float32 or float16.
// The operator was written for a fixed launch of BLOCK_DIM cores; each core
// takes an equal, 32-byte-rounded share and walks it in TILE_NUM tiles, as in
// the tutorial sample, so the tile length follows from both constants: more
// cores without fewer tiles means smaller tiles.
#include "relu_custom_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t TILE_NUM = 256; /* tiles per core: 8192 elements each on 4096x4096 */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (totalLength == 0 || typeLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t alignElems = 32 / typeLength;
	uint32_t blockLength = (totalLength + BLOCK_DIM - 1) / BLOCK_DIM;
	blockLength = (blockLength + alignElems - 1) / alignElems * alignElems;
	uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
	uint32_t tileLength = (blockLength + TILE_NUM - 1) / TILE_NUM;
	tileLength = (tileLength + alignElems - 1) / alignElems * alignElems;

	ReluCustomTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_blockLength(blockLength);
	tiling.set_tileLength(tileLength);
	context->SetBlockDim(blockDim);
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
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ReluCustom : public OpDef {
public:
	explicit ReluCustom(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReluCustom);
} // namespace ops
