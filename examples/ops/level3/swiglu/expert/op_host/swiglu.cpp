// SPDX-License-Identifier: MIT
//
// Host side of the hand-optimised swiglu: y = silu(a) * b, x = [a, b] along
// the last axis.  Rows are balanced over the vector cores (no more than
// MAX_CORES: past that the cores only share the same HBM bandwidth and pay
// more launch time).  When a half-row is whole 32-byte blocks, a tile is
// tileRows whole rows of x, moved by one contiguous DataCopy each way
// (tiling key 1), and the host lays out the UB so that the two sources of a
// vector instruction sit in different bank groups and no source shares a
// bank with the destination.  Otherwise strided DataCopyPad copies move
// tileRows x chunkCols blocks of a and b (tiling key 2).
#include "swiglu_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t BUFFER_NUM = 2;
const uint32_t MAX_CORES = 40;
const uint32_t ROW = 32;           /* UB bytes per bank row */
const uint32_t BANKS = 48;         /* UB banks, interleaved by 32-byte rows */
const uint32_t UB_SLACK = 8 * 1024; /* room for the layout's padding */
const uint32_t KEY2_MAX_ELEMS = 8192;

/* Rows to add to `cursor` (in 32-byte rows) to land on residue `want` modulo the bank count. */
static uint32_t PadTo(uint32_t cursor, uint32_t want)
{
	return (want + BANKS - cursor % BANKS) % BANKS;
}

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
	const gert::Shape &shape = context->GetInputShape(0)->GetStorageShape();
	size_t dims = shape.GetDimNum();
	const int64_t *dim = context->GetAttrs()->GetInt(0);
	if (dims == 0 || (dim != nullptr && *dim != -1 && *dim != (int64_t)dims - 1))
		return ge::GRAPH_FAILED;
	int64_t last = shape.GetDim(dims - 1);
	if (last <= 0 || last % 2 != 0)
		return ge::GRAPH_FAILED;
	uint64_t rows = (uint64_t)shape.GetShapeSize() / (uint64_t)last;
	uint32_t cols = (uint32_t)(last / 2);

	auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
	uint64_t ubSize = 0;
	platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
	uint32_t coreNum = platform.GetCoreNumAiv();
	if (rows == 0 || coreNum == 0)
		return ge::GRAPH_FAILED;
	if (coreNum > MAX_CORES)
		coreNum = MAX_CORES;
	uint32_t usedCores = rows < coreNum ? (uint32_t)rows : coreNum;

	SwiGluTilingData tiling;
	tiling.set_rowNum((uint32_t)rows);
	tiling.set_colNum(cols);
	tiling.set_baseRows((uint32_t)(rows / usedCores));
	tiling.set_bigCores((uint32_t)(rows % usedCores));

	/* Key 1: x [2 * cols] halves in, y [cols] halves out, three float temporaries per row. */
	uint64_t rowBytes = (uint64_t)BUFFER_NUM * (4 * cols + 2 * cols) + 3ULL * 4 * cols;
	uint32_t tileRows = (uint32_t)((ubSize - UB_SLACK) / rowBytes);
	if ((cols * 2) % ROW == 0 && tileRows >= 1) {
		if (tileRows > 64)
			tileRows = 64;
		uint32_t yRows = tileRows * cols * 2 / ROW, xRows = 2 * yRows, fRows = 2 * yRows;
		/* y slots at residues 0 and 16, x slots at 32, floats at 0, 8 and 24 (see the kernel). */
		uint32_t ySlot = yRows + PadTo(yRows, 16);
		uint32_t cursor = 2 * ySlot;
		uint32_t pad1 = PadTo(cursor, 32);
		cursor += pad1;
		uint32_t xSlot = xRows + PadTo(xRows, 0);
		cursor += 2 * xSlot;
		uint32_t pad2 = PadTo(cursor, 0);
		cursor += pad2;
		uint32_t f2 = fRows + PadTo(fRows, 8);
		uint32_t f3 = f2 + fRows + PadTo(f2 + fRows, 24);
		uint32_t fTotal = f3 + fRows;
		if ((uint64_t)(cursor + fTotal) * ROW > ubSize)
			return ge::GRAPH_FAILED;
		tiling.set_tileRows(tileRows);
		tiling.set_chunkCols(cols);
		tiling.set_chunkNum(1);
		tiling.set_ySlotBytes(ySlot * ROW);
		tiling.set_pad1Bytes(pad1 * ROW);
		tiling.set_xSlotBytes(xSlot * ROW);
		tiling.set_pad2Bytes(pad2 * ROW);
		tiling.set_f2Offset(f2 * ROW);
		tiling.set_f3Offset(f3 * ROW);
		tiling.set_floatBytes(fTotal * ROW);
		context->SetTilingKey(1);
	} else {
		/* Key 2: a, b, y halves double-buffered and three float temporaries per element. */
		uint32_t tileElems = (uint32_t)((ubSize - UB_SLACK) / (BUFFER_NUM * 6 + 12)) / 64 * 64;
		if (tileElems > KEY2_MAX_ELEMS)
			tileElems = KEY2_MAX_ELEMS;
		uint32_t chunkCols = cols;
		if ((cols + 15) / 16 * 16 > tileElems)
			chunkCols = tileElems;
		uint32_t chunkAligned = (chunkCols + 15) / 16 * 16;
		tileRows = tileElems / chunkAligned;
		if (tileRows > 4095)
			tileRows = 4095;
		tiling.set_tileRows(tileRows);
		tiling.set_chunkCols(chunkCols);
		tiling.set_chunkNum((cols + chunkCols - 1) / chunkCols);
		tiling.set_ySlotBytes(tileElems * 2);
		tiling.set_pad1Bytes(0);
		tiling.set_xSlotBytes(tileElems * 2);
		tiling.set_pad2Bytes(0);
		tiling.set_f2Offset(tileElems * 4);
		tiling.set_f3Offset(tileElems * 8);
		tiling.set_floatBytes(tileElems * 12);
		context->SetTilingKey(2);
	}
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
	const gert::Shape *x = context->GetInputShape(0);
	gert::Shape *y = context->GetOutputShape(0);
	*y = *x;
	size_t dims = x->GetDimNum();
	y->SetDim(dims - 1, x->GetDim(dims - 1) / 2);
	return GRAPH_SUCCESS;
}

static graphStatus InferDataType(gert::InferDataTypeContext *context)
{
	context->SetOutputDataType(0, context->GetInputDataType(0));
	return GRAPH_SUCCESS;
}
} // namespace ge

namespace ops {
class SwiGlu : public OpDef {
public:
	explicit SwiGlu(const char *name) : OpDef(name)
	{
		this->Input("x")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Output("y")
		    .ParamType(REQUIRED)
		    .DataType({ge::DT_FLOAT16})
		    .Format({ge::FORMAT_ND})
		    .UnknownShapeFormat({ge::FORMAT_ND});
		this->Attr("dim").AttrType(OPTIONAL).Int(-1);
		this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
		this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
	}
};
OP_ADD(SwiGlu);
} // namespace ops
