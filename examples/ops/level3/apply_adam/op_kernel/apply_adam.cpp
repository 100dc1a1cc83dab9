// SPDX-License-Identifier: MIT
//
// Kernel of apply_adam: one Adam step,
//   m' = beta1 * m + (1 - beta1) * g
//   v' = beta2 * v + (1 - beta2) * g * g
//   param' = param - lr / (1 - beta1^step) * m' / (sqrt(v' / (1 - beta2^step)) + epsilon)
// Each core walks its elements in tiles: the four inputs come in with
// DataCopyPad, the update runs as a chain of vector instructions through two
// temporaries, and the three results go out with DataCopyPad.  The bias
// corrections are computed per core by a scalar loop over step.
#include "kernel_operator.h"
#include "../op_host/apply_adam_tiling.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 1;

class KernelApplyAdam {
public:
	__aicore__ inline KernelApplyAdam() {}
	__aicore__ inline void Init(GM_ADDR param, GM_ADDR grad, GM_ADDR m, GM_ADDR v, GM_ADDR paramOut, GM_ADDR mOut,
				    GM_ADDR vOut, const ApplyAdamTilingData &tiling)
	{
		uint32_t coreIdx = GetBlockIdx();
		uint64_t offset = (uint64_t)coreIdx * tiling.blockLength;
		length = (coreIdx == GetBlockNum() - 1) ? tiling.lastLength : tiling.blockLength;
		tileLength = tiling.tileLength;
		paramGm.SetGlobalBuffer((__gm__ float *)param + offset, length);
		gradGm.SetGlobalBuffer((__gm__ float *)grad + offset, length);
		mGm.SetGlobalBuffer((__gm__ float *)m + offset, length);
		vGm.SetGlobalBuffer((__gm__ float *)v + offset, length);
		paramOutGm.SetGlobalBuffer((__gm__ float *)paramOut + offset, length);
		mOutGm.SetGlobalBuffer((__gm__ float *)mOut + offset, length);
		vOutGm.SetGlobalBuffer((__gm__ float *)vOut + offset, length);
		pipe.InitBuffer(inQueueParam, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(inQueueGrad, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(inQueueM, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(inQueueV, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(outQueueParam, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(outQueueM, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(outQueueV, BUFFER_NUM, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf1, tileLength * sizeof(float));
		pipe.InitBuffer(tmpBuf2, tileLength * sizeof(float));

		lr = tiling.lr;
		beta1 = tiling.beta1;
		beta2 = tiling.beta2;
		epsilon = tiling.epsilon;
		float beta1Power = 1.0f;
		float beta2Power = 1.0f;
		for (int32_t i = 0; i < tiling.step; i++) {
			beta1Power = beta1Power * beta1;
			beta2Power = beta2Power * beta2;
		}
		stepSize = lr / (1.0f - beta1Power);
		invBiasCorrection2 = 1.0f / (1.0f - beta2Power);
	}

	__aicore__ inline void Process()
	{
		uint32_t tileNum = (length + tileLength - 1) / tileLength;
		for (uint32_t i = 0; i < tileNum; i++) {
			uint32_t n = (i == tileNum - 1) ? length - i * tileLength : tileLength;
			CopyIn(i, n);
			Compute(n);
			CopyOut(i, n);
			PipeBarrier<PIPE_ALL>();
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t i, uint32_t n)
	{
		LocalTensor<float> pLocal = inQueueParam.AllocTensor<float>();
		LocalTensor<float> gLocal = inQueueGrad.AllocTensor<float>();
		LocalTensor<float> mLocal = inQueueM.AllocTensor<float>();
		LocalTensor<float> vLocal = inQueueV.AllocTensor<float>();
		DataCopyExtParams params(1, n * sizeof(float), 0, 0, 0);
		DataCopyPadExtParams<float> pad(false, 0, 0, 0);
		uint64_t offset = (uint64_t)i * tileLength;
		DataCopyPad(pLocal, paramGm[offset], params, pad);
		DataCopyPad(gLocal, gradGm[offset], params, pad);
		DataCopyPad(mLocal, mGm[offset], params, pad);
		DataCopyPad(vLocal, vGm[offset], params, pad);
		inQueueParam.EnQue(pLocal);
		inQueueGrad.EnQue(gLocal);
		inQueueM.EnQue(mLocal);
		inQueueV.EnQue(vLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> pLocal = inQueueParam.DeQue<float>();
		LocalTensor<float> gLocal = inQueueGrad.DeQue<float>();
		LocalTensor<float> mLocal = inQueueM.DeQue<float>();
		LocalTensor<float> vLocal = inQueueV.DeQue<float>();
		LocalTensor<float> pOut = outQueueParam.AllocTensor<float>();
		LocalTensor<float> mOut = outQueueM.AllocTensor<float>();
		LocalTensor<float> vOut = outQueueV.AllocTensor<float>();
		LocalTensor<float> t1 = tmpBuf1.Get<float>();
		LocalTensor<float> t2 = tmpBuf2.Get<float>();

		// m' = beta1 * m + (1 - beta1) * g
		Muls(t1, mLocal, beta1, n);
		Muls(t2, gLocal, 1.0f - beta1, n);
		PipeBarrier<PIPE_V>();
		Add(mOut, t1, t2, n);
		// v' = beta2 * v + (1 - beta2) * g * g
		Mul(t1, gLocal, gLocal, n);
		PipeBarrier<PIPE_V>();
		Muls(t1, t1, 1.0f - beta2, n);
		Muls(t2, vLocal, beta2, n);
		PipeBarrier<PIPE_V>();
		Add(vOut, t1, t2, n);
		PipeBarrier<PIPE_V>();
		// param' = param - stepSize * m' / (sqrt(v' / bc2) + eps)
		Muls(t1, vOut, invBiasCorrection2, n);
		PipeBarrier<PIPE_V>();
		Sqrt(t1, t1, n);
		PipeBarrier<PIPE_V>();
		Adds(t1, t1, epsilon, n);
		PipeBarrier<PIPE_V>();
		Div(t2, mOut, t1, n);
		PipeBarrier<PIPE_V>();
		Muls(t2, t2, stepSize, n);
		PipeBarrier<PIPE_V>();
		Sub(pOut, pLocal, t2, n);

		outQueueParam.EnQue(pOut);
		outQueueM.EnQue(mOut);
		outQueueV.EnQue(vOut);
		inQueueParam.FreeTensor(pLocal);
		inQueueGrad.FreeTensor(gLocal);
		inQueueM.FreeTensor(mLocal);
		inQueueV.FreeTensor(vLocal);
	}

	__aicore__ inline void CopyOut(uint32_t i, uint32_t n)
	{
		LocalTensor<float> pOut = outQueueParam.DeQue<float>();
		LocalTensor<float> mOut = outQueueM.DeQue<float>();
		LocalTensor<float> vOut = outQueueV.DeQue<float>();
		DataCopyExtParams params(1, n * sizeof(float), 0, 0, 0);
		uint64_t offset = (uint64_t)i * tileLength;
		DataCopyPad(paramOutGm[offset], pOut, params);
		DataCopyPad(mOutGm[offset], mOut, params);
		DataCopyPad(vOutGm[offset], vOut, params);
		outQueueParam.FreeTensor(pOut);
		outQueueM.FreeTensor(mOut);
		outQueueV.FreeTensor(vOut);
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inQueueParam, inQueueGrad, inQueueM, inQueueV;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueParam, outQueueM, outQueueV;
	TBuf<QuePosition::VECCALC> tmpBuf1, tmpBuf2;
	GlobalTensor<float> paramGm, gradGm, mGm, vGm, paramOutGm, mOutGm, vOutGm;
	uint32_t length = 0;
	uint32_t tileLength = 0;
	float lr = 0, beta1 = 0, beta2 = 0, epsilon = 0;
	float stepSize = 0, invBiasCorrection2 = 0;
};

extern "C" __global__ __aicore__ void apply_adam(GM_ADDR param, GM_ADDR grad, GM_ADDR m, GM_ADDR v, GM_ADDR paramOut,
						  GM_ADDR mOut, GM_ADDR vOut, GM_ADDR workspace, GM_ADDR tiling)
{
	REGISTER_TILING_DEFAULT(ApplyAdamTilingData);
	GET_TILING_DATA_WITH_STRUCT(ApplyAdamTilingData, tilingData, tiling);
	KernelApplyAdam op;
	op.Init(param, grad, m, v, paramOut, mOut, vOut, tilingData);
	op.Process();
}
