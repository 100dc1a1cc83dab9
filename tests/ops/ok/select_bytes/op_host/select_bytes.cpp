// SPDX-License-Identifier: MIT
//
// Host side of select_bytes: seven [rows, 256] half results of the compare
// and select forms real kernels use (see the kernel), from half x and y and
// a uint8 byte mask c.
#include "select_bytes_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(1) != 256 || shape.GetDim(0) == 0)
		return ge::GRAPH_FAILED;
	uint32_t rows = (uint32_t)shape.GetDim(0);
	uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint32_t per = (rows + coreNum - 1) / coreNum;
	SelectBytesTilingData tiling;
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
	*context->GetOutputShape(0) = gert::Shape({context->GetInputShape(0)->GetDim(0), 7, 256});
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SelectBytes : public OpDef {
public:
	explicit SelectBytes(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("c").ParamType(REQUIRED).DataType({ge::DT_UINT8}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SelectBytes);
} // namespace ops
