// SPDX-License-Identifier: MIT
//
// Host side of window_copy: y = 2 * x[begin : begin + len(y)], where begin
// is the value of a one-element int64 input, which the tiling function
// reads from the input tensor itself (as pads, slices and strided copies
// read their paddings, offsets and strides).  A begin that is negative,
// not a multiple of 8 or that puts the window past the end of x is
// refused: the tiling returns GRAPH_FAILED.
#include "window_copy_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

#define TILE_LENGTH 512

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Tensor *beginTensor = context->GetInputTensor(1);
	if (beginTensor == nullptr || beginTensor->GetData<int64_t>() == nullptr)
		return ge::GRAPH_FAILED;
	int64_t begin = beginTensor->GetData<int64_t>()[0];
	int64_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	int64_t total = context->GetOutputShape(0)->GetStorageShape().GetShapeSize();
	if (begin < 0 || begin % 8 != 0 || total <= 0 || total % 8 != 0 || begin + total > length)
		return ge::GRAPH_FAILED;
	uint64_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
	uint64_t blockLength = ((uint64_t)total / 8 + coreNum - 1) / coreNum * 8;
	WindowCopyTilingData tiling;
	tiling.set_begin((uint32_t)begin);
	tiling.set_total((uint32_t)total);
	tiling.set_blockLength((uint32_t)blockLength);
	tiling.set_tileLength(TILE_LENGTH);
	context->SetBlockDim((uint32_t)(((uint64_t)total + blockLength - 1) / blockLength));
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class WindowCopy : public OpDef {
public:
	explicit WindowCopy(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("begin").ParamType(REQUIRED).DataType({ge::DT_INT64}).Format({ge::FORMAT_ND}).ValueDepend(REQUIRED);
		this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(WindowCopy);
} // namespace ops
