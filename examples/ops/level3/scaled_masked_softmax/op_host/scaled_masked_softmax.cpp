// SPDX-License-Identifier: MIT
//
// Host side of scaled_masked_softmax: y = softmax(mask ? -10000 : x * scale)
// over the last axis, as in the fused attention softmax of Megatron-style
// training.  x is [batch, heads, sq, sk] (half), the mask [batch or 1, 1,
// sq, sk] (uint8, nonzero = masked out) is broadcast over the heads.  Rows
// go ceil(rows / CORE_NUM) to a core and the remainder to the last core.
#include "scaled_masked_softmax_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 40;       /* cores the operator launches on */
const uint32_t MAX_COLS = 4096;     /* one row must fit the UB */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &x = context->GetInputShape(0)->GetStorageShape();
	const gert::Shape &mask = context->GetInputShape(1)->GetStorageShape();
	const float *scale = context->GetAttrs()->GetFloat(0);
	if (x.GetDimNum() != 4 || mask.GetDimNum() != 4 || scale == nullptr)
		return ge::GRAPH_FAILED;
	uint32_t batch = (uint32_t)x.GetDim(0), heads = (uint32_t)x.GetDim(1);
	uint32_t sq = (uint32_t)x.GetDim(2), sk = (uint32_t)x.GetDim(3);
	uint32_t maskBatch = (uint32_t)mask.GetDim(0);
	if (batch == 0 || heads == 0 || sq == 0 || sk == 0 || sk > MAX_COLS || (maskBatch != 1 && maskBatch != batch) ||
	    mask.GetDim(1) != 1 || mask.GetDim(2) != sq || mask.GetDim(3) != sk)
		return ge::GRAPH_FAILED;

	uint32_t rows = batch * heads * sq;
	uint32_t rowsPerCore = (rows + CORE_NUM - 1) / CORE_NUM;
	uint32_t usedCores = (rows + rowsPerCore - 1) / rowsPerCore;
	ScaledMaskedSoftmaxTilingData tiling;
	tiling.set_rowNum(rows);
	tiling.set_colNum(sk);
	tiling.set_colAligned((sk + 63) / 64 * 64);
	tiling.set_headNum(heads);
	tiling.set_seqNum(sq);
	tiling.set_maskBatch(maskBatch);
	tiling.set_rowsPerCore(rowsPerCore);
	tiling.set_lastCoreRows(rows - rowsPerCore * (usedCores - 1));
	tiling.set_scale(*scale);
	context->SetBlockDim(usedCores);
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
class ScaledMaskedSoftmax : public OpDef {
public:
	explicit ScaledMaskedSoftmax(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("mask")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_UINT8})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Attr("scale").AttrType(OPTIONAL).Float(1.0f);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ScaledMaskedSoftmax);
} // namespace ops
