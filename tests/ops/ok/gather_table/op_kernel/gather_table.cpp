// SPDX-License-Identifier: MIT
//
// Kernel of gather_table.  Per tile of n indices (a multiple of 64):
//   y = x[idx]                    Gather, count form, byte offsets idx*4
//   z = x[idx] on even i, else -1 Gather, bit-mask form over n/64 repeats
//   r = 4*i + 7 (global i)        ArithProgression(3*g0, 3) + CreateVecIndex(g0 + 7)
//   w = 0.5*i                     ArithProgression<float>(0.5*g0, 0.5)
// and a DataCacheCleanAndInvalid of the outputs at the end.
#include "kernel_operator.h"

using namespace AscendC;

class KernelGatherTable {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR idx, GM_ADDR y, GM_ADDR z, GM_ADDR r, GM_ADDR w,
				    const GatherTableTilingData &td)
	{
		start = td.blockLength * (uint32_t)GetBlockIdx();
		length = td.total - start < td.blockLength ? td.total - start : td.blockLength;
		tableLength = td.tableLength;
		tileLength = td.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x, tableLength);
		idxGm.SetGlobalBuffer((__gm__ int32_t *)idx + start, length);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, length);
		zGm.SetGlobalBuffer((__gm__ float *)z + start, length);
		rGm.SetGlobalBuffer((__gm__ int32_t *)r + start, length);
		wGm.SetGlobalBuffer((__gm__ float *)w + start, length);
		pipe.InitBuffer(tableBuf, tableLength * sizeof(float));
		pipe.InitBuffer(idxQueue, 2, tileLength * sizeof(int32_t));
		pipe.InitBuffer(yQueue, 2, tileLength * sizeof(float));
		pipe.InitBuffer(zQueue, 2, tileLength * sizeof(float));
		pipe.InitBuffer(rQueue, 2, tileLength * sizeof(int32_t));
		pipe.InitBuffer(wQueue, 2, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(int32_t));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> table = tableBuf.Get<float>();
		DataCopy(table, xGm, tableLength);
		for (uint32_t off = 0; off < length; off += tileLength) {
			uint32_t n = length - off < tileLength ? length - off : tileLength;
			LocalTensor<int32_t> idx = idxQueue.AllocTensor<int32_t>();
			DataCopy(idx, idxGm[off], n);
			idxQueue.EnQue(idx);
			Compute(table, start + off, n);
			CopyOut(off, n);
		}
		DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yGm);
		DataCacheCleanAndInvalid<int32_t, CacheLine::ENTIRE_DATA_CACHE>(rGm);
	}

private:
	__aicore__ inline void Compute(const LocalTensor<float> &table, uint32_t g0, uint32_t n)
	{
		LocalTensor<int32_t> idx = idxQueue.DeQue<int32_t>();
		LocalTensor<float> y = yQueue.AllocTensor<float>();
		LocalTensor<float> z = zQueue.AllocTensor<float>();
		LocalTensor<int32_t> r = rQueue.AllocTensor<int32_t>();
		LocalTensor<float> w = wQueue.AllocTensor<float>();
		LocalTensor<int32_t> tmp = tmpBuf.Get<int32_t>();
		Muls(idx, idx, (int32_t)sizeof(float), (int32_t)n);
		LocalTensor<uint32_t> offsets = idx.ReinterpretCast<uint32_t>();
		Gather(y, table, offsets, (uint32_t)0, n);
		Duplicate(z, -1.0f, (int32_t)n);
		uint64_t even[2] = {0x5555555555555555ULL, 0};
		Gather(z, table, offsets, (uint32_t)0, even, (uint8_t)(n / 64), (uint16_t)8);
		ArithProgression<int32_t>(r, (int32_t)(3 * g0), 3, (int32_t)n);
		CreateVecIndex(tmp, (int32_t)(g0 + 7), n);
		Add(r, r, tmp, (int32_t)n);
		ArithProgression<float>(w, 0.5f * (float)g0, 0.5f, (int32_t)n);
		idxQueue.FreeTensor(idx);
		yQueue.EnQue(y);
		zQueue.EnQue(z);
		rQueue.EnQue(r);
		wQueue.EnQue(w);
	}

	__aicore__ inline void CopyOut(uint32_t off, uint32_t n)
	{
		LocalTensor<float> y = yQueue.DeQue<float>();
		LocalTensor<float> z = zQueue.DeQue<float>();
		LocalTensor<int32_t> r = rQueue.DeQue<int32_t>();
		LocalTensor<float> w = wQueue.DeQue<float>();
		DataCopy(yGm[off], y, n);
		DataCopy(zGm[off], z, n);
		DataCopy(rGm[off], r, n);
		DataCopy(wGm[off], w, n);
		yQueue.FreeTensor(y);
		zQueue.FreeTensor(z);
		rQueue.FreeTensor(r);
		wQueue.FreeTensor(w);
	}

	TPipe pipe;
	TBuf<QuePosition::VECCALC> tableBuf, tmpBuf;
	TQue<QuePosition::VECIN, 2> idxQueue;
	TQue<QuePosition::VECOUT, 2> yQueue, zQueue, rQueue, wQueue;
	GlobalTensor<float> xGm, yGm, zGm, wGm;
	GlobalTensor<int32_t> idxGm, rGm;
	uint32_t start, length, tableLength, tileLength;
};

extern "C" __global__ __aicore__ void gather_table(GM_ADDR x, GM_ADDR idx, GM_ADDR y, GM_ADDR z, GM_ADDR r, GM_ADDR w,
						   GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	KernelGatherTable op;
	op.Init(x, idx, y, z, r, w, td);
	op.Process();
}
