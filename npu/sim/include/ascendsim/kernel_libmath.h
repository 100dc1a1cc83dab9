// SPDX-License-Identifier: MIT
//
// The library ("advanced") math APIs real vector operators call: Sin Cos
// Tan Asin Acos Atan Sinh Cosh Tanh Erf Erfc, Log Log2 Log10, Power, Sign,
// Floor Ceil Trunc, Sigmoid and Exp<T, taylorExpandLevel>, each with its documented overloads (with or
// without a sharedTmpBuffer, with or without calCount, the isReuseSource
// template parameter), written clean-room from the AscendC API reference.
//
// Values: each element is loaded to float (half) or used as is (float),
// the function is evaluated once in float with libm and the result is
// rounded to the destination type, the way the library promotes half to
// float internally.  The library's own polynomial approximations differ
// from libm by a few ulps; the simulator does not imitate them.
//
// Temporary space: the API either gets a sharedTmpBuffer or takes the UB
// the TPipe has not handed out (the space it must reserve, the "interface
// framework" form).  Either must hold the documented minimum of
// ascendsim/libmath_tmp.h, or the call fails with tmp_buffer_too_small;
// with less than the whole the API works in passes, and each pass is one
// instruction record whose src[2] is the temp space, marked `scratch`
// (written as well as read), so that each pass waits for the one before.
//
// Time: each pass is recorded as one vector instruction under the API's own
// name, which the platform file's timing.vector.op_classes prices as
// [repeat factor, issue factor]: the issue factor is the number of vector
// instructions of the API's sequence (each pays the head latency) and the
// repeat factor the sum of their per-repeat costs (Exp, Ln, Sqrt and Div 4,
// the rest 1).  The sequences are estimates, not published: range
// reduction plus a polynomial for Sin/Cos (24 simple instructions), with a
// Div for Tan (32) and Atan (22), a Sqrt for Asin (30) and Acos (32); two
// Exp and three simple ones for Sinh/Cosh; a rational approximation for Erf
// (26 + Div) and Erfc (33 + Exp + Div); Ln (+ Muls for Log2/Log10); Floor,
// Sub, Exp, a Muls and an Adds per term (15) and a Mul for the Taylor Exp;
// Abs, Ln,
// Mul, Exp and about ten compare/select fix-ups for Power; two compares and
// two selects for Sign; two casts for Floor/Ceil/Trunc.  Where the half
// form needs more temporary space than the float one, the library computes
// in float, so the record counts float repeats.
#ifndef ASCENDSIM_KERNEL_LIBMATH_H
#define ASCENDSIM_KERNEL_LIBMATH_H

#include "ascendsim/kernel_vector.h"
#include "ascendsim/libmath_tmp.h"

namespace ascendsim {

using AscendC::LocalTensor;

struct op_sin { ASCENDSIM_NOCOV static float f(float a) { return __builtin_sinf(a); } };
struct op_cos { ASCENDSIM_NOCOV static float f(float a) { return __builtin_cosf(a); } };
struct op_tan { ASCENDSIM_NOCOV static float f(float a) { return __builtin_tanf(a); } };
struct op_asin { ASCENDSIM_NOCOV static float f(float a) { return __builtin_asinf(a); } };
struct op_acos { ASCENDSIM_NOCOV static float f(float a) { return __builtin_acosf(a); } };
struct op_atan { ASCENDSIM_NOCOV static float f(float a) { return __builtin_atanf(a); } };
struct op_sinh { ASCENDSIM_NOCOV static float f(float a) { return __builtin_sinhf(a); } };
struct op_cosh { ASCENDSIM_NOCOV static float f(float a) { return __builtin_coshf(a); } };
struct op_erf { ASCENDSIM_NOCOV static float f(float a) { return __builtin_erff(a); } };
struct op_erfc { ASCENDSIM_NOCOV static float f(float a) { return __builtin_erfcf(a); } };
struct op_log { ASCENDSIM_NOCOV static float f(float a) { return __builtin_logf(a); } };
struct op_log2 { ASCENDSIM_NOCOV static float f(float a) { return __builtin_log2f(a); } };
struct op_log10 { ASCENDSIM_NOCOV static float f(float a) { return __builtin_log10f(a); } };
struct op_floor { ASCENDSIM_NOCOV static float f(float a) { return __builtin_floorf(a); } };
struct op_ceil { ASCENDSIM_NOCOV static float f(float a) { return __builtin_ceilf(a); } };
struct op_trunc { ASCENDSIM_NOCOV static float f(float a) { return __builtin_truncf(a); } };
// The library Exp: with taylorExpandLevel 0 plain exp; otherwise e to the
// integer part floor(a) times the Taylor series of e to the fractional
// part, to `level` terms past 1 (few terms are inexact, as documented).
template <uint8_t level> struct op_exp_taylor {
	ASCENDSIM_NOCOV static float f(float a)
	{
		if (level == 0)
			return __builtin_expf(a);
		float whole = __builtin_floorf(a), frac = a - whole, series = 1.0f;
		for (int k = level; k >= 1; k--)
			series = 1.0f + frac * series / (float)k;
		return __builtin_expf(whole) * series;
	}
};
// 1, -1 or 0 (either zero gives +0); NaN stays NaN.
struct op_sign {
	ASCENDSIM_NOCOV static float f(float a) { return a > 0 ? 1.0f : a < 0 ? -1.0f : a == 0 ? 0.0f : a; }
};

// Where the temp space of one call lies and how many elements one pass does.
struct tmp_plan {
	ub_span span;  /* the temp bytes the call works in; empty when it needs none */
	uint32_t pass; /* elements per pass */
};

template <class T>
ASCENDSIM_NOCOV inline tmp_plan plan_tmp(const char *api, const tmp_need &need, const LocalTensor<uint8_t> *tmp, uint32_t n,
				 srcloc loc)
{
	tmp_plan p{{0, 0}, n};
	if (tmp) {
		if (!tmp->data_)
			fail("out_of_bounds", loc, "%s: sharedTmpBuffer is a LocalTensor that was never allocated", api);
		ub_check_aligned(*tmp, api, "sharedTmpBuffer", "misaligned_operand", loc);
	}
	if (need.live == 0 || n == 0)
		return p;
	uint64_t base, have;
	if (tmp) {
		base = ub_offset(tmp->data_);
		have = tmp->size_;
		if (have < need.min)
			fail("tmp_buffer_too_small", loc,
			     "%s: sharedTmpBuffer holds %llu bytes; on %s it needs at least %u (the minValue "
			     "Get%sMaxMinTmpSize reports)",
			     api, (unsigned long long)have, dtype_name(dtype_of<T>::code), need.min, api);
	} else {
		AscendC::TPipe *pipe = static_cast<AscendC::TPipe *>(g_core->tpipe);
		base = pipe ? ((uint64_t)pipe->cursor_ + 31) / 32 * 32 : 0;
		have = g_run.ub_limit > base ? g_run.ub_limit - base : 0;
		if (have < need.min)
			fail("tmp_buffer_too_small", loc,
			     "%s without a sharedTmpBuffer takes its temp space from the UB the TPipe has not handed out: "
			     "%llu bytes are left after InitBuffer's %llu, and it needs at least %u on %s (the minValue "
			     "Get%sMaxMinTmpSize reports); reserve it or pass a sharedTmpBuffer",
			     api, (unsigned long long)have, (unsigned long long)base, need.min,
			     dtype_name(dtype_of<T>::code), api);
	}
	constexpr uint64_t block = 32 / sizeof(T);
	uint64_t per = (have - need.extra) / ((uint64_t)need.live * sizeof(T)) / block * block;
	if (per == 0)
		per = block;
	if (per > n)
		per = n;
	uint64_t used = libmath_tmp_max(need, per, sizeof(T));
	if (used > have)
		used = have;
	p.pass = (uint32_t)per;
	p.span = ub_span{(uint32_t)base, (uint32_t)(base + used)};
	return p;
}

// The engine of every API here: checks the operands, records one
// instruction per pass and computes dst[i] = elem(i) for i < n.  `src1` is
// null for unary APIs and for a scalar operand.
template <class T, class Elem>
ASCENDSIM_NOCOV inline void libmath_run(const char *api, const tmp_need &need, bool promote, const LocalTensor<T> &dst,
			    const LocalTensor<T> *src0, const char *src0_name, const LocalTensor<T> *src1,
			    const LocalTensor<uint8_t> *tmp, uint32_t n, Elem elem, srcloc loc)
{
	vec_operand(dst, n, api, "dst", loc);
	if (src0)
		vec_operand(*src0, n, api, src0_name, loc);
	if (src1)
		vec_operand(*src1, n, api, "src1", loc);
	tmp_plan tp = plan_tmp<T>(api, need, tmp, n, loc);
	uint32_t d = ub_offset(dst.data_), s0 = src0 ? ub_offset(src0->data_) : 0, s1 = src1 ? ub_offset(src1->data_) : 0;
	for (uint32_t off = 0; off < n; off += tp.pass) {
		uint32_t m = n - off < tp.pass ? n - off : tp.pass;
		uint32_t lo = off * (uint32_t)sizeof(T), hi = lo + m * (uint32_t)sizeof(T);
		instr r = vec_record(api, dtype_of<T>::code, m, promote ? count_repeats<float>(m) : count_repeats<T>(m), loc);
		r.dst = ub_span{d + lo, d + hi};
		if (src0)
			r.src[0] = ub_span{s0 + lo, s0 + hi};
		if (src1)
			r.src[1] = ub_span{s1 + lo, s1 + hi};
		r.src[2] = tp.span;
		r.scratch = tp.span.end > tp.span.begin;
		issue(r);
	}
	T *out = dst.data_;
	for (uint32_t i = 0; i < n; i++)
		out[i] = elem(i);
}

// A unary API on half or float through float.
template <class Op, class T>
ASCENDSIM_NOCOV inline void libmath_unary(const char *api, libmath_api which, bool reuse, const LocalTensor<T> &dst,
			      const LocalTensor<T> &src, const LocalTensor<uint8_t> *tmp, uint32_t n, srcloc loc)
{
	tmp_need need = libmath_tmp_need(which, sizeof(T), false, reuse);
	bool promote = sizeof(T) == 2 && need.live > libmath_tmp_need(which, 4, false, false).live;
	const T *s = src.data_;
	libmath_run(api, need, promote, dst, &src, "src", (const LocalTensor<T> *)nullptr, tmp, n,
		    [s](uint32_t i) ASCENDSIM_NOCOV { return num<T>::store(Op::f(num<T>::load(s[i]))); }, loc);
}

// Power on int32_t: repeated squaring that wraps like the vector unit's
// 32-bit multiply.  What the library returns for a negative exponent is not
// documented, so the simulator does not guess.
ASCENDSIM_NOCOV inline int32_t power_int(int32_t base, int32_t e, srcloc loc)
{
	if (e < 0)
		unsupported(loc, "Power on int32_t with a negative exponent (%d): the result is not documented", (int)e);
	uint32_t r = 1, x = (uint32_t)base;
	for (uint32_t k = (uint32_t)e; k; k >>= 1) {
		if (k & 1)
			r *= x;
		x *= x;
	}
	return (int32_t)r;
}

template <class T> ASCENDSIM_NOCOV inline T power_elem(T a, T b, srcloc loc)
{
	if constexpr (std::is_same<T, int32_t>::value)
		return power_int(a, b, loc);
	else
		return num<T>::store(__builtin_powf(num<T>::load(a), num<T>::load(b)));
}

// Power with a tensor (or a scalar, when `x`/`y` is null) on each side.
template <class T>
ASCENDSIM_NOCOV inline void libmath_power(const LocalTensor<T> &dst, const LocalTensor<T> *x, T xs, const LocalTensor<T> *y, T ys,
			      const LocalTensor<uint8_t> *tmp, uint32_t n, srcloc loc)
{
	constexpr bool is_int = std::is_same<T, int32_t>::value;
	libmath_api which = x && y ? libmath_api::POWER_TENSOR_TENSOR : libmath_api::POWER_TENSOR_SCALAR;
	tmp_need need = libmath_tmp_need(which, sizeof(T), is_int, false);
	bool promote = std::is_same<T, half>::value;
	const T *xp = x ? x->data_ : nullptr, *yp = y ? y->data_ : nullptr;
	auto elem = [xp, xs, yp, ys, loc](uint32_t i) ASCENDSIM_NOCOV {
		return power_elem<T>(xp ? xp[i] : xs, yp ? yp[i] : ys, loc);
	};
	if (x)
		libmath_run("Power", need, promote, dst, x, "src0", y, tmp, n, elem, loc);
	else
		libmath_run("Power", need, promote, dst, y, "src1", (const LocalTensor<T> *)nullptr, tmp, n, elem, loc);
}

} // namespace ascendsim

namespace AscendC {

// The four documented forms of a unary library API, each with its
// addressable twin (see ASCENDSIM_ADDRESSABLE).  API is its libmath_api,
// OP its element function, the rest the dtypes it takes on the 910B.
#define ASCENDSIM_LIBMATH_FORMS(NAME, API, OP, MSG, ...)                                                               \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount,         \
					 ascendsim::srcloc loc = {})                                                   \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		ascendsim::libmath_unary<ascendsim::OP>(#NAME, ascendsim::libmath_api::API, isReuseSource, dstTensor, \
							srcTensor, &sharedTmpBuffer, calCount, loc);                 \
	}                                                                                                             \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 const LocalTensor<uint8_t> &sharedTmpBuffer, ascendsim::srcloc loc = {})      \
	{                                                                                                             \
		NAME<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize(), loc);             \
	}                                                                                                             \
	ASCENDSIM_LIBMATH_FORMS_NO_TMP(NAME, API, OP, MSG, __VA_ARGS__)                                               \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount,         \
					 ascendsim_none...)                                                            \
	{                                                                                                             \
		NAME<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, calCount, ascendsim::indirect_loc());  \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 const LocalTensor<uint8_t> &sharedTmpBuffer, ascendsim_none...)               \
	{                                                                                                             \
		NAME<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, ascendsim::indirect_loc());            \
	}

// The two forms without a sharedTmpBuffer (all Log and Log10 have).
#define ASCENDSIM_LIBMATH_FORMS_NO_TMP(NAME, API, OP, MSG, ...)                                                        \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 const uint32_t calCount, ascendsim::srcloc loc = {})                          \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		ascendsim::libmath_unary<ascendsim::OP>(#NAME, ascendsim::libmath_api::API, isReuseSource, dstTensor, \
							srcTensor, nullptr, calCount, loc);                          \
	}                                                                                                             \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 ascendsim::srcloc loc = {})                                                   \
	{                                                                                                             \
		NAME<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize(), loc);                              \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 const uint32_t calCount, ascendsim_none...)                                   \
	{                                                                                                             \
		NAME<T, isReuseSource>(dstTensor, srcTensor, calCount, ascendsim::indirect_loc());                   \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,             \
					 ascendsim_none...)                                                            \
	{                                                                                                             \
		NAME<T, isReuseSource>(dstTensor, srcTensor, ascendsim::indirect_loc());                             \
	}

ASCENDSIM_LIBMATH_FORMS(Sin, SIN, op_sin, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Cos, COS, op_cos, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Tan, TAN, op_tan, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Asin, ASIN, op_asin, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Acos, ACOS, op_acos, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Atan, ATAN, op_atan, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Sinh, SINH, op_sinh, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Cosh, COSH, op_cosh, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Tanh, TANH, op_tanh, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Erf, ERF, op_erf, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Erfc, ERFC, op_erfc, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS_NO_TMP(Log, LOG, op_log, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Log2, LOG2, op_log2, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS_NO_TMP(Log10, LOG10, op_log10, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Sign, SIGN, op_sign, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Floor, FLOOR, op_floor, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Ceil, CEIL, op_ceil, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Trunc, TRUNC, op_trunc, "half and float", half, float)
ASCENDSIM_LIBMATH_FORMS(Sigmoid, SIGMOID, op_sigmoid, "half and float", half, float)

#undef ASCENDSIM_LIBMATH_FORMS
#undef ASCENDSIM_LIBMATH_FORMS_NO_TMP

// The library Exp, told from the basic one by its taylorExpandLevel template
// parameter.  With the Taylor series its records are named ExpTaylor and
// priced for the recommended 10 to 15 terms.
#define ASCENDSIM_EXP_CHECK(T)                                                                                        \
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Exp<T, taylorExpandLevel> supports half and float")

template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
ASCENDSIM_NOCOV inline void Exp(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
				const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount, ascendsim::srcloc loc = {})
{
	ASCENDSIM_EXP_CHECK(T);
	ascendsim::libmath_unary<ascendsim::op_exp_taylor<taylorExpandLevel>>(taylorExpandLevel ? "ExpTaylor" : "Exp",
									      ascendsim::libmath_api::EXP, isReuseSource,
									      dstLocal, srcLocal, &sharedTmpBuffer, calCount,
									      loc);
}
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
ASCENDSIM_NOCOV inline void Exp(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t calCount,
				ascendsim::srcloc loc = {})
{
	ASCENDSIM_EXP_CHECK(T);
	ascendsim::libmath_unary<ascendsim::op_exp_taylor<taylorExpandLevel>>(taylorExpandLevel ? "ExpTaylor" : "Exp",
									      ascendsim::libmath_api::EXP, isReuseSource,
									      dstLocal, srcLocal, nullptr, calCount, loc);
}
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>
ASCENDSIM_NOCOV inline void Exp(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal,
				const LocalTensor<uint8_t> &sharedTmpBuffer, const uint32_t calCount, ascendsim_none...)
{
	Exp<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, sharedTmpBuffer, calCount, ascendsim::indirect_loc());
}
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>
ASCENDSIM_NOCOV inline void Exp(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t calCount,
				ascendsim_none...)
{
	Exp<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, calCount, ascendsim::indirect_loc());
}

#undef ASCENDSIM_EXP_CHECK

// Power: tensor ^ tensor, tensor ^ scalar and scalar ^ tensor, each in the
// four forms.  half, float and int32_t.
#define ASCENDSIM_POWER_CHECK(T)                                                                                      \
	static_assert(ascendsim::is_one_of<T, half, float, int32_t>::value, "Power supports half, float and int32_t")

#define ASCENDSIM_POWER_FORMS(SRC0, SRC1, X, XS, Y, YS, COUNT)                                                         \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1,                                 \
					  const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t calCount,              \
					  ascendsim::srcloc loc = {})                                                  \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, &sharedTmpBuffer, calCount, loc);               \
	}                                                                                                             \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1,                                 \
					  const LocalTensor<uint8_t> &sharedTmpBuffer, ascendsim::srcloc loc = {})     \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, &sharedTmpBuffer, COUNT, loc);                  \
	}                                                                                                             \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1, uint32_t calCount,              \
					  ascendsim::srcloc loc = {})                                                  \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, nullptr, calCount, loc);                        \
	}                                                                                                             \
	template <class T, bool isReuseSource = false>                                                                \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1, ascendsim::srcloc loc = {})     \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, nullptr, COUNT, loc);                           \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1,                                 \
					  const LocalTensor<uint8_t> &sharedTmpBuffer, uint32_t calCount,              \
					  ascendsim_none...)                                                           \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, &sharedTmpBuffer, calCount,                     \
					    ascendsim::indirect_loc());                                               \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1,                                 \
					  const LocalTensor<uint8_t> &sharedTmpBuffer, ascendsim_none...)              \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, &sharedTmpBuffer, COUNT,                        \
					    ascendsim::indirect_loc());                                               \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1, uint32_t calCount,              \
					  ascendsim_none...)                                                           \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, nullptr, calCount, ascendsim::indirect_loc());  \
	}                                                                                                             \
	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>                                         \
	ASCENDSIM_NOCOV inline void Power(const LocalTensor<T> &dstTensor, SRC0, SRC1, ascendsim_none...)              \
	{                                                                                                             \
		ASCENDSIM_POWER_CHECK(T);                                                                             \
		ascendsim::libmath_power<T>(dstTensor, X, XS, Y, YS, nullptr, COUNT, ascendsim::indirect_loc());     \
	}

ASCENDSIM_POWER_FORMS(const LocalTensor<T> &src0Tensor, const LocalTensor<T> &src1Tensor, &src0Tensor, T(), &src1Tensor,
		      T(), src0Tensor.GetSize())
ASCENDSIM_POWER_FORMS(const LocalTensor<T> &src0Tensor, const T &src1Scalar, &src0Tensor, T(), nullptr, src1Scalar,
		      src0Tensor.GetSize())
ASCENDSIM_POWER_FORMS(const T &src0Scalar, const LocalTensor<T> &src1Tensor, nullptr, src0Scalar, &src1Tensor, T(),
		      src1Tensor.GetSize())

#undef ASCENDSIM_POWER_FORMS
#undef ASCENDSIM_POWER_CHECK

} // namespace AscendC

#endif
