// SPDX-License-Identifier: MIT
//
// Host side of group_norm_silu: group normalisation of x [N, C, *] over
// num_groups groups of C / num_groups channels, the per-channel affine
// gamma, beta, then silu; mean and rstd of every (n, g) group are outputs
// too.  The N * G groups go ceil(N * G / cores) to a core and the remainder
// to the last core; each group is streamed in tiles of TILE_LENGTH.
#include "group_norm_silu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t TILE_LENGTH = 4096; /* halves per tile: 8 KB */
const uint32_t MAX_CHANNELS = 4096; /* gamma and beta stay in the UB */

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &x = context->GetInputShape(0)->GetStorageShape();
	const gert::RuntimeAttrs *attrs = context->GetAttrs();
	const int64_t *numGroups = attrs->GetInt(0);
	const float *epsilon = attrs->GetFloat(1);
	if (x.GetDimNum() < 2 || numGroups == nullptr || epsilon == nullptr || *numGroups <= 0)
		return ge::GRAPH_FAILED;
	uint32_t batch = (uint32_t)x.GetDim(0), channels = (uint32_t)x.GetDim(1);
	uint64_t spatial = 1;
	for (size_t i = 2; i < x.GetDimNum(); i++)
		spatial *= (uint64_t)x.GetDim(i);
	uint32_t groups = (uint32_t)*numGroups;
	if (batch == 0 || channels == 0 || spatial == 0 || channels % groups != 0 || channels > MAX_CHANNELS ||
	    context->GetInputShape(1)->GetStorageShape().GetShapeSize() != channels ||
	    context->GetInputShape(2)->GetStorageShape().GetShapeSize() != channels)
		return ge::GRAPH_FAILED;

	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint32_t coreNum = platform.GetCoreNumAiv();
	uint32_t total = batch * groups;
	uint32_t groupsPerCore = (total + coreNum - 1) / coreNum;
	uint32_t usedCores = (total + groupsPerCore - 1) / groupsPerCore;

	GroupNormSiluTilingData *tiling = context->GetTilingData<GroupNormSiluTilingData>();
	tiling->batch = batch;
	tiling->channels = channels;
	tiling->spatial = (uint32_t)spatial;
	tiling->groups = groups;
	tiling->channelsPerGroup = channels / groups;
	tiling->groupsPerCore = groupsPerCore;
	tiling->lastCoreGroups = total - groupsPerCore * (usedCores - 1);
	tiling->tileLength = TILE_LENGTH;
	tiling->epsilon = *epsilon;
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
	const gert::Shape *x = context->GetInputShape(0);
	const int64_t *numGroups = context->GetAttrs()->GetInt(0);
	*context->GetOutputShape(0) = *x;
	gert::Shape stat;
	stat.AppendDim(x->GetDim(0));
	stat.AppendDim(numGroups ? *numGroups : 1);
	*context->GetOutputShape(1) = stat;
	*context->GetOutputShape(2) = stat;
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
class GroupNormSilu : public OpDef {
public:
	explicit GroupNormSilu(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("gamma")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Input("beta")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("mean")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("rstd")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Attr("num_groups").AttrType(REQUIRED).Int();
		this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(GroupNormSilu);
} // namespace ops
