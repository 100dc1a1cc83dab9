// SPDX-License-Identifier: MIT
//
// Kernel of gather_mask_rows, per group of 16 rows of 128 halves x with a
// pattern row p of 16 int16 (the first 128 bits select elements):
//   odd  built-in pattern 2 (odd lanes), normal mode, one repeat per row
//   q3   built-in pattern 5 (lane 4k+2), counter mode, mask 128 per repeat
//   sel  row by row with p's bits in counter mode, zero-filled behind,
//        cnt = rsvdCnt of each row
//   pk   the whole group at once in normal mode, the pattern advancing one
//        32-byte block per repeat; kept elements packed from the group's
//        first row on, zero-filled behind
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t GROUP = 16, COLS = 128;

class KernelGatherMaskRows {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR p, GM_ADDR odd, GM_ADDR q3, GM_ADDR sel, GM_ADDR cnt, GM_ADDR pk,
				    uint32_t rows, uint32_t rowsPerCore)
	{
		uint32_t row0 = rowsPerCore * (uint32_t)GetBlockIdx();
		nrows = rows - row0 < rowsPerCore ? rows - row0 : rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ half *)x + row0 * COLS, nrows * COLS);
		pGm.SetGlobalBuffer((__gm__ int16_t *)p + row0 * 16, nrows * 16);
		oddGm.SetGlobalBuffer((__gm__ half *)odd + row0 * 64, nrows * 64);
		q3Gm.SetGlobalBuffer((__gm__ half *)q3 + row0 * 32, nrows * 32);
		selGm.SetGlobalBuffer((__gm__ half *)sel + row0 * COLS, nrows * COLS);
		cntGm.SetGlobalBuffer((__gm__ int32_t *)cnt + row0, nrows);
		pkGm.SetGlobalBuffer((__gm__ half *)pk + row0 * COLS, nrows * COLS);
		pipe.InitBuffer(xBuf, GROUP * COLS * sizeof(half));
		pipe.InitBuffer(pBuf, GROUP * 16 * sizeof(int16_t));
		pipe.InitBuffer(oddBuf, GROUP * 64 * sizeof(half));
		pipe.InitBuffer(q3Buf, GROUP * 32 * sizeof(half));
		pipe.InitBuffer(selBuf, GROUP * COLS * sizeof(half));
		pipe.InitBuffer(cntBuf, GROUP * sizeof(int32_t));
		pipe.InitBuffer(pkBuf, GROUP * COLS * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<half> x = xBuf.Get<half>();
		LocalTensor<uint16_t> pat = pBuf.Get<uint16_t>();
		LocalTensor<half> odd = oddBuf.Get<half>(), q3 = q3Buf.Get<half>();
		LocalTensor<half> sel = selBuf.Get<half>(), pk = pkBuf.Get<half>();
		LocalTensor<int32_t> cnt = cntBuf.Get<int32_t>();
		for (uint32_t g = 0; g < nrows; g += GROUP) {
			DataCopy(x, xGm[g * COLS], GROUP * COLS);
			DataCopy(pat.ReinterpretCast<int16_t>(), pGm[g * 16], GROUP * 16);
			PipeBarrier<PIPE_ALL>();
			uint64_t kept = 0;
			GatherMask(odd, x, (uint8_t)2, false, 0, {1, (uint16_t)GROUP, 8, 0}, kept);
			GatherMask(q3, x, (uint8_t)5, true, COLS, {1, (uint16_t)GROUP, 8, 0}, kept);
			Duplicate(sel, (half)0, (int32_t)(GROUP * COLS));
			for (uint32_t r = 0; r < GROUP; r++) {
				GatherMask(sel[r * COLS], x[r * COLS], pat[r * 16], true, COLS, {1, 1, 8, 0}, kept);
				PipeBarrier<PIPE_ALL>();
				cnt.SetValue(r, (int32_t)kept);
			}
			Duplicate(pk, (half)0, (int32_t)(GROUP * COLS));
			GatherMask(pk, x, pat, false, 0, {1, (uint16_t)GROUP, 8, 1}, kept);
			PipeBarrier<PIPE_ALL>();
			DataCopy(oddGm[g * 64], odd, GROUP * 64);
			DataCopy(q3Gm[g * 32], q3, GROUP * 32);
			DataCopy(selGm[g * COLS], sel, GROUP * COLS);
			DataCopy(cntGm[g], cnt, GROUP);
			DataCopy(pkGm[g * COLS], pk, GROUP * COLS);
			PipeBarrier<PIPE_ALL>();
		}
	}

private:
	TPipe pipe;
	TBuf<QuePosition::VECCALC> xBuf, pBuf, oddBuf, q3Buf, selBuf, cntBuf, pkBuf;
	GlobalTensor<half> xGm, oddGm, q3Gm, selGm, pkGm;
	GlobalTensor<int16_t> pGm;
	GlobalTensor<int32_t> cntGm;
	uint32_t nrows;
};

extern "C" __global__ __aicore__ void gather_mask_rows(GM_ADDR x, GM_ADDR p, GM_ADDR odd, GM_ADDR q3, GM_ADDR sel,
						       GM_ADDR cnt, GM_ADDR pk, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	KernelGatherMaskRows op;
	op.Init(x, p, odd, q3, sel, cnt, pk, td.rows, td.rowsPerCore);
	op.Process();
}
