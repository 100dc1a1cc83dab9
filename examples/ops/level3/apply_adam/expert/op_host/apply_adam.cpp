// SPDX-License-Identifier: MIT
//
// Host side of the hand-optimised apply_adam.  The elements are split over
// the vector cores in 512-byte units (so every core's range and every tile
// starts 512-byte aligned), the remainder units going one each to the first
// cores and the sub-unit tail to the last core; small inputs use fewer
// cores; the tile is the largest that fits 4 double-buffered inputs, 3
// double-buffered outputs and one temporary, and the bias corrections are
// folded into two scalars here instead of in every core.
#include <cmath>

#include "apply_adam_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 2;
const uint32_t TILE_BUFFERS = 7 * BUFFER_NUM + 1; /* queues x buffers + one temporary */
const uint32_t UB_RESERVE = 1024;
const uint32_t ALIGN_ELEMS = 128;         /* 512 bytes: the fastest GM alignment */
const uint32_t MIN_ELEMS_PER_CORE = 4096; /* below this, fewer cores are cheaper */

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

	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint64_t units = total / ALIGN_ELEMS;
	uint64_t maxCores = total / MIN_ELEMS_PER_CORE;
	uint32_t usedCores = coreNum;
	if (maxCores < usedCores)
		usedCores = maxCores > 0 ? (uint32_t)maxCores : 1;

	ApplyAdamTilingData *tiling = context->GetTilingData<ApplyAdamTilingData>();
	tiling->totalLength = (uint32_t)total;
	tiling->baseLength = (uint32_t)(units / usedCores * ALIGN_ELEMS);
	tiling->bigCores = (uint32_t)(units % usedCores);
	tiling->tileLength =
	    (uint32_t)((ubSize - UB_RESERVE) / TILE_BUFFERS / sizeof(float) / ALIGN_ELEMS * ALIGN_ELEMS);
	tiling->beta1 = *beta1;
	tiling->oneMinusBeta1 = 1.0f - *beta1;
	tiling->beta2 = *beta2;
	tiling->oneMinusBeta2 = 1.0f - *beta2;
	tiling->epsilon = *epsilon;
	double bc1 = 1.0 - std::pow((double)*beta1, (double)*step);
	double bc2 = 1.0 - std::pow((double)*beta2, (double)*step);
	tiling->stepSize = (float)((double)*lr / bc1);
	tiling->invBiasCorrection2 = (float)(1.0 / bc2);
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
