// SPDX-License-Identifier: MIT
//
// Host side of datacopy_pad_2d: z = 3x over a [rows, cols] half matrix whose
// rows are not whole 32-byte blocks, and t = the first 16 columns of z.
#include "datacopy_pad_2d_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(1) < 16 || shape.GetDim(1) > 512 || shape.GetDim(0) == 0)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0), cols = (uint32_t)shape.GetDim(1);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	DataCopyPad2dTilingData tiling;
	uint32_t perCore = (rows + coreNum - 1) / coreNum;
	tiling.set_rows(rows);
	tiling.set_cols(cols);
	tiling.set_rowsPerCore(perCore);
	tiling.set_tileRows(32);
	tiling.set_pitch((cols * 2 + 31) / 32 * 16);
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
	const gert::Shape *x = context->GetInputShape(0);
	*context->GetOutputShape(0) = *x;
	*context->GetOutputShape(1) = gert::Shape({x->GetDim(0), 16});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class DataCopyPad2d : public OpDef {
public:
	explicit DataCopyPad2d(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("t").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(DataCopyPad2d);
} // namespace ops
