// SPDX-License-Identifier: MIT
//
// Kernel of optional_bias: core r computes row r of y = (x + bias) * gamma,
// leaving the bias out when its address is null.  The tiling's hasBias
// must agree with the address; when it does not, the row is not written
// (zeros), which the reference catches.
#include "kernel_operator.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void optional_bias(GM_ADDR x, GM_ADDR bias, GM_ADDR gamma, GM_ADDR y,
						    GM_ADDR workspace, GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	if ((td.hasBias != 0) != (bias != nullptr))
		return;
	uint32_t row = (uint32_t)GetBlockIdx(), n = td.cols;
	GlobalTensor<float> xGm, bGm, gGm, yGm;
	xGm.SetGlobalBuffer((__gm__ float *)x + row * n, n);
	gGm.SetGlobalBuffer((__gm__ float *)gamma, n);
	yGm.SetGlobalBuffer((__gm__ float *)y + row * n, n);
	TPipe pipe;
	TBuf<QuePosition::VECCALC> xBuf, bBuf, gBuf;
	pipe.InitBuffer(xBuf, (n + 7) / 8 * 32);
	pipe.InitBuffer(bBuf, (n + 7) / 8 * 32);
	pipe.InitBuffer(gBuf, (n + 7) / 8 * 32);
	LocalTensor<float> xl = xBuf.Get<float>(), bl = bBuf.Get<float>(), gl = gBuf.Get<float>();
	DataCopyExtParams p(1, n * sizeof(float), 0, 0, 0);
	DataCopyPad(xl, xGm, p, DataCopyPadExtParams<float>(false, 0, 0, 0));
	DataCopyPad(gl, gGm, p, DataCopyPadExtParams<float>(false, 0, 0, 0));
	if (bias != nullptr) {
		bGm.SetGlobalBuffer((__gm__ float *)bias, n);
		DataCopyPad(bl, bGm, p, DataCopyPadExtParams<float>(false, 0, 0, 0));
	}
	PipeBarrier<PIPE_ALL>();
	if (bias != nullptr)
		Add(xl, xl, bl, n);
	Mul(xl, xl, gl, n);
	PipeBarrier<PIPE_ALL>();
	DataCopyPad(yGm, xl, p);
}
