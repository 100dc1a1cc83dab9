// SPDX-License-Identifier: MIT
//
// Kernel of sum_rows: every row of x is copied in padded to whole 32-byte
// blocks (SumParams.inner), then the high-level Sum adds its first cols
// elements (SumParams.n): into y with a sharedTmpBuffer, into z without.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void sum_rows(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	uint32_t inner = (td.cols + 7) / 8 * 8;
	GlobalTensor<float> xGm, yGm, zGm;
	xGm.SetGlobalBuffer((__gm__ float *)x, td.rows * td.cols);
	yGm.SetGlobalBuffer((__gm__ float *)y, td.rows);
	zGm.SetGlobalBuffer((__gm__ float *)z, td.rows);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> xBuf, yBuf, zBuf, tmpBuf;
	pipe.InitBuffer(xBuf, td.rows * inner * sizeof(float));
	pipe.InitBuffer(yBuf, 256);
	pipe.InitBuffer(zBuf, 256);
	pipe.InitBuffer(tmpBuf, 1024);
	LocalTensor<float> xl = xBuf.Get<float>(), yl = yBuf.Get<float>(), zl = zBuf.Get<float>();
	DataCopyExtParams row{1, td.cols * (uint32_t)sizeof(float), 0, 0, 0};
	DataCopyPadExtParams<float> pad{false, 0, 0, 0.0f};
	for (uint32_t r = 0; r < td.rows; r++)
		DataCopyPad(xl[r * inner], xGm[r * td.cols], row, pad);
	SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
	WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
	SumParams params;
	params.outter = td.rows;
	params.inner = inner;
	params.n = td.cols;
	Sum(yl, xl, tmpBuf.Get<uint8_t>(), params);
	Sum(zl, xl, params);
	SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
	WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
	DataCopyExtParams out{1, td.rows * (uint32_t)sizeof(float), 0, 0, 0};
	DataCopyPad(yGm, yl, out);
	DataCopyPad(zGm, zl, out);
}
