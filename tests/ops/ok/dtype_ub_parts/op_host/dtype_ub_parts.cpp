// SPDX-License-Identifier: MIT
//
// Host side of DtypeUbParts: y = 2x + 1 in float16, float32 or int32.  The
// tiling cuts the UB into UB_PART_NUM equal parts of one tile each.  x and
// y, double-buffered, take four; the int32 path computes in float and takes
// a fifth for its float copy of the tile.  float16 and float32 fit in four
// parts, which are faster for them (larger tiles, and no short last tile on
// the bench case), and overflow the UB of int32 alone: the constant's safe
// value is set by a dtype the manifest's cases never run (issue #26).
#include "dtype_ub_parts_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// UB parts of one tile each (more only shrink the tiles), and cores to use at most
constexpr uint32_t UB_PART_NUM = 5; // @tune 2..5 step
constexpr uint32_t CORE_NUM = 8;    // @tune 8..64 pow2
constexpr uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	if (coreNum > CORE_NUM)
		coreNum = CORE_NUM;
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (totalLength == 0 || coreNum == 0 || typeLength == 0 || totalLength * typeLength % BLOCK_BYTES)
		return ge::GRAPH_FAILED;

	uint32_t alignElems = BLOCK_BYTES / typeLength;
	uint32_t blocks = totalLength / alignElems;
	if (coreNum > blocks)
		coreNum = blocks;
	uint32_t blockLength = (blocks + coreNum - 1) / coreNum * alignElems;
	uint32_t blockDim = (totalLength + blockLength - 1) / blockLength;
	uint32_t tileLength = (uint32_t)(ubSize / UB_PART_NUM / typeLength) / alignElems * alignElems;

	DtypeUbPartsTilingData *tiling = context->GetTilingData<DtypeUbPartsTilingData>();
	if (tiling == nullptr)
		return ge::GRAPH_FAILED;
	tiling->totalLength = totalLength;
	tiling->blockLength = blockLength;
	tiling->tileLength = tileLength;
	context->SetBlockDim(blockDim);
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
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class DtypeUbParts : public OpDef {
public:
	explicit DtypeUbParts(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_INT32})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(DtypeUbParts);
} // namespace ops
