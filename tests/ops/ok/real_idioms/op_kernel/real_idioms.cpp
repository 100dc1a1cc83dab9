// SPDX-License-Identifier: MIT
//
// Kernel of real_idioms, written with idioms of CANN's own vector operators
// that the simulator once refused although they run on Atlas A2:
//   - its buffers take the whole 192 KiB UB (two 64 KiB queues and a 64 KiB
//     TBuf), as circular_pad and add_rms_norm_cast do;
//   - the last chunk is read as whole 512-byte blocks, past the tensor's end
//     but inside the allocation the caching allocator hands out (equal);
//   - Compare writes its bit mask into a uint16_t tensor and Select reads it
//     as int8_t (adaptive_max_pool3d, equal);
//   - InitGlobalMemory clears a bfloat16 output (reflection_pad3d_grad);
//   - it includes kernel_operator_intf.h and names int4b_t (dynamic_quant).
// y = x > 0 ? x : 0, z = 1.5.
#include "kernel_operator.h"
#include "kernel_operator_intf.h"

using namespace AscendC;

constexpr uint32_t CHUNK = 16384; /* floats: 64 KiB */
constexpr uint32_t REPEAT = 64;   /* floats per 256-byte repeat */

template <class Out> class KernelRealIdioms {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n)
	{
		this->n = n;
		xGm.SetGlobalBuffer((__gm__ float *)x, n);
		yGm.SetGlobalBuffer((__gm__ float *)y, n);
		zGm.SetGlobalBuffer((__gm__ Out *)z, n);
		pipe.InitBuffer(xQueue, 1, CHUNK * sizeof(float));
		pipe.InitBuffer(yQueue, 1, CHUNK * sizeof(float));
		pipe.InitBuffer(maskBuf, 192 * 1024 - 2 * CHUNK * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		if constexpr (IsSameType<Out, int4b_t>::value)
			return; /* never: z is bfloat16 */
		InitGlobalMemory(zGm, n, (Out)1.5f);
		for (uint32_t at = 0; at < n; at += CHUNK) {
			uint32_t len = n - at < CHUNK ? n - at : CHUNK;
			uint32_t whole = (len + 127) / 128 * 128; /* 512-byte blocks */
			LocalTensor<float> x = xQueue.AllocTensor<float>();
			DataCopy(x, xGm[at], whole);
			xQueue.EnQue(x);
			x = xQueue.DeQue<float>();
			LocalTensor<float> y = yQueue.AllocTensor<float>();
			LocalTensor<uint16_t> mask = maskBuf.Get<uint16_t>();
			uint32_t counted = (whole + REPEAT - 1) / REPEAT * REPEAT;
			Duplicate(y, 0.0f, counted);
			PipeBarrier<PIPE_V>();
			Compare(mask, x, y, CMPMODE::GT, counted);
			PipeBarrier<PIPE_V>();
			Select(y, mask.ReinterpretCast<int8_t>(), x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, counted);
			xQueue.FreeTensor(x);
			yQueue.EnQue(y);
			y = yQueue.DeQue<float>();
			DataCopyExtParams out{1, len * (uint32_t)sizeof(float), 0, 0, 0};
			DataCopyPad(yGm[at], y, out);
			yQueue.FreeTensor(y);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> xQueue;
	TQue<QuePosition::VECOUT, 1> yQueue;
	TBuf<QuePosition::VECCALC> maskBuf;
	GlobalTensor<float> xGm, yGm;
	GlobalTensor<Out> zGm;
	uint32_t n;
};

extern "C" __global__ __aicore__ void real_idioms(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelRealIdioms<bfloat16_t> op;
	op.Init(x, y, z, tilingData.n);
	op.Process();
}
