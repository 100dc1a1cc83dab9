// SPDX-License-Identifier: MIT
//
// Kernel of group_norm_silu.  For every (n, g) group of cpg channels:
//   mean = E[x],  rstd = 1 / sqrt(E[x^2] - mean^2 + epsilon)
//   y = silu((x - mean) * rstd * gamma[c] + beta[c]),  silu(v) = v / (1 + exp(-v))
// Each core takes a run of groups.  A first pass streams the group through
// the UB tile by tile and accumulates the sum and the sum of squares with
// ReduceSum, read back by the scalar unit; a second pass reads the group
// again channel by channel, applies the per-channel scale and shift and the
// silu chain, and writes y.  mean and rstd are gathered with SetValue and
// written once at the end.
#include "kernel_operator.h"
#include "../op_host/group_norm_silu_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelGroupNormSilu {
public:
	__aicore__ inline KernelGroupNormSilu() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR mean, GM_ADDR rstd,
				    const GroupNormSiluTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		channels = tiling.channels;
		spatial = tiling.spatial;
		groups = tiling.groups;
		cpg = tiling.channelsPerGroup;
		tileLength = tiling.tileLength;
		epsilon = tiling.epsilon;
		groupStart = coreIdx * tiling.groupsPerCore;
		groupCount = (coreIdx == GetBlockNum() - 1) ? tiling.lastCoreGroups : tiling.groupsPerCore;
		uint64_t groupElems = (uint64_t)cpg * spatial;
		xGm.SetGlobalBuffer((__gm__ half *)x + groupStart * groupElems, groupCount * groupElems);
		yGm.SetGlobalBuffer((__gm__ half *)y + groupStart * groupElems, groupCount * groupElems);
		meanGm.SetGlobalBuffer((__gm__ half *)mean + groupStart, groupCount);
		rstdGm.SetGlobalBuffer((__gm__ half *)rstd + groupStart, groupCount);
		gammaGm.SetGlobalBuffer((__gm__ half *)gamma, channels);
		betaGm.SetGlobalBuffer((__gm__ half *)beta, channels);

		uint32_t chAligned = (channels + 15) / 16 * 16;
		uint32_t statAligned = (tiling.groupsPerCore + 15) / 16 * 16;
		pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
		pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(half));
		pipe.InitBuffer(xBuf, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf, tileLength * sizeof(float));
		pipe.InitBuffer(workBuf, tileLength * sizeof(float));
		pipe.InitBuffer(reduceBuf, 32);
		pipe.InitBuffer(paramHalfBuf, chAligned * sizeof(half));
		pipe.InitBuffer(gammaBuf, chAligned * sizeof(float));
		pipe.InitBuffer(betaBuf, chAligned * sizeof(float));
		pipe.InitBuffer(meanBuf, statAligned * sizeof(half));
		pipe.InitBuffer(rstdBuf, statAligned * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		LoadAffine();
		LocalTensor<half> meanLocal = meanBuf.Get<half>();
		LocalTensor<half> rstdLocal = rstdBuf.Get<half>();
		for (uint32_t i = 0; i < groupCount; i++) {
			uint32_t g = (groupStart + i) % groups;
			uint64_t base = (uint64_t)i * cpg * spatial;
			float mean, rstd;
			Statistics(base, mean, rstd);
			meanLocal.SetValue(i, (half)mean);
			rstdLocal.SetValue(i, (half)rstd);
			for (uint32_t c = 0; c < cpg; c++) {
				uint32_t ch = g * cpg + c;
				float scale = gammaBuf.Get<float>().GetValue(ch) * rstd;
				float shift = betaBuf.Get<float>().GetValue(ch) - mean * scale;
				Normalize(base + (uint64_t)c * spatial, scale, shift);
			}
		}
		PipeBarrier<PIPE_ALL>();
		DataCopyPad(meanGm, meanLocal, DataCopyExtParams(1, groupCount * sizeof(half), 0, 0, 0));
		DataCopyPad(rstdGm, rstdLocal, DataCopyExtParams(1, groupCount * sizeof(half), 0, 0, 0));
	}

private:
	__aicore__ inline void LoadAffine()
	{
		LocalTensor<half> p = paramHalfBuf.Get<half>();
		DataCopyExtParams params(1, channels * sizeof(half), 0, 0, 0);
		DataCopyPadExtParams<half> pad(false, 0, 0, 0);
		DataCopyPad(p, gammaGm, params, pad);
		PipeBarrier<PIPE_ALL>();
		Cast(gammaBuf.Get<float>(), p, RoundMode::CAST_NONE, channels);
		PipeBarrier<PIPE_ALL>();
		DataCopyPad(p, betaGm, params, pad);
		PipeBarrier<PIPE_ALL>();
		Cast(betaBuf.Get<float>(), p, RoundMode::CAST_NONE, channels);
		PipeBarrier<PIPE_ALL>();
	}

	__aicore__ inline void Statistics(uint64_t base, float &mean, float &rstd)
	{
		LocalTensor<float> xf = xBuf.Get<float>();
		LocalTensor<float> sq = tmpBuf.Get<float>();
		LocalTensor<float> work = workBuf.Get<float>();
		LocalTensor<float> red = reduceBuf.Get<float>();
		uint64_t count = (uint64_t)cpg * spatial;
		float sum = 0.0f, sumSq = 0.0f;
		for (uint64_t off = 0; off < count; off += tileLength) {
			uint32_t n = (count - off < tileLength) ? (uint32_t)(count - off) : tileLength;
			LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
			DataCopyPad(xLocal, xGm[base + off], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
				    DataCopyPadExtParams<half>(false, 0, 0, 0));
			inQueueX.EnQue(xLocal);
			xLocal = inQueueX.DeQue<half>();
			Cast(xf, xLocal, RoundMode::CAST_NONE, n);
			inQueueX.FreeTensor(xLocal);
			PipeBarrier<PIPE_V>();
			Mul(sq, xf, xf, n);
			ReduceSum(red, xf, work, n);
			PipeBarrier<PIPE_ALL>();
			sum += red.GetValue(0);
			ReduceSum(red, sq, work, n);
			PipeBarrier<PIPE_ALL>();
			sumSq += red.GetValue(0);
		}
		mean = sum / (float)count;
		float var = sumSq / (float)count - mean * mean;
		if (var < 0.0f)
			var = 0.0f;
		Duplicate(red, var + epsilon, 8);
		PipeBarrier<PIPE_V>();
		Sqrt(red, red, 8);
		PipeBarrier<PIPE_ALL>();
		rstd = 1.0f / red.GetValue(0);
	}

	__aicore__ inline void Normalize(uint64_t base, float scale, float shift)
	{
		LocalTensor<float> v = xBuf.Get<float>();
		LocalTensor<float> t = tmpBuf.Get<float>();
		for (uint32_t off = 0; off < spatial; off += tileLength) {
			uint32_t n = (spatial - off < tileLength) ? spatial - off : tileLength;
			LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
			DataCopyPad(xLocal, xGm[base + off], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
				    DataCopyPadExtParams<half>(false, 0, 0, 0));
			inQueueX.EnQue(xLocal);
			xLocal = inQueueX.DeQue<half>();
			LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
			Cast(v, xLocal, RoundMode::CAST_NONE, n);
			PipeBarrier<PIPE_V>();
			Muls(v, v, scale, n);
			PipeBarrier<PIPE_V>();
			Adds(v, v, shift, n);
			PipeBarrier<PIPE_V>();
			Muls(t, v, -1.0f, n);
			PipeBarrier<PIPE_V>();
			Exp(t, t, n);
			PipeBarrier<PIPE_V>();
			Adds(t, t, 1.0f, n);
			PipeBarrier<PIPE_V>();
			Div(v, v, t, n);
			PipeBarrier<PIPE_V>();
			Cast(yLocal, v, RoundMode::CAST_RINT, n);
			outQueueY.EnQue(yLocal);
			inQueueX.FreeTensor(xLocal);
			yLocal = outQueueY.DeQue<half>();
			DataCopyPad(yGm[base + off], yLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
			outQueueY.FreeTensor(yLocal);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
	TBuf<QuePosition::VECCALC> xBuf, tmpBuf, workBuf, reduceBuf, paramHalfBuf, gammaBuf, betaBuf, meanBuf, rstdBuf;
	GlobalTensor<half> xGm, yGm, meanGm, rstdGm, gammaGm, betaGm;
	uint32_t channels = 0, spatial = 0, groups = 0, cpg = 0, tileLength = 0;
	uint32_t groupStart = 0, groupCount = 0;
	float epsilon = 0.0f;
};

extern "C" __global__ __aicore__ void group_norm_silu(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y, GM_ADDR mean,
						      GM_ADDR rstd, GM_ADDR workspace, GM_ADDR tiling)
{
	REGISTER_TILING_DEFAULT(GroupNormSiluTilingData);
	GET_TILING_DATA_WITH_STRUCT(GroupNormSiluTilingData, tilingData, tiling);
	KernelGroupNormSilu op;
	op.Init(x, gamma, beta, y, mean, rstd, tilingData);
	op.Process();
}
