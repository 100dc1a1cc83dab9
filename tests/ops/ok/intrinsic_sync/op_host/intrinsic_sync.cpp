// SPDX-License-Identifier: MIT
//
// Host side of intrinsic_sync: z = 2x + 1 row by row over a [rows, cols]
// float matrix, and f = the first element of each output row.  The kernel
// orders its pipes with the set_flag/wait_flag intrinsics (auto sync off).
#include "intrinsic_sync_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(0) == 0 || shape.GetDim(1) == 0 || shape.GetDim(1) > 8192)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t per = (rows + coreNum - 1) / coreNum;
	IntrinsicSyncTilingData tiling;
	tiling.set_rows(rows);
	tiling.set_cols((uint32_t)shape.GetDim(1));
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
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	*context->GetOutputShape(1) = gert::Shape({context->GetInputShape(0)->GetDim(0)});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class IntrinsicSync : public OpDef {
public:
	explicit IntrinsicSync(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("f").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(IntrinsicSync);
} // namespace ops
