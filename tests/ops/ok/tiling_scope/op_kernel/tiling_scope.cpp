// SPDX-License-Identifier: MIT
//
// Kernel of tiling_scope: z = x * scale in tiles of BLOCK_SIZE elements,
// the kernel's own constant, which must not clash with optiling's
// BLOCK_SIZE; the tiling class is named unqualified, as generated structs
// are.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t BLOCK_SIZE = 256;

extern "C" __global__ __aicore__ void tiling_scope(GM_ADDR x, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	const TilingScopeTilingData &data = td;
	GlobalTensor<float> xGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, data.total);
	zGm.SetGlobalBuffer((__gm__ float *)z, data.total);
	TPipe pipe;
	TBuf<TPosition::VECCALC> buf;
	pipe.InitBuffer(buf, BLOCK_SIZE * sizeof(float));
	LocalTensor<float> t = buf.Get<float>();
	for (uint32_t off = 0; off < data.total; off += BLOCK_SIZE) {
		uint32_t n = data.total - off < BLOCK_SIZE ? data.total - off : BLOCK_SIZE;
		DataCopyPad(t, xGm[off], DataCopyExtParams(1, n * sizeof(float), 0, 0, 0),
			    DataCopyPadExtParams<float>(false, 0, 0, 0));
		SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
		WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
		Muls(t, t, data.scale, n);
		SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
		WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
		DataCopyPad(zGm[off], t, DataCopyExtParams(1, n * sizeof(float), 0, 0, 0));
		SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
		WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
	}
}
