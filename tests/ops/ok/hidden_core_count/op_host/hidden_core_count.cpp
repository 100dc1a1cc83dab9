// SPDX-License-Identifier: MIT
//
// Host side of HiddenCoreCount: softplus three times, float32.  It
// launches a core count written into the tiling function as a local,
// aivNum = 40, the vector cores of a smaller part, and never asks the
// platform how many it has.  Each core takes a share of whole 512-byte
// chunks, the bursts global memory is read in fastest.
#include "hidden_core_count_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 4096;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t totalLength = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	if (totalLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t aivNum = 40;
	uint32_t chunks = (totalLength * sizeof(float) + 511) / 512;
	if (aivNum > chunks)
		aivNum = chunks;
	uint32_t shareLength = (chunks + aivNum - 1) / aivNum * 512 / sizeof(float);
	uint32_t usedCores = (totalLength + shareLength - 1) / shareLength;

	HiddenCoreCountTilingData tiling;
	tiling.set_totalLength(totalLength);
	tiling.set_shareLength(shareLength);
	tiling.set_tileLength(TILE_LENGTH);
	context->SetBlockDim(usedCores);
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
class HiddenCoreCount : public OpDef {
public:
	explicit HiddenCoreCount(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(HiddenCoreCount);
} // namespace ops
