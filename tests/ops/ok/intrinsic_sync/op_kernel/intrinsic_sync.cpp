// SPDX-License-Identifier: MIT
//
// Kernel of intrinsic_sync, written the way older real kernels are: the
// pipes are ordered with the set_flag/wait_flag/pipe_barrier intrinsics
// (the manifest turns auto sync off, so a missing one is a race), the rows
// are split with DivCeil/AlignUp over block_idx/block_num, the row buffer
// comes from TBuf::AllocTensor/FreeTensor, the per-row results gather in
// the PopStackBuffer space, the pad value is GetScalarBitcodeValue's, and
// the row output is cleared first with InitOutput.
#include "kernel_operator.h"
#include "kernel_utils.h"
#include "kernel_log.h"

using namespace AscendC;

class KernelIntrinsicSync {
public:
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR z, GM_ADDR f, uint32_t rows, uint32_t cols)
	{
		uint32_t per = DivCeil(rows, (uint32_t)block_num);
		uint32_t row0 = per * (uint32_t)block_idx;
		nrows = row0 >= rows ? 0 : (rows - row0 < per ? rows - row0 : per);
		this->cols = cols;
		colsAligned = AlignUp(cols, AscendCUtils::GetC0Count(sizeof(float)));
		xGm.SetGlobalBuffer((__gm__ float *)x + (uint64_t)row0 * cols, (uint64_t)nrows * cols);
		zGm.SetGlobalBuffer((__gm__ float *)z + (uint64_t)row0 * cols, (uint64_t)nrows * cols);
		fGm.SetGlobalBuffer((__gm__ float *)f + row0, nrows);
		InitOutput(fGm, nrows, -1.0f);
		pipe.InitBuffer(rowBuf, colsAligned * sizeof(float));
	}

	__aicore__ inline void Process()
	{
		LocalTensor<float> firsts;
		PopStackBuffer<float, TPosition::VECCALC>(firsts);
		for (uint32_t r = 0; r < nrows; r++) {
			LocalTensor<float> t = rowBuf.AllocTensor<float>();
			DataCopyParams in{1, (uint16_t)(cols * sizeof(float)), 0, 0};
			DataCopyPadParams pad{true, 0, (uint8_t)(colsAligned - cols), GetScalarBitcodeValue(0.0f)};
			DataCopyPad(t, xGm[(uint64_t)r * cols], in, pad);
			set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
			wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
			Muls(t, t, 2.0f, colsAligned);
			pipe_barrier(PIPE_V);
			Adds(t, t, 1.0f, colsAligned);
			set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
			set_flag(PIPE_V, PIPE_S, EVENT_ID1);
			wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
			DataCopyPad(zGm[(uint64_t)r * cols], t, DataCopyParams{1, (uint16_t)(cols * sizeof(float)), 0, 0});
			wait_flag(PIPE_V, PIPE_S, EVENT_ID1);
			firsts.SetValue(r, t.GetValue(0));
			set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);
			wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID2);
			set_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
			wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID3);
			set_flag(PIPE_S, PIPE_V, EVENT_ID4);
			wait_flag(PIPE_S, PIPE_V, EVENT_ID4);
			set_flag(PIPE_S, PIPE_MTE2, EVENT_ID4);
			wait_flag(PIPE_S, PIPE_MTE2, EVENT_ID4);
			rowBuf.FreeTensor(t);
		}
		if (nrows == 0)
			return;
		set_flag(PIPE_S, PIPE_MTE3, EVENT_ID5);
		wait_flag(PIPE_S, PIPE_MTE3, EVENT_ID5);
		DataCopyPad(fGm, firsts, DataCopyParams{1, (uint16_t)(nrows * sizeof(float)), 0, 0});
	}

private:
	TPipe pipe;
	TBuf<TPosition::VECCALC> rowBuf;
	GlobalTensor<float> xGm, zGm, fGm;
	uint32_t nrows, cols, colsAligned;
};

extern "C" __global__ __aicore__ void intrinsic_sync(GM_ADDR x, GM_ADDR z, GM_ADDR f, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelIntrinsicSync op;
	op.Init(x, z, f, tilingData.rows, tilingData.cols);
	op.Process();
}
