// SPDX-License-Identifier: MIT
//
// Kernel of isamax.  Each core walks its chunk in tiles through one buffer:
// Abs and ReduceMax with its index over the whole 64-element repeats of the
// tile, and a scalar loop over the elements left over.  A strictly larger
// value replaces the running best, so the first occurrence wins.  The
// core's (value, index) pair goes to the user workspace; after SyncAll core
// 0 compares the pairs in core order and writes the index.
#include "kernel_operator.h"

using namespace AscendC;

class KernelIsamax {
public:
	__aicore__ inline KernelIsamax() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, const IsamaxTilingData &t)
	{
		blockIdx = GetBlockIdx();
		blockNum = GetBlockNum();
		start = blockIdx * t.blockLength;
		length = t.totalLength - start < t.blockLength ? t.totalLength - start : t.blockLength;
		tileLength = t.tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, length);
		yGm.SetGlobalBuffer((__gm__ int32_t *)y, 1);
		wsGm.SetGlobalBuffer((__gm__ float *)GetUserWorkspace(workspace), blockNum * 8);
		pipe.InitBuffer(inQueue, 1, tileLength * sizeof(float));
		pipe.InitBuffer(absBuf, tileLength * sizeof(float));
		pipe.InitBuffer(workBuf, (tileLength / 64 + 8) * sizeof(float));
		pipe.InitBuffer(redBuf, 32);
		pipe.InitBuffer(allBuf, blockNum * 32);
		pipe.InitBuffer(outBuf, 32);
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> absLocal = absBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = redBuf.Get<float>();
		float bestVal = -1.0f;
		uint32_t bestIdx = 0;
		for (uint32_t off = 0; off < length; off += tileLength) {
			uint32_t n = length - off < tileLength ? length - off : tileLength;
			LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
			if (n % 8 == 0) {
				DataCopy(xLocal, xGm[off], n);
			} else {
				DataCopyExtParams params{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};
				DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
				DataCopyPad(xLocal, xGm[off], params, pad);
			}
			inQueue.EnQue(xLocal);
			xLocal = inQueue.DeQue<float>();
			uint32_t vecLen = n / 64 * 64;
			if (vecLen > 0) {
				Abs(absLocal, xLocal, vecLen);
				PipeBarrier<PIPE_V>();
				ReduceMax(red, absLocal, work, vecLen, true);
				float v = red.GetValue(0);
				float idxBits = red.GetValue(1);
				if (v > bestVal) {
					bestVal = v;
					bestIdx = start + off + *reinterpret_cast<uint32_t *>(&idxBits);
				}
			}
			for (uint32_t k = vecLen; k < n; k++) {
				float v = xLocal.GetValue(k);
				if (v < 0)
					v = -v;
				if (v > bestVal) {
					bestVal = v;
					bestIdx = start + off + k;
				}
			}
			inQueue.FreeTensor(xLocal);
		}
		red.SetValue(0, bestVal);
		red.SetValue(1, *reinterpret_cast<float *>(&bestIdx));
		DataCopy(wsGm[blockIdx * 8], red, 8);

		SyncAll();

		if (blockIdx != 0)
			return;
		LocalTensor<float> all = allBuf.Get<float>();
		DataCopy(all, wsGm, blockNum * 8);
		float best = -1.0f;
		uint32_t idx = 0;
		for (uint32_t c = 0; c < blockNum; c++) {
			float v = all.GetValue(c * 8);
			if (v > best) {
				best = v;
				float idxBits = all.GetValue(c * 8 + 1);
				idx = *reinterpret_cast<uint32_t *>(&idxBits);
			}
		}
		LocalTensor<int32_t> out = outBuf.Get<int32_t>();
		out.SetValue(0, (int32_t)idx);
		DataCopyExtParams outParams{1, sizeof(int32_t), 0, 0, 0};
		DataCopyPad(yGm, out, outParams);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> inQueue;
	TBuf<QuePosition::VECCALC> absBuf, workBuf, redBuf, allBuf, outBuf;
	GlobalTensor<float> xGm, wsGm;
	GlobalTensor<int32_t> yGm;
	uint32_t blockIdx, blockNum, start, length, tileLength;
};

extern "C" __global__ __aicore__ void isamax(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelIsamax op;
	op.Init(x, y, workspace, tilingData);
	op.Process();
}
