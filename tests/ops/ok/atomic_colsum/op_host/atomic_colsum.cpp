// SPDX-License-Identifier: MIT
//
// Host side of atomic_colsum: column sums of a [rows, cols] float matrix,
// each core accumulating its rows and adding them into the output with
// atomic accumulation.  cols must be a multiple of 8 (whole 32-byte blocks).
#include "atomic_colsum_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(1) % 8 != 0 || shape.GetDim(1) > 8192 || shape.GetDim(0) == 0)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0), cols = (uint32_t)shape.GetDim(1);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t perCore = (rows + coreNum - 1) / coreNum;
	AtomicColsumTilingData tiling;
	tiling.set_rows(rows);
	tiling.set_cols(cols);
	tiling.set_rowsPerCore(perCore);
	context->SetBlockDim((rows + perCore - 1) / perCore);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = gert::Shape({context->GetInputShape(0)->GetDim(1)});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class AtomicColsum : public OpDef {
public:
	explicit AtomicColsum(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(AtomicColsum);
} // namespace ops
