// SPDX-License-Identifier: MIT
//
// Host side of sum_squares, the snrm2-style reduction y = sum(x[i]^2) over a
// whole float tensor.  Each core sums the squares of its chunk, publishes
// the partial in the user workspace (32 bytes per core) and, after a
// SyncAll, core 0 adds the partials up.  As in the add_custom sample, the
// tile length follows from TILE_NUM: ceil(blockLength / TILE_NUM), rounded
// up to ALIGN_ELEMS and never below it.  There is no BUFFER_NUM: the kernel
// dequeues each tile right after enqueuing it and reads every tile's
// ReduceSum result on the scalar unit, so a second buffer has nothing to
// overlap (it gives exactly the same time).
#include "sum_squares_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// each core's chunk is cut into TILE_NUM tiles
const uint32_t TILE_NUM = 171;
// tiles are whole 64-float repeats (256 bytes), as the vector unit works
const uint32_t ALIGN_ELEMS = 64;

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
	uint64_t tileLength = (blockLength + TILE_NUM - 1) / TILE_NUM;
	tileLength = (tileLength + ALIGN_ELEMS - 1) / ALIGN_ELEMS * ALIGN_ELEMS;
	if (tileLength < ALIGN_ELEMS)
		tileLength = ALIGN_ELEMS;
	tiling.set_tileLength((uint32_t)tileLength);
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
