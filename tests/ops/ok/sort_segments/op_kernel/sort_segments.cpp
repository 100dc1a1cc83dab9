// SPDX-License-Identifier: MIT
//
// Kernel of sort_segments.  Per segment of m scores (1024, the last one
// shorter, always a multiple of 128), with global positions as indices:
//   gv/gi    Sort32: each group of 32 sorted on its own, then Extract
//   fv/fi    Sort<float, true>: the whole segment sorted
//   mv/mi    MrgSort with repeatTimes: the Sort32 groups merged four at a
//            time (groups of 128 sorted)
//   hv/hi    Sort32 of the half scores h
//   ex       8 ints per segment: sortedNum[0..1] of MrgSort<float, true>
//            (stop when a list runs out) of groups 0 and 1; GetMrgSortResult's
//            first two after the basic MrgSort of groups 2 and 3 with
//            ifExhaustedSuspension; the sum of its last two (0); then zeros
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t SEG = 1024;

class KernelSortSegments {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR h, GM_ADDR gv, GM_ADDR gi, GM_ADDR fv, GM_ADDR fi, GM_ADDR mv,
				    GM_ADDR mi, GM_ADDR hv, GM_ADDR hi, GM_ADDR ex, uint32_t total, uint32_t segments)
	{
		this->total = total;
		this->segments = segments;
		xGm.SetGlobalBuffer((__gm__ float *)x, total);
		hGm.SetGlobalBuffer((__gm__ half *)h, total);
		gvGm.SetGlobalBuffer((__gm__ float *)gv, total);
		giGm.SetGlobalBuffer((__gm__ uint32_t *)gi, total);
		fvGm.SetGlobalBuffer((__gm__ float *)fv, total);
		fiGm.SetGlobalBuffer((__gm__ uint32_t *)fi, total);
		mvGm.SetGlobalBuffer((__gm__ float *)mv, total);
		miGm.SetGlobalBuffer((__gm__ uint32_t *)mi, total);
		hvGm.SetGlobalBuffer((__gm__ half *)hv, total);
		hiGm.SetGlobalBuffer((__gm__ uint32_t *)hi, total);
		exGm.SetGlobalBuffer((__gm__ int32_t *)ex, segments * 8);
		pipe.InitBuffer(xBuf, SEG * sizeof(float));
		pipe.InitBuffer(hBuf, SEG * sizeof(half));
		pipe.InitBuffer(idxBuf, SEG * sizeof(uint32_t));
		pipe.InitBuffer(recBuf, SEG * 8);
		pipe.InitBuffer(fullBuf, SEG * 8);
		pipe.InitBuffer(tmpBuf, SEG * 8);
		pipe.InitBuffer(mrgBuf, SEG * 8);
		pipe.InitBuffer(valBuf, SEG * sizeof(float));
		pipe.InitBuffer(outIdxBuf, SEG * sizeof(uint32_t));
		pipe.InitBuffer(exBuf, 8 * sizeof(int32_t));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t s = (uint32_t)GetBlockIdx(); s < segments; s += (uint32_t)GetBlockNum())
			Segment(s);
	}

private:
	__aicore__ inline void Segment(uint32_t s)
	{
		uint32_t off = s * SEG, m = total - off < SEG ? total - off : SEG;
		int32_t groups = (int32_t)(m / 32);
		LocalTensor<float> x = xBuf.Get<float>();
		LocalTensor<half> h = hBuf.Get<half>();
		LocalTensor<uint32_t> idx = idxBuf.Get<uint32_t>();
		LocalTensor<float> rec = recBuf.Get<float>(), full = fullBuf.Get<float>(), mrg = mrgBuf.Get<float>();
		LocalTensor<float> tmp = tmpBuf.Get<float>(), val = valBuf.Get<float>();
		LocalTensor<uint32_t> oidx = outIdxBuf.Get<uint32_t>();
		LocalTensor<int32_t> ex = exBuf.Get<int32_t>();
		DataCopy(x, xGm[off], m);
		DataCopy(h, hGm[off], m);
		CreateVecIndex(idx.ReinterpretCast<int32_t>(), (int32_t)off, m);

		Sort32(rec, x, idx, groups);
		Extract(val, oidx, rec, groups);
		DataCopy(gvGm[off], val, m);
		DataCopy(giGm[off], oidx, m);

		LocalTensor<float> concat;
		Concat(concat, x, tmp, groups);
		Sort<float, true>(full, concat, idx, tmp, groups);
		Extract(val, oidx, full, groups);
		DataCopy(fvGm[off], val, m);
		DataCopy(fiGm[off], oidx, m);

		uint32_t len = GetSortLen<float>(32);
		MrgSort4Info info;
		for (int i = 0; i < 4; i++)
			info.elementLengths[i] = 32;
		info.validBit = 15;
		info.repeatTimes = (uint8_t)(groups / 4);
		MrgSort(mrg, MrgSortSrcList<float>(rec, rec[len], rec[2 * len], rec[3 * len]), info);
		Extract(val, oidx, mrg, groups);
		DataCopy(mvGm[off], val, m);
		DataCopy(miGm[off], oidx, m);

		uint16_t counts[4] = {32, 32, 0, 0};
		uint32_t sortedNum[4] = {0, 0, 0, 0};
		MrgSort<float, true>(mrg, MrgSortSrcList(rec, rec[len], rec, rec), counts, sortedNum, 3, 1);
		uint16_t lens[4] = {32, 32, 0, 0};
		MrgSort(mrg[GetSortOffset<float>(64)], MrgSortSrcList(rec[2 * len], rec[3 * len], rec, rec),
			MrgSort4Info(lens, true, 3, 1));
		uint16_t r0, r1, r2, r3;
		GetMrgSortResult(r0, r1, r2, r3);
		ex.SetValue(0, (int32_t)sortedNum[0]);
		ex.SetValue(1, (int32_t)sortedNum[1]);
		ex.SetValue(2, (int32_t)r0);
		ex.SetValue(3, (int32_t)r1);
		ex.SetValue(4, (int32_t)(r2 + r3));
		ex.SetValue(5, 0);
		ex.SetValue(6, 0);
		ex.SetValue(7, 0);
		DataCopy(exGm[s * 8], ex, 8);

		LocalTensor<half> hrec = recBuf.Get<half>(), hval = valBuf.Get<half>();
		Sort32(hrec, h, idx, groups);
		Extract(hval, oidx, hrec, groups);
		DataCopy(hvGm[off], hval, m);
		DataCopy(hiGm[off], oidx, m);
	}

	TPipe pipe;
	TBuf<QuePosition::VECCALC> xBuf, hBuf, idxBuf, recBuf, fullBuf, tmpBuf, mrgBuf, valBuf, outIdxBuf, exBuf;
	GlobalTensor<float> xGm, gvGm, fvGm, mvGm;
	GlobalTensor<half> hGm, hvGm;
	GlobalTensor<uint32_t> giGm, fiGm, miGm, hiGm;
	GlobalTensor<int32_t> exGm;
	uint32_t total, segments;
};

extern "C" __global__ __aicore__ void sort_segments(GM_ADDR x, GM_ADDR h, GM_ADDR gv, GM_ADDR gi, GM_ADDR fv, GM_ADDR fi,
						    GM_ADDR mv, GM_ADDR mi, GM_ADDR hv, GM_ADDR hi, GM_ADDR ex,
						    GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	KernelSortSegments op;
	op.Init(x, h, gv, gi, fv, fi, mv, mi, hv, hi, ex, td.total, td.segments);
	op.Process();
}
