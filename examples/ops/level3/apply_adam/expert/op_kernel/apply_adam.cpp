// SPDX-License-Identifier: MIT
//
// Hand-optimised kernel of apply_adam: one Adam step,
//   m' = beta1 * m + (1 - beta1) * g
//   v' = beta2 * v + (1 - beta2) * g * g
//   param' = param - stepSize * m' / (sqrt(v' * invBiasCorrection2) + epsilon)
// Balanced split over all vector cores, every queue double-buffered with
// the largest tiles the UB holds, plain DataCopy for whole 32-byte blocks
// (DataCopyPad only for a final partial block), results computed straight
// into the output buffers with one temporary, data streamed past L2, and
// an AIV-only launch.
#include "kernel_operator.h"
#include "../op_host/apply_adam_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelApplyAdam {
public:
	__aicore__ inline KernelApplyAdam() {}
	__aicore__ inline void Init(GM_ADDR param, GM_ADDR grad, GM_ADDR m, GM_ADDR v, GM_ADDR paramOut, GM_ADDR mOut,
				    GM_ADDR vOut, const ApplyAdamTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		uint64_t offset;
		if (coreIdx < tiling.bigCores) {
			length = tiling.baseLength + 128;
			offset = (uint64_t)coreIdx * length;
		} else {
			length = tiling.baseLength;
			offset = (uint64_t)tiling.bigCores * 128 + (uint64_t)coreIdx * tiling.baseLength;
		}
		if (coreIdx == GetBlockNum() - 1)
			length = tiling.totalLength - (uint32_t)offset;
		tileLength = tiling.tileLength;
		GlobalTensor<float> *gms[7] = {&paramGm, &gradGm, &mGm, &vGm, &paramOutGm, &mOutGm, &vOutGm};
		GM_ADDR addrs[7] = {param, grad, m, v, paramOut, mOut, vOut};
		for (int i = 0; i < 7; i++) {
			gms[i]->SetGlobalBuffer((__gm__ float *)addrs[i] + offset, length);
			gms[i]->SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
		}
		uint32_t bytes = tileLength * sizeof(float);
		pipe.InitBuffer(inQueueParam, BUFFER_NUM, bytes);
		pipe.InitBuffer(inQueueGrad, BUFFER_NUM, bytes);
		pipe.InitBuffer(inQueueM, BUFFER_NUM, bytes);
		pipe.InitBuffer(inQueueV, BUFFER_NUM, bytes);
		pipe.InitBuffer(outQueueParam, BUFFER_NUM, bytes);
		pipe.InitBuffer(outQueueM, BUFFER_NUM, bytes);
		pipe.InitBuffer(outQueueV, BUFFER_NUM, bytes);
		pipe.InitBuffer(tmpBuf, bytes);
		beta1 = tiling.beta1;
		oneMinusBeta1 = tiling.oneMinusBeta1;
		beta2 = tiling.beta2;
		oneMinusBeta2 = tiling.oneMinusBeta2;
		epsilon = tiling.epsilon;
		stepSize = tiling.stepSize;
		invBiasCorrection2 = tiling.invBiasCorrection2;
	}

	__aicore__ inline void Process()
	{
		uint32_t tileNum = (length + tileLength - 1) / tileLength;
		for (uint32_t i = 0; i < tileNum; i++) {
			uint32_t n = (i == tileNum - 1) ? length - i * tileLength : tileLength;
			CopyIn(i, n);
			Compute(n);
			CopyOut(i, n);
		}
	}

private:
	__aicore__ inline void Load(const LocalTensor<float> &dst, const GlobalTensor<float> &src, uint32_t n)
	{
		if (n % 8 == 0)
			DataCopy(dst, src, n);
		else
			DataCopyPad(dst, src, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
				    DataCopyPadExtParams<float>(false, 0, 0, 0));
	}

	__aicore__ inline void Store(const GlobalTensor<float> &dst, const LocalTensor<float> &src, uint32_t n)
	{
		if (n % 8 == 0)
			DataCopy(dst, src, n);
		else
			DataCopyPad(dst, src, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
	}

	__aicore__ inline void CopyIn(uint32_t i, uint32_t n)
	{
		uint64_t offset = (uint64_t)i * tileLength;
		LocalTensor<float> gLocal = inQueueGrad.AllocTensor<float>();
		Load(gLocal, gradGm[offset], n);
		inQueueGrad.EnQue(gLocal);
		LocalTensor<float> mLocal = inQueueM.AllocTensor<float>();
		Load(mLocal, mGm[offset], n);
		inQueueM.EnQue(mLocal);
		LocalTensor<float> vLocal = inQueueV.AllocTensor<float>();
		Load(vLocal, vGm[offset], n);
		inQueueV.EnQue(vLocal);
		LocalTensor<float> pLocal = inQueueParam.AllocTensor<float>();
		Load(pLocal, paramGm[offset], n);
		inQueueParam.EnQue(pLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> t = tmpBuf.Get<float>();
		LocalTensor<float> gLocal = inQueueGrad.DeQue<float>();
		LocalTensor<float> mLocal = inQueueM.DeQue<float>();
		LocalTensor<float> mOut = outQueueM.AllocTensor<float>();
		Muls(mOut, mLocal, beta1, n);
		Axpy(mOut, gLocal, oneMinusBeta1, n);
		inQueueM.FreeTensor(mLocal);

		LocalTensor<float> vLocal = inQueueV.DeQue<float>();
		LocalTensor<float> vOut = outQueueV.AllocTensor<float>();
		Mul(t, gLocal, gLocal, n);
		Muls(vOut, vLocal, beta2, n);
		Axpy(vOut, t, oneMinusBeta2, n);
		inQueueV.FreeTensor(vLocal);
		inQueueGrad.FreeTensor(gLocal);

		LocalTensor<float> pLocal = inQueueParam.DeQue<float>();
		LocalTensor<float> pOut = outQueueParam.AllocTensor<float>();
		Muls(t, vOut, invBiasCorrection2, n);
		Sqrt(t, t, n);
		Adds(t, t, epsilon, n);
		Div(t, mOut, t, n);
		Muls(t, t, -stepSize, n);
		Add(pOut, pLocal, t, n);
		inQueueParam.FreeTensor(pLocal);
		outQueueM.EnQue(mOut);
		outQueueV.EnQue(vOut);
		outQueueParam.EnQue(pOut);
	}

	__aicore__ inline void CopyOut(uint32_t i, uint32_t n)
	{
		uint64_t offset = (uint64_t)i * tileLength;
		LocalTensor<float> mOut = outQueueM.DeQue<float>();
		Store(mOutGm[offset], mOut, n);
		outQueueM.FreeTensor(mOut);
		LocalTensor<float> vOut = outQueueV.DeQue<float>();
		Store(vOutGm[offset], vOut, n);
		outQueueV.FreeTensor(vOut);
		LocalTensor<float> pOut = outQueueParam.DeQue<float>();
		Store(paramOutGm[offset], pOut, n);
		outQueueParam.FreeTensor(pOut);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueParam, inQueueGrad, inQueueM, inQueueV;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueParam, outQueueM, outQueueV;
	TBuf<QuePosition::VECCALC> tmpBuf;
	GlobalTensor<float> paramGm, gradGm, mGm, vGm, paramOutGm, mOutGm, vOutGm;
	uint32_t length = 0;
	uint32_t tileLength = 0;
	float beta1 = 0, oneMinusBeta1 = 0, beta2 = 0, oneMinusBeta2 = 0, epsilon = 0;
	float stepSize = 0, invBiasCorrection2 = 0;
};

extern "C" __global__ __aicore__ void apply_adam(GM_ADDR param, GM_ADDR grad, GM_ADDR m, GM_ADDR v, GM_ADDR paramOut,
						  GM_ADDR mOut, GM_ADDR vOut, GM_ADDR workspace, GM_ADDR tiling)
{
	KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
	REGISTER_TILING_DEFAULT(ApplyAdamTilingData);
	GET_TILING_DATA_WITH_STRUCT(ApplyAdamTilingData, tilingData, tiling);
	KernelApplyAdam op;
	op.Init(param, grad, m, v, paramOut, mOut, vOut, tilingData);
	op.Process();
}
