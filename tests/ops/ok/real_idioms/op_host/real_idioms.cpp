// SPDX-License-Identifier: MIT
//
// Host side of real_idioms: y = max(x, 0) over a float vector of any
// length, and z, a bfloat16 vector of x's length, set to 1.5.  One core;
// the kernel (see it) is written the way real operators are, with idioms
// the development set of real operators needed the simulator to accept.
#include "real_idioms_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint64_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint64_t ub = 0;
	platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
	if (n == 0 || n > UINT32_MAX || ub != 192 * 1024) /* the kernel takes the whole UB */
		return ge::GRAPH_FAILED;
	RealIdiomsTilingData tiling;
	tiling.set_n((uint32_t)n);
	context->SetBlockDim(1);
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
	*context->GetOutputShape(1) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class RealIdioms : public OpDef {
public:
	explicit RealIdioms(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(RealIdioms);
} // namespace ops
