// SPDX-License-Identifier: MIT
//
// Host side of reduce_registers: per row of 320 floats, 24 results of the
// reductions and the registers they leave (see the kernel).
#include "reduce_registers_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(1) != 320 || shape.GetDim(0) == 0)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t per = (rows + coreNum - 1) / coreNum;
	ReduceRegistersTilingData tiling;
	tiling.set_rows(rows);
	tiling.set_rowsPerCore(per);
	context->SetBlockDim((rows + per - 1) / per);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = gert::Shape({context->GetInputShape(0)->GetDim(0), 24});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ReduceRegisters : public OpDef {
public:
	explicit ReduceRegisters(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("o").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ReduceRegisters);
} // namespace ops
