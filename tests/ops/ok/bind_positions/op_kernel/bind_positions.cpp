// SPDX-License-Identifier: MIT
//
// Kernel of bind_positions: one bound VECIN/VECOUT queue serves the copy
// in, the vector step and the copy out with the same buffers, handing each
// tile on between user positions as CANN's EnQue reference shows:
// EnQue<GM, VECIN> after the copy in (MTE2 -> V), EnQue<VECOUT, GM> after
// the Muls (V -> MTE3).  y = 2x.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t TILE = 4096;

extern "C" __global__ __aicore__ void bind_positions(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t begin = td.perCore * GetBlockIdx();
	uint32_t mine = td.total - begin < td.perCore ? td.total - begin : td.perCore;
	GlobalTensor<float> xGm, yGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + begin, mine);
	yGm.SetGlobalBuffer((__gm__ float *)y + begin, mine);
	TPipe pipe;
	TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> queue;
	pipe.InitBuffer(queue, 2, TILE * sizeof(float));
	for (uint32_t at = 0; at < mine; at += TILE) {
		uint32_t len = mine - at < TILE ? mine - at : TILE;
		LocalTensor<float> t = queue.AllocTensor<float>();
		DataCopy(t, xGm[at], len);
		queue.EnQue<TPosition::GM, TPosition::VECIN, float>(t);
		t = queue.DeQue<TPosition::GM, TPosition::VECIN, float>();
		Muls(t, t, 2.0f, len);
		queue.EnQue<TPosition::VECOUT, TPosition::GM, float>(t);
		t = queue.DeQue<TPosition::VECOUT, TPosition::GM, float>();
		DataCopy(yGm[at], t, len);
		queue.FreeTensor(t);
	}
}
