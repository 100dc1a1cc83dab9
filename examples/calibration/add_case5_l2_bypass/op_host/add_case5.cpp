// SPDX-License-Identifier: MIT
//
// Host side of add_case5, case 5: case 4 with the streamed-once tensors bypassing L2.  z = x + y on half [R, C] tensors, C a
// multiple of 16 (one 32-byte block).
#include "add_case5_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t TILE_LEN = 14336;  /* halves per copy */
const uint32_t BUFFER_NUM = 2;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	TilingData tiling;
	auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	if ((uint64_t)TILE_LEN * 2 * 3 * BUFFER_NUM + 256 > ubSize)
		return ge::GRAPH_FAILED;
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2)
		return ge::GRAPH_FAILED;
	uint64_t rows = shape.GetDim(0), cols = shape.GetDim(1);
	if (rows == 0 || cols == 0 || cols % 16 != 0)
		return ge::GRAPH_FAILED;
	uint64_t coreNum = ascendcPlatform.GetCoreNumAiv();
	if (coreNum > rows)
		coreNum = rows;
	tiling.set_rowsPerCore((uint32_t)(rows / coreNum));
	tiling.set_remRows((uint32_t)(rows % coreNum));
	tiling.set_cols((uint32_t)cols);
	tiling.set_tileLen(TILE_LEN);
	context->SetBlockDim((uint32_t)coreNum);
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
} // namespace ge

namespace ops {
class AddCase5 : public OpDef {
public:
	explicit AddCase5(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(AddCase5);
} // namespace ops
