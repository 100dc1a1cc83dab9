// SPDX-License-Identifier: MIT
//
// Kernel of tiling_key_dispatch: TILING_KEY_IS selects the instantiation of a
// class templated on the operation.
#include "kernel_operator.h"

using namespace AscendC;

template <int MODE> class KernelDispatch {
public:
	__aicore__ inline void Run(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t total, uint32_t blockLength)
	{
		uint32_t start = blockLength * (uint32_t)GetBlockIdx();
		uint32_t n = total - start < blockLength ? total - start : blockLength;
		GlobalTensor<float> xGm, yGm, zGm;
		xGm.SetGlobalBuffer((__gm__ float *)x + start, n);
		yGm.SetGlobalBuffer((__gm__ float *)y + start, n);
		zGm.SetGlobalBuffer((__gm__ float *)z + start, n);
		TPipe pipe;
		TQue<QuePosition::VECIN, 1> xq, yq;
		TQue<QuePosition::VECOUT, 1> zq;
		pipe.InitBuffer(xq, 1, blockLength * sizeof(float));
		pipe.InitBuffer(yq, 1, blockLength * sizeof(float));
		pipe.InitBuffer(zq, 1, blockLength * sizeof(float));
		LocalTensor<float> xl = xq.AllocTensor<float>(), yl = yq.AllocTensor<float>();
		DataCopyExtParams p(1, n * sizeof(float), 0, 0, 0);
		DataCopyPad(xl, xGm, p, DataCopyPadExtParams<float>(false, 0, 0, 0));
		DataCopyPad(yl, yGm, p, DataCopyPadExtParams<float>(false, 0, 0, 0));
		xq.EnQue(xl);
		yq.EnQue(yl);
		xl = xq.DeQue<float>();
		yl = yq.DeQue<float>();
		LocalTensor<float> zl = zq.AllocTensor<float>();
		if constexpr (MODE == 0)
			Add(zl, xl, yl, n);
		else if constexpr (MODE == 1)
			Mul(zl, xl, yl, n);
		else
			Sub(zl, xl, yl, n);
		zq.EnQue(zl);
		xq.FreeTensor(xl);
		yq.FreeTensor(yl);
		zl = zq.DeQue<float>();
		DataCopyPad(zGm, zl, p);
		zq.FreeTensor(zl);
	}
};

extern "C" __global__ __aicore__ void tiling_key_dispatch(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
							  GM_ADDR tiling)
{
	GET_TILING_DATA(td, tiling);
	if (TILING_KEY_IS(10)) {
		KernelDispatch<0> op;
		op.Run(x, y, z, td.totalLength, td.blockLength);
	} else if (TILING_KEY_IS(11)) {
		KernelDispatch<1> op;
		op.Run(x, y, z, td.totalLength, td.blockLength);
	} else if (TILING_KEY_IS(12)) {
		KernelDispatch<2> op;
		op.Run(x, y, z, td.totalLength, td.blockLength);
	}
}
