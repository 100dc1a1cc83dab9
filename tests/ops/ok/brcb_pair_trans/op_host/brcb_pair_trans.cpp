// SPDX-License-Identifier: MIT
//
// Host side of brcb_pair_trans: one core runs Brcb, PairReduceSum and a
// masked Copy and BroadCast over rows, and TransDataTo5HD / Transpose over three 16-row
// matrices.
#include "brcb_pair_trans_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	uint32_t rows = (uint32_t)context->GetInputShape(0)->GetStorageShape().GetShapeSize();
	const gert::Shape &t = context->GetInputShape(2)->GetStorageShape();
	if (rows == 0 || rows % 8 || t.GetDimNum() != 2 || t.GetDim(0) != 16 || t.GetDim(1) % 32 ||
	    t.GetDim(1) == 0 || t.GetDim(1) > 256)
		return ge::GRAPH_FAILED;
	BrcbPairTransTilingData tiling;
	tiling.set_rows(rows);
	tiling.set_width((uint32_t)t.GetDim(1));
	context->SetBlockDim(1);
	tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
	context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
	context->GetWorkspaceSizes(1)[0] = 0;
	return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class BrcbPairTrans : public OpDef {
public:
	explicit BrcbPairTrans(const char *name) : OpDef(name)
	{
		this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("t").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Input("h").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Input("q").ParamType(REQUIRED).DataType({ge::DT_INT8}).Format({ge::FORMAT_ND});
		this->Output("ab").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("ab2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("bp").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("cp").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("cp2").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("tt").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("te").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("ht").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("hb").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("qt").ParamType(REQUIRED).DataType({ge::DT_INT8}).Format({ge::FORMAT_ND});
		this->Output("bc").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("bc3").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
		this->Output("bc0").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
		this->Output("qb").ParamType(REQUIRED).DataType({ge::DT_INT8}).Format({ge::FORMAT_ND});
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(BrcbPairTrans);
} // namespace ops
