// SPDX-License-Identifier: MIT
//
// Host side of rotary_position_embedding, rotate-half form:
//   y = x * cos + rotate_half(x) * sin,  rotate_half([x1, x2]) = [-x2, x1]
// with x [tokens, heads, dim] and the cos and sin tables [tokens, dim]
// computed by the caller.  Tokens go ceil(tokens / CORE_NUM) to a core and
// the remainder to the last core; one token is one tile.
#include "rotary_position_embedding_tiling.h"
#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 40;                 /* cores the operator launches on */
const uint64_t UB_LIMIT_BYTES = 160 * 1024;   /* what one token may take in the UB */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &x = context->GetInputShape(0)->GetStorageShape();
	const gert::Shape &cos = context->GetInputShape(1)->GetStorageShape();
	const gert::Shape &sin = context->GetInputShape(2)->GetStorageShape();
	if (x.GetDimNum() != 3 || cos.GetDimNum() != 2 || sin.GetDimNum() != 2)
		return ge::GRAPH_FAILED;
	uint32_t tokens = (uint32_t)x.GetDim(0), heads = (uint32_t)x.GetDim(1), dim = (uint32_t)x.GetDim(2);
	if (tokens == 0 || heads == 0 || dim == 0 || dim % 2 != 0 || cos.GetDim(0) != tokens || cos.GetDim(1) != dim ||
	    sin.GetDim(0) != tokens || sin.GetDim(1) != dim)
		return ge::GRAPH_FAILED;
	uint32_t typeLength = 0;
	ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLength);
	if (typeLength == 0)
		return ge::GRAPH_FAILED;
	uint32_t perBlock = 32 / typeLength;
	uint32_t halfDimAligned = (dim / 2 + perBlock - 1) / perBlock * perBlock;
	/* x1, x2, y1, y2 in the input type; their float copies; 4 table rows */
	uint64_t ubBytes = (uint64_t)heads * halfDimAligned * (4 * typeLength + 4 * 4) + 8ULL * halfDimAligned * 4;
	if (ubBytes > UB_LIMIT_BYTES || heads > 4095)
		return ge::GRAPH_FAILED;

	uint32_t tokensPerCore = (tokens + CORE_NUM - 1) / CORE_NUM;
	uint32_t usedCores = (tokens + tokensPerCore - 1) / tokensPerCore;
	RotaryPositionEmbeddingTilingData tiling;
	tiling.set_tokenNum(tokens);
	tiling.set_headNum(heads);
	tiling.set_headDim(dim);
	tiling.set_halfDimAligned(halfDimAligned);
	tiling.set_tokensPerCore(tokensPerCore);
	tiling.set_lastCoreTokens(tokens - tokensPerCore * (usedCores - 1));
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
class RotaryPositionEmbedding : public OpDef {
public:
	explicit RotaryPositionEmbedding(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("cos")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Input("sin")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
		    .Format({ge::FORMAT_ND, ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(RotaryPositionEmbedding);
} // namespace ops
