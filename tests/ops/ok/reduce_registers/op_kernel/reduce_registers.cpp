// SPDX-License-Identifier: MIT
//
// Kernel of reduce_registers, in the style of the real norm and BLAS
// kernels: per row of 320 floats (5 repeats of 64) it writes
//   0 ReduceSum count form over the first 300 (dst[0])   1 GetAccVal<float>()
//   2 the raw GetAccVal() after a counter-mode ReduceSum<float, false>
//   3 ReduceSum mask/repeat form (5 repeats)             4 vcadd mode 1, get_acc_val()
//   5 6 GetReduceMaxMinCount after WholeReduceMax (value, index bits)
//   7 8 ReduceMax mask/repeat form with index            9 10 ReduceMin count form with index
//   11 the value half of get_max_min_cnt() after that ReduceMin
//   12..16 RepeatReduceSum per repeat   17..21 vcadd mode 0 per repeat   22 23 zero
#include "kernel_operator.h"
#include "impl/dav_c220/kernel_operator_reg_others_impl.h"

using namespace AscendC;

class KernelReduceRegisters {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR o, uint32_t rows, uint32_t rowsPerCore)
	{
		uint32_t row0 = rowsPerCore * (uint32_t)GetBlockIdx();
		nrows = rows - row0 < rowsPerCore ? rows - row0 : rowsPerCore;
		xGm.SetGlobalBuffer((__gm__ float *)x + row0 * 320, nrows * 320);
		oGm.SetGlobalBuffer((__gm__ float *)o + row0 * 24, nrows * 24);
		pipe.InitBuffer(inQueue, 2, 320 * sizeof(float));
		pipe.InitBuffer(outQueue, 2, 24 * sizeof(float));
		pipe.InitBuffer(workBuf, 320 * sizeof(float));
		pipe.InitBuffer(dstBuf, 128 * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		for (uint32_t r = 0; r < nrows; r++) {
			LocalTensor<float> x = inQueue.AllocTensor<float>();
			DataCopy(x, xGm[r * 320], 320);
			inQueue.EnQue(x);
			x = inQueue.DeQue<float>();
			LocalTensor<float> o = outQueue.AllocTensor<float>();
			Compute(x, o);
			outQueue.EnQue(o);
			inQueue.FreeTensor(x);
			o = outQueue.DeQue<float>();
			DataCopy(oGm[r * 24], o, 24);
			outQueue.FreeTensor(o);
		}
	}

private:
	__aicore__ inline void WaitV()
	{
		event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
		SetFlag<HardEvent::V_S>(e);
		WaitFlag<HardEvent::V_S>(e);
	}

	__aicore__ inline float Bits(int64_t raw)
	{
		uint32_t lo = (uint32_t)raw;
		return *reinterpret_cast<float *>(&lo);
	}

	__aicore__ inline void Compute(const LocalTensor<float> &x, const LocalTensor<float> &o)
	{
		LocalTensor<float> wk = workBuf.Get<float>();
		LocalTensor<float> d = dstBuf.Get<float>();
		ReduceSum(d, x, wk, 300);
		WaitV();
		o.SetValue(0, d.GetValue(0));
		o.SetValue(1, GetAccVal<float>());

		AscendCUtils::SetMaskCount<float>();
		SetVectorMask<float, MaskMode::COUNTER>(0, 300);
		ReduceSum<float, false>(d[8], x, wk, 1);
		SetMaskNorm();
		ResetMask();
		WaitV();
		o.SetValue(2, Bits(GetAccVal()));

		ReduceSum(d[16], x, wk, 64, 5, 8);
		vcadd((__ubuf__ float *)d[24].GetPhyAddr(), (__ubuf__ float *)x.GetPhyAddr(), 5, 1, 1, 8, true);
		vcadd((__ubuf__ float *)d[32].GetPhyAddr(), (__ubuf__ float *)x.GetPhyAddr(), 5, 1, 1, 8, false);
		WaitV();
		o.SetValue(3, d.GetValue(16));
		o.SetValue(4, Bits(get_acc_val()));
		for (int k = 0; k < 5; k++)
			o.SetValue(17 + k, d.GetValue(32 + k));

		WholeReduceMax(d[48], x, 64, 5, 1, 1, 8);
		WaitV();
		float val = 0, idx = 0;
		GetReduceMaxMinCount<float>(val, idx);
		o.SetValue(5, val);
		o.SetValue(6, idx);

		ReduceMax(d[64], x, wk, 64, 5, 8, true);
		ReduceMin(d[72], x, wk, 300, true);
		RepeatReduceSum(d[80], x, 5, 64, 0, 1, 1, 8);
		WaitV();
		o.SetValue(7, d.GetValue(64));
		o.SetValue(8, d.GetValue(65));
		o.SetValue(9, d.GetValue(72));
		o.SetValue(10, d.GetValue(73));
		o.SetValue(11, Bits(get_max_min_cnt()));
		for (int k = 0; k < 5; k++)
			o.SetValue(12 + k, d.GetValue(80 + k));
		o.SetValue(22, 0.0f);
		o.SetValue(23, 0.0f);
	}

	TPipe pipe;
	TQue<QuePosition::VECIN, 2> inQueue;
	TQue<QuePosition::VECOUT, 2> outQueue;
	TBuf<QuePosition::VECCALC> workBuf, dstBuf;
	GlobalTensor<float> xGm, oGm;
	uint32_t nrows;
};

extern "C" __global__ __aicore__ void reduce_registers(GM_ADDR x, GM_ADDR o, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelReduceRegisters op;
	op.Init(x, o, tilingData.rows, tilingData.rowsPerCore);
	op.Process();
}
