// SPDX-License-Identifier: MIT
//
// Host side of apply_adam: one Adam step over param, grad, m and v, writing
// the updated param, m and v.  The tiling gives every core the same
// ceil(n / CORE_NUM) elements (a multiple of 8), leaves the rest to the last
// core, and passes the attributes through; the kernel derives the bias
// corrections from beta1, beta2 and step.
#include "apply_adam_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_NUM = 32;      /* cores the operator launches on */
const uint32_t TILE_LENGTH = 2048; /* floats per tile: 8 KB */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	for (int i = 1; i < 4; i++)
		if ((uint64_t)context->GetInputShape(i)->GetStorageShape().GetShapeSize() != total)
			return ge::GRAPH_FAILED;
	const gert::RuntimeAttrs *attrs = context->GetAttrs();
	const float *lr = attrs->GetFloat(0);
	const float *beta1 = attrs->GetFloat(1);
	const float *beta2 = attrs->GetFloat(2);
	const float *epsilon = attrs->GetFloat(3);
	const int64_t *step = attrs->GetInt(4);
	if (total == 0 || total > 0xffffffffULL || !lr || !beta1 || !beta2 || !epsilon || !step || *step < 1)
		return ge::GRAPH_FAILED;

	uint64_t blockLength = (total + CORE_NUM - 1) / CORE_NUM;
	blockLength = (blockLength + 7) / 8 * 8;
	uint32_t usedCores = (uint32_t)((total + blockLength - 1) / blockLength);

	ApplyAdamTilingData *tiling = context->GetTilingData<ApplyAdamTilingData>();
	tiling->totalLength = (uint32_t)total;
	tiling->blockLength = (uint32_t)blockLength;
	tiling->lastLength = (uint32_t)(total - blockLength * (usedCores - 1));
	tiling->tileLength = TILE_LENGTH;
	tiling->lr = *lr;
	tiling->beta1 = *beta1;
	tiling->beta2 = *beta2;
	tiling->epsilon = *epsilon;
	tiling->step = (int32_t)*step;
	tiling->reserved = 0;
	context->SetBlockDim(usedCores);
	size_t *workspace = context->GetWorkspaceSizes(1);
	workspace[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	for (int i = 0; i < 3; i++)
		*context->GetOutputShape(i) = *context->GetInputShape(i == 0 ? 0 : i + 1);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	for (int i = 0; i < 3; i++)
		context->SetOutputDataType(i, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class ApplyAdam : public OpDef {
public:
	explicit ApplyAdam(const char *name) : OpDef(name)
	{
		const char *inputs[] = {"param", "grad", "m", "v"};
		for (const char *in : inputs)
			this->Input(in)
			    .ParamType(REQUIRED)
			    .DataType({ge::DT_FLOAT})
			    .Format({ge::FORMAT_ND})
			    .UnknownShapeFormat({ge::FORMAT_ND});
		const char *outputs[] = {"param_out", "m_out", "v_out"};
		for (const char *out : outputs)
			this->Output(out)
			    .ParamType(REQUIRED)
			    .DataType({ge::DT_FLOAT})
			    .Format({ge::FORMAT_ND})
			    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Attr("lr").AttrType(OPTIONAL).Float(0.001f);
		this->Attr("beta1").AttrType(OPTIONAL).Float(0.9f);
		this->Attr("beta2").AttrType(OPTIONAL).Float(0.999f);
		this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-8f);
		this->Attr("step").AttrType(OPTIONAL).Int(1);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(ApplyAdam);
} // namespace ops
