// SPDX-License-Identifier: MIT
//
// Host side of tiling_key_dispatch: the attribute `mode` picks the tiling key
// (10 add, 11 mul, 12 sub).  Tiling is registered with IMPL_OP_OPTILING and a
// TilingParse step that caches platform facts as compile info; the OpDef
// itself carries no SetTiling.
#include "tiling_key_dispatch_tiling.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingPrepare(gert::TilingParseContext *context)
{
	auto *info = context->GetCompiledInfo<TilingKeyDispatchCompileInfo>();
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	info->coreNum = platform.GetCoreNumAiv();
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, info->ubSize);
	return info->coreNum > 0 ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const auto *info = context->GetCompileInfo<TilingKeyDispatchCompileInfo>();
	const int64_t *mode = context->GetAttrs()->GetInt(0);
	if (info == nullptr || mode == nullptr || *mode < 0 || *mode > 2)
		return ge::GRAPH_FAILED;
	uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	uint64_t blockLength = ((total + info->coreNum - 1) / info->coreNum + 7) / 8 * 8;
	if (total == 0 || blockLength * 12 > info->ubSize)
		return ge::GRAPH_FAILED;
	TilingKeyDispatchTilingData tiling;
	tiling.set_totalLength((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	context->SetTilingKey(10 + (uint64_t)*mode);
	context->SetBlockDim((uint32_t)((total + blockLength - 1) / blockLength));
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(TilingKeyDispatch).Tiling(TilingFunc).TilingParse<TilingKeyDispatchCompileInfo>(TilingPrepare);
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class TilingKeyDispatch : public OpDef {
public:
	explicit TilingKeyDispatch(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Attr("mode").AttrType(OPTIONAL).Int(0);
		this->SetInferShape(ge::InferShape);
		this->AICore().AddConfig("ascend910b");
	}
};
OP_ADD(TilingKeyDispatch);
} // namespace ops
