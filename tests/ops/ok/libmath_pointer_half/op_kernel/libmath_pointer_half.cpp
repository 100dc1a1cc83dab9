// SPDX-License-Identifier: MIT
//
// Kernel of libmath_pointer_half: each row of y[33, n] is one API on half,
// handed to a row template as a function-pointer template argument, the
// way the cann-ops foreach headers take theirs (ForeachTriangle<T, P,
// Sin<P, false>> and the like): the library math APIs in their
// (dst, src, calCount) form, Exp/Sqrt/Ln/Abs, Adds/Muls/Maxs/Mins,
// Mul/Div/Add/Sub in count form and Sub/Div in the mask/repeat form.  None
// gets a sharedTmpBuffer; the host leaves them the UB they take.
#include "kernel_operator.h"
#include "lib/math/kernel_operator_sin_intf.h"
#include "lib/math/kernel_operator_cos_intf.h"
#include "lib/math/kernel_operator_tan_intf.h"
#include "lib/math/kernel_operator_asin_intf.h"
#include "lib/math/kernel_operator_acos_intf.h"
#include "lib/math/kernel_operator_atan_intf.h"
#include "lib/math/kernel_operator_tanh_intf.h"
#include "lib/math/kernel_operator_erf_intf.h"
#include "lib/sigmoid/kernel_operator_sigmoid_intf.h"

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t ROWS = 33;

template <typename T> using LibUnary = void(const LocalTensor<T> &, const LocalTensor<T> &, const uint32_t);
template <typename T> using BasicUnary = void(const LocalTensor<T> &, const LocalTensor<T> &, const int32_t &);
template <typename T>
using WithScalar = void(const LocalTensor<T> &, const LocalTensor<T> &, const T &, const int32_t &);
template <typename T>
using TwoTensors = void(const LocalTensor<T> &, const LocalTensor<T> &, const LocalTensor<T> &, const int32_t &);
template <typename T>
using TwoTensorsRepeat = void(const LocalTensor<T> &, const LocalTensor<T> &, const LocalTensor<T> &, uint64_t,
			      const uint8_t, const BinaryRepeatParams &);

enum Src { FROM_X, FROM_P, FROM_Q };

struct Operands {
	LocalTensor<half> x, p, q;
	uint32_t n;
	__aicore__ inline const LocalTensor<half> &Pick(Src s) const { return s == FROM_X ? x : s == FROM_P ? p : q; }
};

template <typename T, LibUnary<T> *api, Src src> struct LibRow {
	__aicore__ static inline void Run(const LocalTensor<T> &y, const Operands &o)
	{
		PipeBarrier<PIPE_V>();
		api(y, o.Pick(src), o.n);
		PipeBarrier<PIPE_V>();
	}
};

template <typename T, BasicUnary<T> *api, Src src> struct BasicRow {
	__aicore__ static inline void Run(const LocalTensor<T> &y, const Operands &o)
	{
		int32_t n = (int32_t)o.n;
		api(y, o.Pick(src), n);
	}
};

template <typename T, WithScalar<T> *api> struct ScalarRow {
	__aicore__ static inline void Run(const LocalTensor<T> &y, const Operands &o, float s)
	{
		int32_t n = (int32_t)o.n;
		T scalar = (T)s;
		api(y, o.x, scalar, n);
	}
};

template <typename T, TwoTensors<T> *api> struct BinaryRow {
	__aicore__ static inline void Run(const LocalTensor<T> &y, const Operands &o)
	{
		int32_t n = (int32_t)o.n;
		api(y, o.x, o.p, n);
	}
};

/* whole 128-lane repeats: the tile is a multiple of 128 elements */
template <typename T, TwoTensorsRepeat<T> *api> struct RepeatRow {
	__aicore__ static inline void Run(const LocalTensor<T> &y, const Operands &o)
	{
		uint8_t repeats = (uint8_t)((o.n + 127) / 128);
		api(y, o.x, o.p, 128, repeats, BinaryRepeatParams());
	}
};

class KernelLibmathPointerHalf {
public:
	__aicore__ inline KernelLibmathPointerHalf() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR p, GM_ADDR y, uint32_t total, uint32_t blockLength,
				    uint32_t tileLength)
	{
		this->start = blockLength * (uint32_t)GetBlockIdx();
		this->total = total;
		this->length = start < total ? (total - start < blockLength ? total - start : blockLength) : 0;
		this->tileLength = tileLength;
		xGm.SetGlobalBuffer((__gm__ half *)x + start, this->length);
		pGm.SetGlobalBuffer((__gm__ half *)p + start, this->length);
		yGm.SetGlobalBuffer((__gm__ half *)y, (uint64_t)ROWS * total);
		pipe.InitBuffer(xQueue, BUFFER_NUM, tileLength * sizeof(half));
		pipe.InitBuffer(pQueue, BUFFER_NUM, tileLength * sizeof(half));
		pipe.InitBuffer(yQueue, BUFFER_NUM, tileLength * sizeof(half));
		pipe.InitBuffer(qBuf, tileLength * sizeof(half));
	}

	__aicore__ inline void Process()
	{
		uint32_t tiles = (this->length + this->tileLength - 1) / this->tileLength;
		for (uint32_t t = 0; t < tiles; t++) {
			uint32_t offset = t * this->tileLength;
			uint32_t n = this->length - offset < this->tileLength ? this->length - offset : this->tileLength;
			CopyIn(offset, n);
			Compute(offset, n);
		}
	}

private:
	__aicore__ inline void CopyIn(uint32_t offset, uint32_t n)
	{
		LocalTensor<half> xLocal = xQueue.AllocTensor<half>();
		LocalTensor<half> pLocal = pQueue.AllocTensor<half>();
		DataCopyPad(xLocal, xGm[offset], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
			    DataCopyPadExtParams<half>(false, 0, 0, 0));
		DataCopyPad(pLocal, pGm[offset], DataCopyExtParams(1, n * sizeof(half), 0, 0, 0),
			    DataCopyPadExtParams<half>(false, 0, 0, 0));
		xQueue.EnQue(xLocal);
		pQueue.EnQue(pLocal);
	}

	template <class Row> __aicore__ inline void Emit(uint32_t k, uint32_t offset, const Operands &o)
	{
		LocalTensor<half> yLocal = yQueue.AllocTensor<half>();
		Row::Run(yLocal, o);
		Store(k, offset, o.n, yLocal);
	}

	template <class Row> __aicore__ inline void EmitScalar(uint32_t k, uint32_t offset, const Operands &o, float s)
	{
		LocalTensor<half> yLocal = yQueue.AllocTensor<half>();
		Row::Run(yLocal, o, s);
		Store(k, offset, o.n, yLocal);
	}

	__aicore__ inline void Store(uint32_t k, uint32_t offset, uint32_t n, LocalTensor<half> &yLocal)
	{
		yQueue.EnQue(yLocal);
		yLocal = yQueue.DeQue<half>();
		DataCopyPad(yGm[(uint64_t)k * total + start + offset], yLocal, DataCopyExtParams(1, n * sizeof(half), 0, 0, 0));
		yQueue.FreeTensor(yLocal);
	}

	__aicore__ inline void Compute(uint32_t offset, uint32_t n)
	{
		Operands o;
		o.x = xQueue.DeQue<half>();
		o.p = pQueue.DeQue<half>();
		o.q = qBuf.Get<half>();
		o.n = n;
		Adds(o.q, o.p, (half)-2.0f, n);
		uint32_t k = 0;
		Emit<LibRow<half, Sin<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Cos<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Tan<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Asin<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Acos<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Atan<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Sinh<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Cosh<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Tanh<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Erf<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Erfc<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Sigmoid<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Sign<half, false>, FROM_X>>(k++, offset, o);
		Emit<LibRow<half, Floor<half, false>, FROM_Q>>(k++, offset, o);
		Emit<LibRow<half, Ceil<half, false>, FROM_Q>>(k++, offset, o);
		Emit<LibRow<half, Trunc<half, false>, FROM_Q>>(k++, offset, o);
		Emit<LibRow<half, Log<half, false>, FROM_P>>(k++, offset, o);
		Emit<LibRow<half, Log2<half, false>, FROM_P>>(k++, offset, o);
		Emit<LibRow<half, Log10<half, false>, FROM_P>>(k++, offset, o);
		Emit<BasicRow<half, Exp, FROM_X>>(k++, offset, o);
		Emit<BasicRow<half, Sqrt, FROM_P>>(k++, offset, o);
		Emit<BasicRow<half, Ln, FROM_P>>(k++, offset, o);
		Emit<BasicRow<half, Abs, FROM_X>>(k++, offset, o);
		EmitScalar<ScalarRow<half, Adds>>(k++, offset, o, 0.5f);
		EmitScalar<ScalarRow<half, Muls>>(k++, offset, o, 3.0f);
		EmitScalar<ScalarRow<half, Maxs>>(k++, offset, o, 0.1f);
		EmitScalar<ScalarRow<half, Mins>>(k++, offset, o, -0.1f);
		Emit<BinaryRow<half, Mul>>(k++, offset, o);
		Emit<BinaryRow<half, Div>>(k++, offset, o);
		Emit<BinaryRow<half, Add>>(k++, offset, o);
		Emit<BinaryRow<half, Sub>>(k++, offset, o);
		Emit<RepeatRow<half, Sub>>(k++, offset, o);
		Emit<RepeatRow<half, Div>>(k++, offset, o);
		xQueue.FreeTensor(o.x);
		pQueue.FreeTensor(o.p);
	}

public:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> xQueue, pQueue;
	TQue<QuePosition::VECOUT, BUFFER_NUM> yQueue;
	TBuf<QuePosition::VECCALC> qBuf;
	GlobalTensor<half> xGm, pGm, yGm;
	uint32_t start, total, length, tileLength;
};

extern "C" __global__ __aicore__ void libmath_pointer_half(GM_ADDR x, GM_ADDR p, GM_ADDR y, GM_ADDR workspace,
							   GM_ADDR tiling)
{
	GET_TILING_DATA(tilingData, tiling);
	KernelLibmathPointerHalf op;
	op.Init(x, p, y, tilingData.totalLength, tilingData.blockLength, tilingData.tileLength);
	op.Process();
}
