// SPDX-License-Identifier: MIT
//
// Kernel of the timing probe.  Per tile: CopyIn x and y, Compute, CopyOut z.
// Each tiling switch is one rewrite the optimizer knows; the mechanism tests
// compare cases that differ in exactly one switch.
//   mode 0: z = x + y, v_ops times (independent, optionally PIPE_V-fenced)
//   mode 1: z = y + 2x fused as Axpy;  mode 2: the same as Muls then Add
//   tmp 1/2: z = (x * 1) + y, v_ops times, through a TBuf / a VECOUT TQue
//            temporary taken and released per step
//   mode 3: z = x + y after a plain C++ loop of n steps (no API calls)
//   scalar 1: z = x + y with GetValue/SetValue
#include "kernel_operator.h"

using namespace AscendC;

class KernelProbe {
public:
	__aicore__ inline KernelProbe() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const TilingData &t)
	{
		this->t = t;
		uint32_t idx = (uint32_t)GetBlockIdx(), n = (uint32_t)GetBlockNum();
		uint64_t base = t.rows / n, mine, first;
		if (t.split == 0) { /* the remainder goes one row each to the first cores */
			uint64_t rem = t.rows % n;
			mine = base + (idx < rem ? 1 : 0);
			first = base * idx + (idx < rem ? idx : rem);
		} else { /* the last core takes the whole remainder */
			mine = idx + 1 == n ? t.rows - base * (n - 1) : base;
			first = base * idx;
		}
		length = mine * t.cols;
		xGm.SetGlobalBuffer((__gm__ half *)x + first * t.cols, length);
		yGm.SetGlobalBuffer((__gm__ half *)y + first * t.cols, length);
		zGm.SetGlobalBuffer((__gm__ half *)z + first * t.cols, length);
		if (t.l2Bypass) {
			xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
			yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
			zGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		}
		pipe.InitBuffer(inX, t.bufs, t.tile * sizeof(half));
		if (t.bankPad)
			pipe.InitBuffer(pad, 256);
		pipe.InitBuffer(inY, t.bufs, t.tile * sizeof(half));
		pipe.InitBuffer(outZ, t.bufs, t.tile * sizeof(half));
		if (t.tmp == 1)
			pipe.InitBuffer(tmpBuf, t.tile * sizeof(half));
		if (t.tmp == 2)
			pipe.InitBuffer(tmpQue, 1, t.tile * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		uint64_t tiles = (length + t.tile - 1) / t.tile;
		for (uint64_t i = 0; i < tiles; i++) {
			uint64_t off = i * t.tile;
			uint32_t n = (uint32_t)(length - off < t.tile ? length - off : t.tile);
			CopyIn(off, n);
			Compute(n);
			CopyOut(off, n);
			if (t.pipeAll)
				PipeBarrier<PIPE_ALL>();
		}
	}

private:
	__aicore__ inline void CopyIn(uint64_t off, uint32_t n)
	{
		LocalTensor<half> xl = inX.AllocTensor<half>();
		LocalTensor<half> yl = inY.AllocTensor<half>();
		if (t.copyPad) {
			DataCopyExtParams p(1, n * sizeof(half), 0, 0, 0);
			DataCopyPad(xl, xGm[off], p, DataCopyPadExtParams<half>(false, 0, 0, 0));
			DataCopyPad(yl, yGm[off], p, DataCopyPadExtParams<half>(false, 0, 0, 0));
		} else {
			DataCopy(xl, xGm[off], n);
			DataCopy(yl, yGm[off], n);
		}
		inX.EnQue(xl);
		inY.EnQue(yl);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<half> xl = inX.DeQue<half>();
		LocalTensor<half> yl = inY.DeQue<half>();
		LocalTensor<half> zl = outZ.AllocTensor<half>();
		if (t.scalar) {
			for (uint32_t i = 0; i < n; i++)
				zl.SetValue(i, (half)(xl.GetValue(i) + yl.GetValue(i)));
		} else if (t.tmp) {
			for (uint32_t k = 0; k < t.vOps; k++) {
				LocalTensor<half> tl = t.tmp == 1 ? tmpBuf.Get<half>() : tmpQue.AllocTensor<half>();
				Muls(tl, xl, (half)1.0, n);
				Add(zl, tl, yl, n);
				if (t.tmp == 2)
					tmpQue.FreeTensor(tl);
			}
		} else if (t.mode == 1) {
			Axpy(yl, xl, (half)2.0, n);
			DataCopy(zl, yl, n);
		} else if (t.mode == 2) {
			Muls(xl, xl, (half)2.0, n);
			Add(yl, yl, xl, n);
			DataCopy(zl, yl, n);
		} else if (t.mode == 3) {
			/* plain scalar C++ outside the API: only basic-block counting sees it */
			uint32_t h = n;
			for (uint32_t i = 0; i < n; i++)
				h = (h & 1) ? h * 3 + i : h >> 1;
			Add(zl, xl, yl, h == 0xFFFFFFFFu ? 0 : n);
		} else {
			for (uint32_t k = 0; k < t.vOps; k++) {
				Add(zl, xl, yl, n);
				if (t.vBarrier && k + 1 < t.vOps)
					PipeBarrier<PIPE_V>();
			}
		}
		outZ.EnQue<half>(zl);
		inX.FreeTensor(xl);
		inY.FreeTensor(yl);
	}

	__aicore__ inline void CopyOut(uint64_t off, uint32_t n)
	{
		LocalTensor<half> zl = outZ.DeQue<half>();
		if (t.copyPad)
			DataCopyPad(zGm[off], zl, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		else
			DataCopy(zGm[off], zl, n);
		outZ.FreeTensor(zl);
	}

	TilingData t;
	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inX, inY;
	TQue<QuePosition::VECOUT, 2> outZ;
	TQue<QuePosition::VECOUT, 1> tmpQue;
	TBuf<QuePosition::VECCALC> pad, tmpBuf;
	GlobalTensor<half> xGm, yGm, zGm;
	uint64_t length;
};

extern "C" __global__ __aicore__ void probe(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	if (td.aivOnly)
		KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	KernelProbe op;
	op.Init(x, y, z, td);
	op.Process();
}
