// SPDX-License-Identifier: MIT
//
// Kernel of cast_modes: float -> half under CAST_NONE/RINT/FLOOR/ODD, float -> int32 under CAST_ROUND/TRUNC, float -> bfloat16 (RINT).
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

class KernelCastModes {
public:
	__aicore__ inline KernelCastModes() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR h_none, GM_ADDR h_rint, GM_ADDR h_floor, GM_ADDR h_odd, GM_ADDR i_round, GM_ADDR i_trunc, GM_ADDR b_rint, uint32_t total, uint32_t blockLength, uint32_t tileLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, this->length);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(float));
		h_noneGm.SetGlobalBuffer((__gm__ half *)h_none + start, this->length);
		pipe.InitBuffer(h_noneQueue, BUFFER_NUM, tileLength * sizeof(half));
		h_rintGm.SetGlobalBuffer((__gm__ half *)h_rint + start, this->length);
		pipe.InitBuffer(h_rintQueue, BUFFER_NUM, tileLength * sizeof(half));
		h_floorGm.SetGlobalBuffer((__gm__ half *)h_floor + start, this->length);
		pipe.InitBuffer(h_floorQueue, BUFFER_NUM, tileLength * sizeof(half));
		h_oddGm.SetGlobalBuffer((__gm__ half *)h_odd + start, this->length);
		pipe.InitBuffer(h_oddQueue, BUFFER_NUM, tileLength * sizeof(half));
		i_roundGm.SetGlobalBuffer((__gm__ int32_t *)i_round + start, this->length);
		pipe.InitBuffer(i_roundQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		i_truncGm.SetGlobalBuffer((__gm__ int32_t *)i_trunc + start, this->length);
		pipe.InitBuffer(i_truncQueue, BUFFER_NUM, tileLength * sizeof(int32_t));
		b_rintGm.SetGlobalBuffer((__gm__ bfloat16_t *)b_rint + start, this->length);
		pipe.InitBuffer(b_rintQueue, BUFFER_NUM, tileLength * sizeof(bfloat16_t));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * this->tileLength;
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, n);
			Compute(n);
			CopyOut(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.AllocTensor<float>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
	}

	__aicore__ inline void Compute(uint32_t n)
	{
		LocalTensor<float> xLocal = xQueue.DeQue<float>();
		LocalTensor<half> h_noneLocal = h_noneQueue.AllocTensor<half>();
		LocalTensor<half> h_rintLocal = h_rintQueue.AllocTensor<half>();
		LocalTensor<half> h_floorLocal = h_floorQueue.AllocTensor<half>();
		LocalTensor<half> h_oddLocal = h_oddQueue.AllocTensor<half>();
		LocalTensor<int32_t> i_roundLocal = i_roundQueue.AllocTensor<int32_t>();
		LocalTensor<int32_t> i_truncLocal = i_truncQueue.AllocTensor<int32_t>();
		LocalTensor<bfloat16_t> b_rintLocal = b_rintQueue.AllocTensor<bfloat16_t>();
		Cast(h_noneLocal, xLocal, RoundMode::CAST_NONE, n);
		Cast(h_rintLocal, xLocal, RoundMode::CAST_RINT, n);
		Cast(h_floorLocal, xLocal, RoundMode::CAST_FLOOR, n);
		Cast(h_oddLocal, xLocal, RoundMode::CAST_ODD, n);
		Cast(i_roundLocal, xLocal, RoundMode::CAST_ROUND, n);
		Cast(i_truncLocal, xLocal, RoundMode::CAST_TRUNC, n);
		Cast(b_rintLocal, xLocal, RoundMode::CAST_RINT, n);
		h_noneQueue.EnQue(h_noneLocal);
		h_rintQueue.EnQue(h_rintLocal);
		h_floorQueue.EnQue(h_floorLocal);
		h_oddQueue.EnQue(h_oddLocal);
		i_roundQueue.EnQue(i_roundLocal);
		i_truncQueue.EnQue(i_truncLocal);
		b_rintQueue.EnQue(b_rintLocal);
		xQueue.FreeTensor(xLocal);
	}

	__aicore__ inline void CopyOut(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> h_noneLocal = h_noneQueue.DeQue<half>();
		DataCopyPad(h_noneGm[offset], h_noneLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		h_noneQueue.FreeTensor(h_noneLocal);
		LocalTensor<half> h_rintLocal = h_rintQueue.DeQue<half>();
		DataCopyPad(h_rintGm[offset], h_rintLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		h_rintQueue.FreeTensor(h_rintLocal);
		LocalTensor<half> h_floorLocal = h_floorQueue.DeQue<half>();
		DataCopyPad(h_floorGm[offset], h_floorLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		h_floorQueue.FreeTensor(h_floorLocal);
		LocalTensor<half> h_oddLocal = h_oddQueue.DeQue<half>();
		DataCopyPad(h_oddGm[offset], h_oddLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		h_oddQueue.FreeTensor(h_oddLocal);
		LocalTensor<int32_t> i_roundLocal = i_roundQueue.DeQue<int32_t>();
		DataCopyPad(i_roundGm[offset], i_roundLocal, DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0));
		i_roundQueue.FreeTensor(i_roundLocal);
		LocalTensor<int32_t> i_truncLocal = i_truncQueue.DeQue<int32_t>();
		DataCopyPad(i_truncGm[offset], i_truncLocal, DataCopyExtParams(1, n * sizeof(int32_t), 0, 0, 0));
		i_truncQueue.FreeTensor(i_truncLocal);
		LocalTensor<bfloat16_t> b_rintLocal = b_rintQueue.DeQue<bfloat16_t>();
		DataCopyPad(b_rintGm[offset], b_rintLocal, DataCopyExtParams(1, n * sizeof(bfloat16_t), 0, 0, 0));
		b_rintQueue.FreeTensor(b_rintLocal);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue;
	GlobalTensor<float> xGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> h_noneQueue;
	GlobalTensor<half> h_noneGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> h_rintQueue;
	GlobalTensor<half> h_rintGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> h_floorQueue;
	GlobalTensor<half> h_floorGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> h_oddQueue;
	GlobalTensor<half> h_oddGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> i_roundQueue;
	GlobalTensor<int32_t> i_roundGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> i_truncQueue;
	GlobalTensor<int32_t> i_truncGm;
	TQue<QuePosition::VECOUT, BUFFER_NUM> b_rintQueue;
	GlobalTensor<bfloat16_t> b_rintGm;
	uint32_t length;
	uint32_t tileLength;
};

extern "C" __global__ __aicore__ void cast_modes(GM_ADDR x, GM_ADDR h_none, GM_ADDR h_rint, GM_ADDR h_floor, GM_ADDR h_odd, GM_ADDR i_round, GM_ADDR i_trunc, GM_ADDR b_rint, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelCastModes op;
	op.Init(x, h_none, h_rint, h_floor, h_odd, i_round, i_trunc, b_rint, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
