// SPDX-License-Identifier: MIT
//
// Host side of the timing probe: an elementwise kernel over half [R, C]
// whose attributes switch one optimisation at a time (tile size, buffer
// count, L2 bypass, UB bank padding, PIPE_ALL, DataCopyPad, PIPE_V barriers,
// fusion, temporaries, scalar loop, core split, kernel type), so that the
// cases of one manifest are the "before" and "after" of every rewrite.
#include "probe_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static const char *const ATTRS[] = {"cores", "tile", "bufs", "l2_bypass", "bank_pad", "pipe_all", "copy_pad",
				    "v_barrier", "v_ops", "mode", "tmp", "scalar", "split", "aiv_only"};

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	TilingData t;
	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	if (shape.GetDimNum() != 2 || shape.GetDim(1) % 16 != 0)
		return ge::GRAPH_FAILED;
	int64_t v[sizeof(ATTRS) / sizeof(ATTRS[0])];
	for (size_t i = 0; i < sizeof(ATTRS) / sizeof(ATTRS[0]); i++) {
		const int64_t *p = context->GetAttrs()->GetInt(i);
		if (!p)
			return ge::GRAPH_FAILED;
		v[i] = *p;
	}
	uint64_t rows = shape.GetDim(0), cols = shape.GetDim(1);
	uint64_t cores = v[0] > 0 ? (uint64_t)v[0] : platform.GetCoreNumAiv();
	if (cores > rows)
		cores = rows;
	t.set_rows((uint32_t)rows);
	t.set_cols((uint32_t)cols);
	t.set_tile((uint32_t)v[1]);
	t.set_bufs((uint32_t)v[2]);
	t.set_l2Bypass((uint32_t)v[3]);
	t.set_bankPad((uint32_t)v[4]);
	t.set_pipeAll((uint32_t)v[5]);
	t.set_copyPad((uint32_t)v[6]);
	t.set_vBarrier((uint32_t)v[7]);
	t.set_vOps((uint32_t)v[8]);
	t.set_mode((uint32_t)v[9]);
	t.set_tmp((uint32_t)v[10]);
	t.set_scalar((uint32_t)v[11]);
	t.set_split((uint32_t)v[12]);
	t.set_aivOnly((uint32_t)v[13]);
	context->SetBlockDim((uint32_t)cores);
	context->SetTilingKey(0);
	t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(t.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext *context)
{
	*context->GetOutputShape(0) = *context->GetInputShape(0);
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class TimingProbe : public OpDef {
public:
	explicit TimingProbe(const char *name) : OpDef(name)
	{
		this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Attr("cores").AttrType(OPTIONAL).Int(1);
		this->Attr("tile").AttrType(OPTIONAL).Int(4096);
		this->Attr("bufs").AttrType(OPTIONAL).Int(1);
		this->Attr("l2_bypass").AttrType(OPTIONAL).Int(0);
		this->Attr("bank_pad").AttrType(OPTIONAL).Int(0);
		this->Attr("pipe_all").AttrType(OPTIONAL).Int(0);
		this->Attr("copy_pad").AttrType(OPTIONAL).Int(0);
		this->Attr("v_barrier").AttrType(OPTIONAL).Int(0);
		this->Attr("v_ops").AttrType(OPTIONAL).Int(1);
		this->Attr("mode").AttrType(OPTIONAL).Int(0);
		this->Attr("tmp").AttrType(OPTIONAL).Int(0);
		this->Attr("scalar").AttrType(OPTIONAL).Int(0);
		this->Attr("split").AttrType(OPTIONAL).Int(0);
		this->Attr("aiv_only").AttrType(OPTIONAL).Int(0);
		this->SetInferShape(ge::InferShape);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(TimingProbe);
} // namespace ops
