// SPDX-License-Identifier: MIT
//
// Vector instructions: binary, scalar and unary elementwise ops, Duplicate,
// Axpy, Cast, Compare/CompareScalar/Select, in the count form
// and the mask/repeat form.  Every result is rounded to the destination type
// per instruction.  One repeat is 256 bytes; strides are in 32-byte blocks.
#ifndef ASCENDSIM_KERNEL_VECTOR_H
#define ASCENDSIM_KERNEL_VECTOR_H

#include "ascendsim/kernel_pipe.h"
#include "ascendsim/cast_rules.h"

namespace AscendC {

struct BinaryRepeatParams {
	uint8_t dstBlkStride = 1;
	uint8_t src0BlkStride = 1;
	uint8_t src1BlkStride = 1;
	uint8_t dstRepStride = 8;
	uint8_t src0RepStride = 8;
	uint8_t src1RepStride = 8;
	BinaryRepeatParams() = default;
	ASCENDSIM_NOCOV BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
			   const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
	    : dstBlkStride(dstBlkStrideIn), src0BlkStride(src0BlkStrideIn), src1BlkStride(src1BlkStrideIn),
	      dstRepStride(dstRepStrideIn), src0RepStride(src0RepStrideIn), src1RepStride(src1RepStrideIn) {}
};

struct UnaryRepeatParams {
	uint16_t dstBlkStride = 1;
	uint16_t srcBlkStride = 1;
	uint8_t dstRepStride = 8;
	uint8_t srcRepStride = 8;
	UnaryRepeatParams() = default;
	ASCENDSIM_NOCOV UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
			  const uint8_t srcRepStrideIn)
	    : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
	      srcRepStride(srcRepStrideIn) {}
};

} // namespace AscendC

namespace ascendsim {

using AscendC::LocalTensor;

// Which lanes of which repeats a mask/repeat instruction touches.
struct lane_plan {
	uint32_t repeats;
	uint32_t lanes;    /* lanes per repeat: 256 bytes / widest element */
	uint64_t bits[2];  /* normal mode */
	uint64_t total;    /* counter mode: elements in all */
	bool counter;
};

ASCENDSIM_NOCOV inline bool lane_on(const lane_plan &p, uint32_t r, uint32_t k)
{
	if (p.counter)
		return (uint64_t)r * p.lanes + k < p.total;
	return (p.bits[k >> 6] >> (k & 63)) & 1u;
}

ASCENDSIM_NOCOV inline uint64_t lane_offset(uint32_t r, uint32_t k, uint32_t epb, uint32_t blk, uint32_t rep)
{
	return ((uint64_t)r * rep + (uint64_t)(k / epb) * blk) * epb + k % epb;
}

// One past the largest element offset an operand reaches.
ASCENDSIM_NOCOV inline uint64_t lane_extent(const lane_plan &p, uint32_t epb, uint32_t blk, uint32_t rep)
{
	uint64_t m = 0;
	if (p.repeats == 0)
		return 0;
	uint32_t rs[2] = {p.repeats - 1, p.repeats >= 2 ? p.repeats - 2 : p.repeats - 1};
	for (uint32_t r : rs)
		for (uint32_t k = 0; k < p.lanes; k++)
			if (lane_on(p, r, k)) {
				uint64_t o = lane_offset(r, k, epb, blk, rep) + 1;
				if (o > m)
					m = o;
			}
	return m;
}

// Resolve mask and repeat the way hardware reads them.  `bits` is null for
// the continuous-mask overload, whose count is `mask`.
ASCENDSIM_NOCOV inline lane_plan plan_lanes(uint32_t lanes, bool set_mask, const uint64_t *bits, uint64_t mask, int32_t repeat,
			    const char *api, srcloc loc)
{
	lane_plan p{};
	core_state *c = g_core;
	p.lanes = lanes;
	if (c->counter_mode) {
		p.counter = true;
		p.total = set_mask ? (bits ? bits[0] : mask) : c->mask[0];
		p.repeats = (uint32_t)((p.total + lanes - 1) / lanes);
		return p;
	}
	if (repeat < 0 || repeat > 255)
		fail("repeat_overflow", loc, "%s: repeatTimes %d is outside 0..255 (the field is 8 bits wide)", api, (int)repeat);
	p.repeats = (uint32_t)repeat;
	if (!set_mask) {
		p.bits[0] = c->mask[0];
		p.bits[1] = c->mask[1];
	} else if (bits) {
		p.bits[0] = bits[0];
		p.bits[1] = bits[1];
	} else {
		if (mask == 0 || mask > lanes)
			fail("invalid_argument", loc, "%s: continuous mask %llu is outside 1..%u for this type", api,
			     (unsigned long long)mask, lanes);
		p.bits[0] = mask >= 64 ? ~0ULL : ((1ULL << mask) - 1);
		p.bits[1] = mask >= 128 ? ~0ULL : (mask <= 64 ? 0ULL : ((1ULL << (mask - 64)) - 1));
	}
	if (lanes <= 64)
		p.bits[1] = 0;
	if (lanes < 64)
		p.bits[0] &= (1ULL << lanes) - 1;
	return p;
}

ASCENDSIM_NOCOV inline instr vec_record(const char *name, uint8_t dtype, uint64_t count, uint64_t repeat, srcloc loc)
{
	instr r{};
	r.name = name;
	r.loc = loc;
	r.kind = INSTR_VECTOR;
	r.pipe = PIPE_ID_V;
	r.dtype = dtype;
	r.count = (uint32_t)count;
	r.repeat = (uint32_t)repeat;
	r.event_id = -1;
	return r;
}

template <class T> ASCENDSIM_NOCOV inline void vec_operand(const LocalTensor<T> &t, uint64_t elems, const char *api, const char *operand, srcloc loc)
{
	ub_check(t, elems, api, operand, loc);
	ub_check_aligned(t, api, operand, "misaligned_operand", loc);
}

ASCENDSIM_NOCOV inline uint32_t count_arg(int64_t n, const char *api, srcloc loc)
{
	if (n < 0)
		fail("invalid_argument", loc, "%s: count %lld is negative", api, (long long)n);
	return (uint32_t)n;
}

// A repeatTimes argument of any numeric type, kept wide enough for the
// 0..255 check to see what the caller passed.
template <class R> ASCENDSIM_NOCOV inline int32_t repeat_arg(R r)
{
	static_assert(std::is_arithmetic<R>::value || std::is_enum<R>::value, "repeatTimes is a number");
	if constexpr (std::is_floating_point<R>::value) {
		/* converts to the uint8_t parameter by truncation, as a float argument would */
		if (!(r > (R)INT32_MIN && r < (R)INT32_MAX))
			return r > 0 ? INT32_MAX : INT32_MIN;
	}
	int64_t v = (int64_t)r;
	return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

template <class T> ASCENDSIM_NOCOV inline uint64_t count_repeats(uint64_t n)
{
	return (n * sizeof(T) + 255) / 256;
}

template <class T> ASCENDSIM_NOCOV inline void mask_record(instr &r, const lane_plan &p)
{
	r.counter_mode = p.counter;
	r.mask[0] = p.counter ? p.total : p.bits[0];
	r.mask[1] = p.counter ? 0 : p.bits[1];
	uint64_t active = 0;
	if (p.counter)
		active = p.total;
	else
		active = (uint64_t)(__builtin_popcountll(p.bits[0]) + __builtin_popcountll(p.bits[1])) * p.repeats;
	r.count = (uint32_t)active;
	r.repeat = p.repeats;
}

// Element functions.  C is the calculation type (float for half/bf16).
struct op_add { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a + b; } };
struct op_sub { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a - b; } };
struct op_mul { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a * b; } };
struct op_div { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a / b; } };
struct op_max { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a > b ? a : b; } };
struct op_min { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a < b ? a : b; } };
struct op_and { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a & b; } };
struct op_or { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a | b; } };
struct op_shl { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return (C)((uint64_t)a << (b & 63)); } };
struct op_shr { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a >> (b & 63); } };
struct op_leaky { template <class C> ASCENDSIM_NOCOV static C f(C a, C b) { return a >= 0 ? a : a * b; } };

struct op_abs {
	ASCENDSIM_NOCOV static float f(float a) { return __builtin_fabsf(a); } /* clears the sign bit, -0 included */
	template <class C> ASCENDSIM_NOCOV static C f(C a) { return a < 0 ? -a : a; }
};
struct op_exp { ASCENDSIM_NOCOV static float f(float a) { return __builtin_expf(a); } };
struct op_ln { ASCENDSIM_NOCOV static float f(float a) { return __builtin_logf(a); } };
struct op_sqrt { ASCENDSIM_NOCOV static float f(float a) { return __builtin_sqrtf(a); } };
struct op_rsqrt { ASCENDSIM_NOCOV static float f(float a) { return 1.0f / __builtin_sqrtf(a); } };
struct op_rec { ASCENDSIM_NOCOV static float f(float a) { return 1.0f / a; } };
struct op_relu { template <class C> ASCENDSIM_NOCOV static C f(C a) { return a > 0 ? a : (C)0; } };
struct op_not { template <class C> ASCENDSIM_NOCOV static C f(C a) { return ~a; } };
struct op_sigmoid { ASCENDSIM_NOCOV static float f(float a) { return 1.0f / (1.0f + __builtin_expf(-a)); } };
struct op_tanh { ASCENDSIM_NOCOV static float f(float a) { return __builtin_tanhf(a); } };

template <class Op, class T> ASCENDSIM_NOCOV inline void run_binary(T *d, const T *a, const T *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		d[i] = num<T>::store(Op::f(num<T>::load(a[i]), num<T>::load(b[i])));
}

template <class Op, class T> ASCENDSIM_NOCOV inline void run_unary(T *d, const T *a, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		d[i] = num<T>::store(Op::f(num<T>::load(a[i])));
}

template <class Op, class T>
ASCENDSIM_NOCOV inline void binary_count(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src0,
			 const LocalTensor<T> &src1, int64_t count, srcloc loc)
{
	uint32_t n = count_arg(count, api, loc);
	vec_operand(dst, n, api, "dst", loc);
	vec_operand(src0, n, api, "src0", loc);
	vec_operand(src1, n, api, "src1", loc);
	instr r = vec_record(api, dtype_of<T>::code, n, count_repeats<T>(n), loc);
	r.dst = span_of(dst, n);
	r.src[0] = span_of(src0, n);
	r.src[1] = span_of(src1, n);
	issue(r);
	run_binary<Op>(dst.data_, src0.data_, src1.data_, n);
}

template <class Op, class T>
ASCENDSIM_NOCOV inline void binary_mask(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
			bool set_mask, const uint64_t *bits, uint64_t mask, int32_t repeat,
			const AscendC::BinaryRepeatParams &p, srcloc loc)
{
	constexpr uint32_t epb = 32 / sizeof(T);
	lane_plan lp = plan_lanes(256 / sizeof(T), set_mask, bits, mask, repeat, api, loc);
	uint64_t ed = lane_extent(lp, epb, p.dstBlkStride, p.dstRepStride);
	uint64_t e0 = lane_extent(lp, epb, p.src0BlkStride, p.src0RepStride);
	uint64_t e1 = lane_extent(lp, epb, p.src1BlkStride, p.src1RepStride);
	vec_operand(dst, ed, api, "dst", loc);
	vec_operand(src0, e0, api, "src0", loc);
	vec_operand(src1, e1, api, "src1", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[0] = p.dstBlkStride;
	r.blk_stride[1] = p.src0BlkStride;
	r.blk_stride[2] = p.src1BlkStride;
	r.rep_stride[0] = p.dstRepStride;
	r.rep_stride[1] = p.src0RepStride;
	r.rep_stride[2] = p.src1RepStride;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src0, e0);
	r.src[1] = span_of(src1, e1);
	issue(r);
	for (uint32_t rr = 0; rr < lp.repeats; rr++)
		for (uint32_t k = 0; k < lp.lanes; k++) {
			if (!lane_on(lp, rr, k))
				continue;
			T a = src0.data_[lane_offset(rr, k, epb, p.src0BlkStride, p.src0RepStride)];
			T b = src1.data_[lane_offset(rr, k, epb, p.src1BlkStride, p.src1RepStride)];
			dst.data_[lane_offset(rr, k, epb, p.dstBlkStride, p.dstRepStride)] =
			    num<T>::store(Op::f(num<T>::load(a), num<T>::load(b)));
		}
}

// Unary ops and ops with a scalar operand share this engine: `fn` maps one
// loaded source element to the calculation type.
template <class T, class Fn>
ASCENDSIM_NOCOV inline void unary_count(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src, int64_t count, Fn fn,
			srcloc loc)
{
	uint32_t n = count_arg(count, api, loc);
	vec_operand(dst, n, api, "dst", loc);
	vec_operand(src, n, api, "src", loc);
	instr r = vec_record(api, dtype_of<T>::code, n, count_repeats<T>(n), loc);
	r.dst = span_of(dst, n);
	r.src[0] = span_of(src, n);
	issue(r);
	T *d = dst.data_;
	const T *s = src.data_;
	for (uint32_t i = 0; i < n; i++)
		d[i] = num<T>::store(fn(num<T>::load(s[i])));
}

template <class T, class Fn>
ASCENDSIM_NOCOV inline void unary_mask(const char *api, const LocalTensor<T> &dst, const LocalTensor<T> &src, bool set_mask,
		       const uint64_t *bits, uint64_t mask, int32_t repeat, const AscendC::UnaryRepeatParams &p, Fn fn,
		       srcloc loc)
{
	constexpr uint32_t epb = 32 / sizeof(T);
	lane_plan lp = plan_lanes(256 / sizeof(T), set_mask, bits, mask, repeat, api, loc);
	uint64_t ed = lane_extent(lp, epb, p.dstBlkStride, p.dstRepStride);
	uint64_t es = lane_extent(lp, epb, p.srcBlkStride, p.srcRepStride);
	vec_operand(dst, ed, api, "dst", loc);
	vec_operand(src, es, api, "src", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[0] = p.dstBlkStride;
	r.blk_stride[1] = p.srcBlkStride;
	r.rep_stride[0] = p.dstRepStride;
	r.rep_stride[1] = p.srcRepStride;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src, es);
	issue(r);
	for (uint32_t rr = 0; rr < lp.repeats; rr++)
		for (uint32_t k = 0; k < lp.lanes; k++) {
			if (!lane_on(lp, rr, k))
				continue;
			T a = src.data_[lane_offset(rr, k, epb, p.srcBlkStride, p.srcRepStride)];
			dst.data_[lane_offset(rr, k, epb, p.dstBlkStride, p.dstRepStride)] = num<T>::store(fn(num<T>::load(a)));
		}
}

} // namespace ascendsim

// ---- binary: Add Sub Mul Div Max Min And Or -------------------------------

#define ASCENDSIM_BINARY(NAME, OP, MSG, ...)                                                                          \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,         \
			 const int32_t &count, ascendsim::srcloc loc = {})                                           \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		ascendsim::binary_count<ascendsim::OP>(#NAME, dst, src0, src1, count, loc);                          \
	}                                                                                                             \
	template <class T, ASCENDSIM_ADDRESSABLE>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,         \
			 const int32_t &count, ascendsim_none...)                                                     \
	{                                                                                                             \
		NAME(dst, src0, src1, count, ascendsim::indirect_loc());                                             \
	}                                                                                                             \
	/* repeatTimes is a uint8_t; any integer is taken here so that 256 and up are reported, not wrapped */       \
	template <class T, bool isSetMask = true, class R>                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,         \
			 uint64_t mask, const R repeatTimes, const BinaryRepeatParams &repeatParams,                \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		ascendsim::binary_mask<ascendsim::OP>(#NAME, dst, src0, src1, isSetMask, nullptr, mask,              \
						      ascendsim::repeat_arg(repeatTimes), repeatParams, loc);        \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,         \
			 uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams &repeatParams,          \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		ascendsim::binary_mask<ascendsim::OP>(#NAME, dst, src0, src1, isSetMask, nullptr, mask, repeatTimes, \
						      repeatParams, loc);                                            \
	}                                                                                                             \
	template <class T, bool isSetMask = true, ASCENDSIM_ADDRESSABLE>                                              \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,         \
			 uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams &repeatParams,          \
			 ascendsim_none...)                                                                           \
	{                                                                                                             \
		NAME<T, isSetMask>(dst, src0, src1, mask, repeatTimes, repeatParams, ascendsim::indirect_loc());     \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,         \
			 const uint64_t mask[], const int32_t repeatTimes, const BinaryRepeatParams &repeatParams,  \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		ascendsim::binary_mask<ascendsim::OP>(#NAME, dst, src0, src1, isSetMask, mask, 0, repeatTimes,       \
						      repeatParams, loc);                                            \
	}

// ---- scalar: Adds Muls Maxs Mins ShiftLeft ShiftRight LeakyRelu -----------

#define ASCENDSIM_SCALAR(NAME, OP, MSG, ...)                                                                          \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,                \
			 const int32_t &count, ascendsim::srcloc loc = {})                                           \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		auto s = ascendsim::num<T>::load(scalarValue);                                                       \
		ascendsim::unary_count(#NAME, dst, src, count, [s](decltype(s) a) ASCENDSIM_NOCOV { return ascendsim::OP::f(a, s); }, \
				       loc);                                                                           \
	}                                                                                                             \
	template <class T, ASCENDSIM_ADDRESSABLE>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,                \
			 const int32_t &count, ascendsim_none...)                                                     \
	{                                                                                                             \
		NAME(dst, src, scalarValue, count, ascendsim::indirect_loc());                                       \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask, \
			 const int32_t repeatTimes, const UnaryRepeatParams &repeatParams, ascendsim::srcloc loc = {}) \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		auto s = ascendsim::num<T>::load(scalarValue);                                                       \
		ascendsim::unary_mask(#NAME, dst, src, isSetMask, nullptr, mask, repeatTimes, repeatParams,          \
				      [s](decltype(s) a) ASCENDSIM_NOCOV { return ascendsim::OP::f(a, s); }, loc);                   \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue,                \
			 const uint64_t mask[], const int32_t repeatTimes, const UnaryRepeatParams &repeatParams,   \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		auto s = ascendsim::num<T>::load(scalarValue);                                                       \
		ascendsim::unary_mask(#NAME, dst, src, isSetMask, mask, 0, repeatTimes, repeatParams,                \
				      [s](decltype(s) a) ASCENDSIM_NOCOV { return ascendsim::OP::f(a, s); }, loc);                   \
	}

// ---- unary: Exp Ln Abs Sqrt Rsqrt Reciprocal Relu Not ---------------------

#define ASCENDSIM_UNARY(NAME, OP, MSG, ...)                                                                           \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count,                \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		using C = typename ascendsim::num<T>::calc;                                                          \
		ascendsim::unary_count(#NAME, dst, src, count, [](C a) ASCENDSIM_NOCOV { return (C)ascendsim::OP::f(a); }, loc);     \
	}                                                                                                             \
	template <class T, ASCENDSIM_ADDRESSABLE>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count,                \
			 ascendsim_none...)                                                                           \
	{                                                                                                             \
		NAME(dst, src, count, ascendsim::indirect_loc());                                                    \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask,                       \
			 const int32_t repeatTimes, const UnaryRepeatParams &repeatParams, ascendsim::srcloc loc = {}) \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		using C = typename ascendsim::num<T>::calc;                                                          \
		ascendsim::unary_mask(#NAME, dst, src, isSetMask, nullptr, mask, repeatTimes, repeatParams,          \
				      [](C a) ASCENDSIM_NOCOV { return (C)ascendsim::OP::f(a); }, loc);                              \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],               \
			 const int32_t repeatTimes, const UnaryRepeatParams &repeatParams, ascendsim::srcloc loc = {}) \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, __VA_ARGS__>::value, #NAME " supports " MSG);                  \
		using C = typename ascendsim::num<T>::calc;                                                          \
		ascendsim::unary_mask(#NAME, dst, src, isSetMask, mask, 0, repeatTimes, repeatParams,                \
				      [](C a) ASCENDSIM_NOCOV { return (C)ascendsim::OP::f(a); }, loc);                              \
	}

namespace AscendC {

ASCENDSIM_BINARY(Add, op_add, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_BINARY(Sub, op_sub, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_BINARY(Mul, op_mul, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_BINARY(Div, op_div, "half and float", half, float)
ASCENDSIM_BINARY(Max, op_max, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_BINARY(Min, op_min, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_BINARY(And, op_and, "int16_t and uint16_t", int16_t, uint16_t)
ASCENDSIM_BINARY(Or, op_or, "int16_t and uint16_t", int16_t, uint16_t)

ASCENDSIM_SCALAR(Adds, op_add, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_SCALAR(Muls, op_mul, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_SCALAR(Maxs, op_max, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_SCALAR(Mins, op_min, "half, float, int16_t and int32_t", half, float, int16_t, int32_t)
ASCENDSIM_SCALAR(ShiftLeft, op_shl, "int16_t, uint16_t, int32_t and uint32_t", int16_t, uint16_t, int32_t, uint32_t)
ASCENDSIM_SCALAR(ShiftRight, op_shr, "int16_t, uint16_t, int32_t and uint32_t", int16_t, uint16_t, int32_t, uint32_t)
ASCENDSIM_SCALAR(LeakyRelu, op_leaky, "half and float", half, float)

ASCENDSIM_UNARY(Exp, op_exp, "half and float", half, float)
ASCENDSIM_UNARY(Ln, op_ln, "half and float", half, float)
ASCENDSIM_UNARY(Abs, op_abs, "half and float", half, float)
ASCENDSIM_UNARY(Sqrt, op_sqrt, "half and float", half, float)
ASCENDSIM_UNARY(Rsqrt, op_rsqrt, "half and float", half, float)
ASCENDSIM_UNARY(Reciprocal, op_rec, "half and float", half, float)
ASCENDSIM_UNARY(Relu, op_relu, "half, float and int32_t", half, float, int32_t)
ASCENDSIM_UNARY(Not, op_not, "int16_t and uint16_t", int16_t, uint16_t)

// ---- Duplicate -------------------------------------------------------------

template <class T>
ASCENDSIM_NOCOV inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t>::value,
		      "Duplicate supports half, bfloat16_t, float, int16_t, uint16_t, int32_t and uint32_t");
	uint32_t n = ascendsim::count_arg(count, "Duplicate", loc);
	ascendsim::vec_operand(dst, n, "Duplicate", "dst", loc);
	ascendsim::instr r = ascendsim::vec_record("Duplicate", ascendsim::dtype_of<T>::code, n,
						   ascendsim::count_repeats<T>(n), loc);
	r.dst = ascendsim::span_of(dst, n);
	ascendsim::issue(r);
	for (uint32_t i = 0; i < n; i++)
		dst.data_[i] = scalarValue;
}

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void duplicate_mask(const LocalTensor<T> &dst, const T &v, const uint64_t *bits, uint64_t mask, int32_t repeat,
			   uint16_t blk, uint8_t rep, ascendsim::srcloc loc)
{
	constexpr uint32_t epb = 32 / sizeof(T);
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), isSetMask, bits, mask, repeat, "Duplicate", loc);
	uint64_t ed = ascendsim::lane_extent(lp, epb, blk, rep);
	ascendsim::vec_operand(dst, ed, "Duplicate", "dst", loc);
	ascendsim::instr r = ascendsim::vec_record("Duplicate", ascendsim::dtype_of<T>::code, 0, 0, loc);
	ascendsim::mask_record<T>(r, lp);
	r.blk_stride[0] = blk;
	r.rep_stride[0] = rep;
	r.dst = ascendsim::span_of(dst, ed);
	ascendsim::issue(r);
	for (uint32_t rr = 0; rr < lp.repeats; rr++)
		for (uint32_t k = 0; k < lp.lanes; k++)
			if (ascendsim::lane_on(lp, rr, k))
				dst.data_[ascendsim::lane_offset(rr, k, epb, blk, rep)] = v;
}

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, uint64_t mask, const int32_t repeatTimes,
		      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t>::value,
		      "Duplicate supports half, bfloat16_t, float, int16_t, uint16_t, int32_t and uint32_t");
	duplicate_mask<T, isSetMask>(dst, scalarValue, nullptr, mask, repeatTimes, dstBlockStride, dstRepeatStride, loc);
}

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const uint64_t mask[], const int32_t repeatTimes,
		      const uint16_t dstBlockStride, const uint8_t dstRepeatStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t>::value,
		      "Duplicate supports half, bfloat16_t, float, int16_t, uint16_t, int32_t and uint32_t");
	duplicate_mask<T, isSetMask>(dst, scalarValue, mask, 0, repeatTimes, dstBlockStride, dstRepeatStride, loc);
}

// ---- Axpy: dst = dst + src * scalar ----------------------------------------

template <class T, class U>
ASCENDSIM_NOCOV inline void Axpy(const LocalTensor<T> &dst, const LocalTensor<U> &src, const U scalarValue, const int32_t &count,
		 ascendsim::srcloc loc = {})
{
	static_assert((std::is_same<T, half>::value && std::is_same<U, half>::value) ||
			  (std::is_same<T, float>::value && std::is_same<U, float>::value) ||
			  (std::is_same<T, float>::value && std::is_same<U, half>::value),
		      "Axpy supports (half, half), (float, float) and (float, half)");
	uint32_t n = ascendsim::count_arg(count, "Axpy", loc);
	ascendsim::vec_operand(dst, n, "Axpy", "dst", loc);
	ascendsim::vec_operand(src, n, "Axpy", "src", loc);
	ascendsim::instr r = ascendsim::vec_record("Axpy", ascendsim::dtype_of<T>::code, n, ascendsim::count_repeats<T>(n), loc);
	r.src_dtype = ascendsim::dtype_of<U>::code;
	r.dst = ascendsim::span_of(dst, n);
	r.src[0] = ascendsim::span_of(src, n);
	r.src[1] = r.dst;
	ascendsim::issue(r);
	float s = ascendsim::num<U>::load(scalarValue);
	for (uint32_t i = 0; i < n; i++) {
		float prod = ascendsim::num<U>::load(src.data_[i]) * s;
		if constexpr (std::is_same<U, half>::value && std::is_same<T, half>::value)
			prod = ascendsim::num<half>::load(ascendsim::num<half>::store(prod));
		dst.data_[i] = ascendsim::num<T>::store(ascendsim::num<T>::load(dst.data_[i]) + prod);
	}
}

// ---- Cast -------------------------------------------------------------------

// DEQSCALE: the half scale SetDeqScale(half) leaves for the int32_t -> half
// Cast (s322fp16), which multiplies by it and ignores its RoundMode.
ASCENDSIM_NOCOV inline void SetDeqScale(half scale, ascendsim::srcloc loc = {})
{
	std::memcpy(&ascendsim::g_core->deq_scale, &scale, 2);
	ascendsim::g_core->deq_set = true;
	ascendsim::instr r{};
	r.name = "SetDeqScale";
	r.loc = loc;
	r.kind = ascendsim::INSTR_CONTROL;
	r.pipe = ascendsim::PIPE_ID_S;
	r.event_id = -1;
	ascendsim::issue(r);
}

} // namespace AscendC

namespace ascendsim {

// The int32_t -> half Cast: DEQSCALE must have been set, and only a scale
// of 1 (plain conversion, nearest even) is emulated.
template <class D, class S> ASCENDSIM_NOCOV inline uint8_t cast_mode_for(uint8_t mode, srcloc loc)
{
	if constexpr (std::is_same<D, half>::value && std::is_same<S, int32_t>::value) {
		if (!g_core->deq_set)
			violation("invalid_argument", loc,
				  "Cast int32_t -> half multiplies by DEQSCALE, which SetDeqScale(half) never set");
		else if (g_core->deq_scale != 0x3c00)
			unsupported(loc, "Cast int32_t -> half with a DEQSCALE other than 1.0 is not emulated");
		return CM_NONE;
	}
	return mode;
}

} // namespace ascendsim

namespace AscendC {

template <class D, class S>
ASCENDSIM_NOCOV inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode, const uint32_t count,
		 ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::cast_supported<D, S>(), "Cast does not support this pair of types on the 910B vector unit");
	if constexpr (ascendsim::cast_int4<D, S>()) {
		(void)dst, (void)src, (void)roundMode, (void)count;
		ascendsim::unsupported(loc, "Cast %s: int4b_t tensors (two elements a byte) are not emulated",
				       std::is_same<D, int4b_t>::value ? "half -> int4b_t" : "int4b_t -> half");
	} else {
		uint8_t mode = (uint8_t)roundMode;
		if (mode == ascendsim::CM_ODD && !(std::is_same<D, half>::value && std::is_same<S, float>::value))
			ascendsim::fail("invalid_argument", loc, "Cast: CAST_ODD is only defined for float -> half");
		mode = ascendsim::cast_mode_for<D, S>(mode, loc);
		uint32_t n = count;
		ascendsim::vec_operand(dst, n, "Cast", "dst", loc);
		ascendsim::vec_operand(src, n, "Cast", "src", loc);
		constexpr size_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
		ascendsim::instr r = ascendsim::vec_record("Cast", ascendsim::dtype_of<D>::code, n, ((uint64_t)n * wide + 255) / 256, loc);
		r.src_dtype = ascendsim::dtype_of<S>::code;
		r.dst = ascendsim::span_of(dst, n);
		r.src[0] = ascendsim::span_of(src, n);
		ascendsim::issue(r);
		D *d = dst.data_;
		const S *s = src.data_;
		if (sizeof(D) > sizeof(S) && (const void *)d == (const void *)s) {
			for (uint32_t i = n; i-- > 0;)
				d[i] = ascendsim::cast_value<D, S>(s[i], mode);
		} else {
			for (uint32_t i = 0; i < n; i++)
				d[i] = ascendsim::cast_value<D, S>(s[i], mode);
		}
	}
}

// ScalarCast: one scalar through Cast's conversion rules.  Documented for
// float -> half with CAST_ODD and float -> int32_t with CAST_ROUND,
// CAST_CEIL, CAST_FLOOR or CAST_RINT only.
template <class T, class U, RoundMode roundMode> ASCENDSIM_NOCOV inline U ScalarCast(T valueIn)
{
	static_assert(std::is_same<T, float>::value && ascendsim::is_one_of<U, half, int32_t>::value,
		      "ScalarCast converts float to half or int32_t");
	static_assert(!std::is_same<U, half>::value || roundMode == RoundMode::CAST_ODD,
		      "ScalarCast float -> half takes CAST_ODD");
	static_assert(!std::is_same<U, int32_t>::value ||
			  (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
			   roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT),
		      "ScalarCast float -> int32_t takes CAST_ROUND, CAST_CEIL, CAST_FLOOR or CAST_RINT");
	return ascendsim::cast_value<U, T>(valueIn, (uint8_t)roundMode);
}

template <class D, class S, bool isSetMask>
ASCENDSIM_NOCOV inline void cast_mask(const LocalTensor<D> &dst, const LocalTensor<S> &src, uint8_t mode, const uint64_t *bits,
		      uint64_t mask, int32_t repeat, const UnaryRepeatParams &p, ascendsim::srcloc loc)
{
	if constexpr (ascendsim::cast_int4<D, S>()) {
		(void)dst, (void)src, (void)mode, (void)bits, (void)mask, (void)repeat, (void)p;
		ascendsim::unsupported(loc, "Cast %s: int4b_t tensors (two elements a byte) are not emulated",
				       std::is_same<D, int4b_t>::value ? "half -> int4b_t" : "int4b_t -> half");
	} else {
		constexpr uint32_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
		constexpr uint32_t epb_d = 32 / sizeof(D), epb_s = 32 / sizeof(S);
		if (mode == ascendsim::CM_ODD && !(std::is_same<D, half>::value && std::is_same<S, float>::value))
			ascendsim::fail("invalid_argument", loc, "Cast: CAST_ODD is only defined for float -> half");
		mode = ascendsim::cast_mode_for<D, S>(mode, loc);
		ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / wide, isSetMask, bits, mask, repeat, "Cast", loc);
		uint64_t ed = ascendsim::lane_extent(lp, epb_d, p.dstBlkStride, p.dstRepStride);
		uint64_t es = ascendsim::lane_extent(lp, epb_s, p.srcBlkStride, p.srcRepStride);
		ascendsim::vec_operand(dst, ed, "Cast", "dst", loc);
		ascendsim::vec_operand(src, es, "Cast", "src", loc);
		ascendsim::instr r = ascendsim::vec_record("Cast", ascendsim::dtype_of<D>::code, 0, 0, loc);
		ascendsim::mask_record<D>(r, lp);
		r.src_dtype = ascendsim::dtype_of<S>::code;
		r.blk_stride[0] = p.dstBlkStride;
		r.blk_stride[1] = p.srcBlkStride;
		r.rep_stride[0] = p.dstRepStride;
		r.rep_stride[1] = p.srcRepStride;
		r.dst = ascendsim::span_of(dst, ed);
		r.src[0] = ascendsim::span_of(src, es);
		ascendsim::issue(r);
		for (uint32_t rr = 0; rr < lp.repeats; rr++)
			for (uint32_t k = 0; k < lp.lanes; k++)
				if (ascendsim::lane_on(lp, rr, k))
					dst.data_[ascendsim::lane_offset(rr, k, epb_d, p.dstBlkStride, p.dstRepStride)] =
					    ascendsim::cast_value<D, S>(
						src.data_[ascendsim::lane_offset(rr, k, epb_s, p.srcBlkStride, p.srcRepStride)], mode);
	}
}

template <class D, class S, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode, uint64_t mask,
		 const int32_t repeatTimes, const UnaryRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::cast_supported<D, S>(), "Cast does not support this pair of types on the 910B vector unit");
	cast_mask<D, S, isSetMask>(dst, src, (uint8_t)roundMode, nullptr, mask, repeatTimes, repeatParams, loc);
}

template <class D, class S, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode, const uint64_t mask[],
		 const int32_t repeatTimes, const UnaryRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::cast_supported<D, S>(), "Cast does not support this pair of types on the 910B vector unit");
	cast_mask<D, S, isSetMask>(dst, src, (uint8_t)roundMode, mask, 0, repeatTimes, repeatParams, loc);
}

// ---- Compare / CompareScalar / Select ------------------------------------------

} // namespace AscendC

namespace ascendsim {

template <class C> ASCENDSIM_NOCOV inline bool compare_lanes(C a, C b, AscendC::CMPMODE m)
{
	switch (m) {
	case AscendC::CMPMODE::LT: return a < b;
	case AscendC::CMPMODE::GT: return a > b;
	case AscendC::CMPMODE::EQ: return a == b;
	case AscendC::CMPMODE::LE: return a <= b;
	case AscendC::CMPMODE::GE: return a >= b;
	default: return a != b;
	}
}

// The count form works on whole 256-byte repeats.
template <class T> ASCENDSIM_NOCOV inline void compare_count_check(uint32_t n, const char *api, srcloc loc)
{
	if ((n * sizeof(T)) % 256 != 0)
		violation("invalid_argument", loc, "%s: count %u x %zu bytes is not a whole number of 256-byte repeats", api,
			  n, sizeof(T));
}

template <class U, class T, class Get1>
ASCENDSIM_NOCOV inline void compare_run(const char *api, const AscendC::LocalTensor<U> &dst, const AscendC::LocalTensor<T> &src0,
			const AscendC::LocalTensor<T> *src1, Get1 get1, AscendC::CMPMODE mode, uint32_t n, srcloc loc)
{
	if (std::is_same<T, int32_t>::value && mode != AscendC::CMPMODE::EQ)
		fail("invalid_argument", loc, "%s: int32_t operands support only CMPMODE::EQ on Atlas A2", api);
	if (n == 0)
		return; /* a NOP on Atlas A2 */
	compare_count_check<T>(n, api, loc);
	uint32_t nbytes = (n + 7) / 8;
	uint32_t melems = (uint32_t)((nbytes + sizeof(U) - 1) / sizeof(U)); /* dst elements the bits fill */
	vec_operand(dst, melems, api, "dst", loc);
	vec_operand(src0, n, api, "src0", loc);
	if (src1)
		vec_operand(*src1, n, api, "src1", loc);
	instr r = vec_record(api, dtype_of<T>::code, n, count_repeats<T>(n), loc);
	r.dst = span_of(dst, melems);
	r.src[0] = span_of(src0, n);
	if (src1)
		r.src[1] = span_of(*src1, n);
	issue(r);
	uint8_t *bits = reinterpret_cast<uint8_t *>(dst.data_);
	std::memset(bits, 0, nbytes);
	for (uint32_t i = 0; i < n; i++)
		if (compare_lanes(num<T>::load(src0.data_[i]), get1(i), mode))
			bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

} // namespace ascendsim

namespace AscendC {

template <class T, class U>
ASCENDSIM_NOCOV inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
		    uint32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float, int32_t>::value,
		      "Compare supports half and float, and int32_t with CMPMODE::EQ");
	static_assert(ascendsim::is_bit_container<U>::value, "Compare writes its bit mask to an integer tensor");
	const T *b = src1.data_;
	ascendsim::compare_run("Compare", dst, src0, &src1, [b](uint32_t i) ASCENDSIM_NOCOV { return ascendsim::num<T>::load(b[i]); },
			       cmpMode, count, loc);
}

} // namespace AscendC

namespace ascendsim {

// The mask/repeat forms of Compare and CompareScalar: on Atlas A2 the mask
// is a reserved parameter with no effect (vcmpv has none), so every lane of
// every repeat is compared; repeat r's bits land in dst right after repeat
// r-1's (lanes/8 bytes on), whatever the dst strides say.
template <class U, class T, class Get1>
ASCENDSIM_NOCOV inline void compare_repeat(const char *api, const AscendC::LocalTensor<U> &dst, const AscendC::LocalTensor<T> &src0,
					   const AscendC::LocalTensor<T> *src1, Get1 get1, AscendC::CMPMODE mode, uint8_t repeat,
					   uint16_t s0blk, uint16_t s0rep, uint16_t s1blk, uint16_t s1rep, srcloc loc)
{
	if (std::is_same<T, int32_t>::value && mode != AscendC::CMPMODE::EQ)
		fail("invalid_argument", loc, "%s: int32_t operands support only CMPMODE::EQ on Atlas A2", api);
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T);
	lane_plan lp{};
	lp.lanes = lanes;
	lp.repeats = repeat;
	lp.bits[0] = ~0ULL;
	lp.bits[1] = lanes > 64 ? ~0ULL : 0;
	if (repeat == 0)
		return;
	uint64_t nbytes = (uint64_t)repeat * lanes / 8;
	uint64_t melems = (nbytes + sizeof(U) - 1) / sizeof(U); /* dst elements the bits fill */
	uint64_t e0 = lane_extent(lp, epb, s0blk, s0rep);
	uint64_t e1 = src1 ? lane_extent(lp, epb, s1blk, s1rep) : 0;
	vec_operand(dst, melems, api, "dst", loc);
	vec_operand(src0, e0, api, "src0", loc);
	if (src1)
		vec_operand(*src1, e1, api, "src1", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[1] = s0blk;
	r.blk_stride[2] = s1blk;
	r.rep_stride[1] = s0rep;
	r.rep_stride[2] = s1rep;
	r.dst = span_of(dst, melems);
	r.src[0] = span_of(src0, e0);
	if (src1)
		r.src[1] = span_of(*src1, e1);
	issue(r);
	uint8_t *bits = reinterpret_cast<uint8_t *>(dst.data_);
	std::memset(bits, 0, nbytes);
	for (uint32_t rr = 0; rr < repeat; rr++)
		for (uint32_t k = 0; k < lanes; k++) {
			auto a = num<T>::load(src0.data_[lane_offset(rr, k, epb, s0blk, s0rep)]);
			if (compare_lanes(a, get1(lane_offset(rr, k, epb, s1blk, s1rep)), mode))
				bits[(rr * lanes + k) >> 3] |= (uint8_t)(1u << (k & 7));
		}
}

} // namespace ascendsim

namespace AscendC {

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
				    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
				    ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float, int32_t>::value,
		      "Compare supports half and float, and int32_t with CMPMODE::EQ");
	static_assert(ascendsim::is_bit_container<U>::value, "Compare writes its bit mask to an integer tensor");
	(void)mask; /* reserved on Atlas A2 */
	const T *b = src1.data_;
	ascendsim::compare_repeat("Compare", dst, src0, &src1, [b](uint64_t i) ASCENDSIM_NOCOV { return ascendsim::num<T>::load(b[i]); },
				  cmpMode, repeatTime, repeatParams.src0BlkStride, repeatParams.src0RepStride,
				  repeatParams.src1BlkStride, repeatParams.src1RepStride, loc);
}

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Compare(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
				    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
				    ascendsim::srcloc loc = {})
{
	(void)mask; /* reserved on Atlas A2 */
	Compare<T, U, isSetMask>(dst, src0, src1, cmpMode, (uint64_t)0, repeatTime, repeatParams, loc);
}

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
					  const uint64_t mask, uint8_t repeatTime, const UnaryRepeatParams &repeatParams,
					  ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float, int32_t>::value,
		      "CompareScalar supports half and float, and int32_t with CMPMODE::EQ");
	static_assert(ascendsim::is_bit_container<U>::value, "CompareScalar writes its bit mask to an integer tensor");
	(void)mask; /* reserved on Atlas A2 */
	auto s = ascendsim::num<T>::load(src1Scalar);
	ascendsim::compare_repeat("CompareScalar", dst, src0, (const LocalTensor<T> *)nullptr,
				  [s](uint64_t) ASCENDSIM_NOCOV { return s; }, cmpMode, repeatTime, repeatParams.srcBlkStride,
				  repeatParams.srcRepStride, 0, 0, loc);
}

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
					  const uint64_t mask[], uint8_t repeatTime, const UnaryRepeatParams &repeatParams,
					  ascendsim::srcloc loc = {})
{
	(void)mask; /* reserved on Atlas A2 */
	CompareScalar<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, (uint64_t)0, repeatTime, repeatParams, loc);
}

template <class T, class U>
ASCENDSIM_NOCOV inline void CompareScalar(const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
			  uint32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float, int32_t>::value,
		      "CompareScalar supports half and float, and int32_t with CMPMODE::EQ");
	static_assert(ascendsim::is_bit_container<U>::value, "CompareScalar writes its bit mask to an integer tensor");
	auto s = ascendsim::num<T>::load(src1Scalar);
	ascendsim::compare_run("CompareScalar", dst, src0, (const LocalTensor<T> *)nullptr, [s](uint32_t) ASCENDSIM_NOCOV { return s; },
			       cmpMode, count, loc);
}

} // namespace AscendC

namespace ascendsim {

// One Select over `lp`'s lanes.  Mode 0 (VSEL_CMPMASK_SPR with a selMask
// tensor) applies the first `lanes` bits of selMask to every repeat; modes 1
// and 2 walk on through selMask, repeat r using bits r*lanes... .  A set bit
// takes src0, a clear one src1 (a tensor, or the scalar in mode 1); lanes
// the mask leaves off keep dst.
template <class T, class U, class Get1>
ASCENDSIM_NOCOV inline void select_lanes(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<U> &selMask,
					 const AscendC::LocalTensor<T> &src0, const AscendC::LocalTensor<T> *src1, Get1 get1,
					 AscendC::SELMODE mode, const lane_plan &lp, const AscendC::BinaryRepeatParams &p,
					 srcloc loc)
{
	static_assert(is_bit_container<U>::value, "Select takes its mask as an integer tensor");
	constexpr uint32_t epb = 32 / sizeof(T);
	if (src1 && mode == AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE)
		fail("invalid_argument", loc, "%s with two tensors needs VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE", api);
	if (!src1 && mode != AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE)
		fail("invalid_argument", loc, "%s with a scalar needs VSEL_TENSOR_SCALAR_MODE", api);
	bool same_bits = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
	uint64_t ed = lane_extent(lp, epb, p.dstBlkStride, p.dstRepStride);
	uint64_t e0 = lane_extent(lp, epb, p.src0BlkStride, p.src0RepStride);
	uint64_t e1 = src1 ? lane_extent(lp, epb, p.src1BlkStride, p.src1RepStride) : 0;
	uint64_t nbits = same_bits ? lp.lanes : (uint64_t)lp.repeats * lp.lanes;
	if (lp.counter && !same_bits)
		nbits = lp.total;
	uint64_t mask_elems = (nbits + 8 * sizeof(U) - 1) / (8 * sizeof(U));
	vec_operand(dst, ed, api, "dst", loc);
	vec_operand(selMask, mask_elems, api, "selMask", loc);
	vec_operand(src0, e0, api, "src0", loc);
	if (src1)
		vec_operand(*src1, e1, api, "src1", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[0] = p.dstBlkStride;
	r.blk_stride[1] = p.src0BlkStride;
	r.blk_stride[2] = p.src1BlkStride;
	r.rep_stride[0] = p.dstRepStride;
	r.rep_stride[1] = p.src0RepStride;
	r.rep_stride[2] = p.src1RepStride;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src0, e0);
	if (src1)
		r.src[1] = span_of(*src1, e1);
	r.src[2] = span_of(selMask, mask_elems);
	issue(r);
	const uint8_t *m = reinterpret_cast<const uint8_t *>(selMask.data_);
	for (uint32_t rr = 0; rr < lp.repeats; rr++)
		for (uint32_t k = 0; k < lp.lanes; k++) {
			if (!lane_on(lp, rr, k))
				continue;
			uint64_t bit = same_bits ? k : (uint64_t)rr * lp.lanes + k;
			uint64_t o1 = lane_offset(rr, k, epb, p.src1BlkStride, p.src1RepStride);
			T a = src0.data_[lane_offset(rr, k, epb, p.src0BlkStride, p.src0RepStride)];
			dst.data_[lane_offset(rr, k, epb, p.dstBlkStride, p.dstRepStride)] =
			    ((m[bit >> 3] >> (bit & 7)) & 1) ? a : get1(o1);
		}
}

// The count form: whole 256-byte repeats with dense operands; the tail of
// the last repeat is masked off.
template <class T, class U, class Get1>
ASCENDSIM_NOCOV inline void select_run(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<U> &selMask,
		       const AscendC::LocalTensor<T> &src0, const AscendC::LocalTensor<T> *src1, Get1 get1,
		       AscendC::SELMODE mode, uint32_t n, srcloc loc)
{
	lane_plan lp{};
	lp.counter = true;
	lp.lanes = 256 / sizeof(T);
	lp.total = n;
	lp.repeats = (n + lp.lanes - 1) / lp.lanes;
	if (n == 0)
		return; /* a NOP */
	select_lanes("Select", dst, selMask, src0, src1, get1, mode, lp, AscendC::BinaryRepeatParams(), loc);
}

} // namespace ascendsim

namespace AscendC {

template <class T, class U>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
		   const LocalTensor<T> &src1, SELMODE selMode, uint32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Select supports half and float");
	const T *b = src1.data_;
	ascendsim::select_run(dst, selMask, src0, &src1, [b](uint64_t i) ASCENDSIM_NOCOV { return b[i]; }, selMode, count, loc);
}

template <class T, class U>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
		   SELMODE selMode, uint32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Select supports half and float");
	ascendsim::select_run(dst, selMask, src0, (const LocalTensor<T> *)nullptr, [src1](uint64_t) ASCENDSIM_NOCOV { return src1; },
			      selMode, count, loc);
}

// The mask/repeat forms (modes 0 and 2 with two tensors, mode 1 with a
// scalar); the mask filters the selection, lanes it leaves off keep dst.
template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
				   const LocalTensor<T> &src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
				   const BinaryRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Select supports half and float");
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), isSetMask, nullptr, mask, repeatTime, "Select", loc);
	const T *b = src1.data_;
	ascendsim::select_lanes("Select", dst, selMask, src0, &src1, [b](uint64_t i) ASCENDSIM_NOCOV { return b[i]; }, selMode, lp,
				repeatParams, loc);
}

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
				   const LocalTensor<T> &src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
				   const BinaryRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Select supports half and float");
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), isSetMask, mask, 0, repeatTime, "Select", loc);
	const T *b = src1.data_;
	ascendsim::select_lanes("Select", dst, selMask, src0, &src1, [b](uint64_t i) ASCENDSIM_NOCOV { return b[i]; }, selMode, lp,
				repeatParams, loc);
}

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
				   SELMODE selMode, uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
				   ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Select supports half and float");
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), isSetMask, nullptr, mask, repeatTime, "Select", loc);
	ascendsim::select_lanes("Select", dst, selMask, src0, (const LocalTensor<T> *)nullptr,
				[src1](uint64_t) ASCENDSIM_NOCOV { return src1; }, selMode, lp, repeatParams, loc);
}

template <class T, class U, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
				   SELMODE selMode, uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams &repeatParams,
				   ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Select supports half and float");
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), isSetMask, mask, 0, repeatTime, "Select", loc);
	ascendsim::select_lanes("Select", dst, selMask, src0, (const LocalTensor<T> *)nullptr,
				[src1](uint64_t) ASCENDSIM_NOCOV { return src1; }, selMode, lp, repeatParams, loc);
}

} // namespace AscendC

// ---- whole-tensor operators --------------------------------------------------------------------

namespace ascendsim {

template <class T, bool cmp> struct tensor_expr {
	AscendC::LocalTensor<T> a, b;
	tensor_op op;
};

// The arithmetic forms run over the destination's whole length, the
// comparisons over src0's (whole 256-byte repeats).  Errors point here: an
// operator cannot take the caller's line.
template <class D, class T, bool cmp>
ASCENDSIM_NOCOV inline void tensor_assign(const AscendC::LocalTensor<D> &dst, const tensor_expr<T, cmp> &e)
{
	srcloc loc;
	if constexpr (!cmp) {
		static_assert(std::is_same<D, T>::value, "dst = src0 OP src1: dst must have the sources' type");
		int32_t n = (int32_t)dst.GetSize();
		switch (e.op) {
		case TOP_ADD: AscendC::Add(dst, e.a, e.b, n, loc); break;
		case TOP_SUB: AscendC::Sub(dst, e.a, e.b, n, loc); break;
		case TOP_MUL: AscendC::Mul(dst, e.a, e.b, n, loc); break;
		default: AscendC::Div(dst, e.a, e.b, n, loc); break;
		}
	} else {
		static const AscendC::CMPMODE modes[] = {AscendC::CMPMODE::LT, AscendC::CMPMODE::GT, AscendC::CMPMODE::LE,
							 AscendC::CMPMODE::GE, AscendC::CMPMODE::EQ, AscendC::CMPMODE::NE};
		AscendC::Compare(dst, e.a, e.b, modes[e.op - TOP_LT], e.a.GetSize(), loc);
	}
}

} // namespace ascendsim

namespace AscendC {

#define ASCENDSIM_TENSOR_OP(SYM, OP, CMP)                                                                             \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline ascendsim::tensor_expr<T, CMP> operator SYM(const LocalTensor<T> &src0,                \
									    const LocalTensor<T> &src1)                \
	{                                                                                                             \
		return ascendsim::tensor_expr<T, CMP>{src0, src1, ascendsim::OP};                                     \
	}
ASCENDSIM_TENSOR_OP(+, TOP_ADD, false)
ASCENDSIM_TENSOR_OP(-, TOP_SUB, false)
ASCENDSIM_TENSOR_OP(*, TOP_MUL, false)
ASCENDSIM_TENSOR_OP(/, TOP_DIV, false)
ASCENDSIM_TENSOR_OP(<, TOP_LT, true)
ASCENDSIM_TENSOR_OP(>, TOP_GT, true)
ASCENDSIM_TENSOR_OP(<=, TOP_LE, true)
ASCENDSIM_TENSOR_OP(>=, TOP_GE, true)
ASCENDSIM_TENSOR_OP(==, TOP_EQ, true)
ASCENDSIM_TENSOR_OP(!=, TOP_NE, true)
#undef ASCENDSIM_TENSOR_OP

// ---- Select with a byte mask (the library API, older name SelectWithBytesMask) ---------------

struct SelectWithBytesMaskShapeInfo {
	ASCENDSIM_NOCOV SelectWithBytesMaskShapeInfo() {}
	uint32_t firstAxis = 0;
	uint32_t srcLastAxis = 0;
	uint32_t maskLastAxis = 0;
};

} // namespace AscendC

namespace ascendsim {

// dst[i][j] = mask[i][j] == 0 ? first : second over firstAxis rows of
// srcLastAxis elements; the mask rows are maskLastAxis long and their tail
// is ignored.  Recorded as one instruction of its own class (the library
// API is a Cast, a Compare and a Select per row block).  The temporary
// buffer's minimum (GetSelectMinTmpSize) is not documented, so only its
// presence is checked.
template <class T, class U, class A, class B>
ASCENDSIM_NOCOV inline void select_bytes(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<U> &mask,
					 const AscendC::LocalTensor<uint8_t> &tmp, const AscendC::SelectWithBytesMaskShapeInfo &info,
					 const AscendC::LocalTensor<T> &src, A on_zero, B on_set, srcloc loc)
{
	static_assert(is_one_of<T, half, float>::value, "Select (byte mask) supports half and float");
	static_assert(is_one_of<U, bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t>::value,
		      "Select (byte mask): the mask is bool, int8_t, uint8_t, int16_t, uint16_t, int32_t or uint32_t");
	const char *api = "SelectWithBytesMask";
	uint64_t rows = info.firstAxis, sl = info.srcLastAxis, ml = info.maskLastAxis;
	if ((sl * sizeof(T)) % 32 != 0)
		fail("invalid_argument", loc, "%s: srcLastAxis %llu x %zu bytes is not 32-byte aligned", api,
		     (unsigned long long)sl, sizeof(T));
	if ((ml * sizeof(U)) % 32 != 0 || ml % 16 != 0)
		fail("invalid_argument", loc, "%s: maskLastAxis %llu must be a multiple of 16 and 32-byte aligned", api,
		     (unsigned long long)ml);
	if (ml < sl)
		fail("invalid_argument", loc, "%s: maskLastAxis %llu is shorter than srcLastAxis %llu", api,
		     (unsigned long long)ml, (unsigned long long)sl);
	uint64_t n = rows * sl;
	vec_operand(dst, n, api, "dst", loc);
	vec_operand(src, n, api, "src", loc);
	vec_operand(mask, rows * ml, api, "mask", loc);
	ub_check(tmp, 1, api, "sharedTmpBuffer", loc);
	instr r = vec_record(api, dtype_of<T>::code, n, count_repeats<T>(n), loc);
	r.src_dtype = dtype_of<U>::code;
	r.dst = span_of(dst, n);
	r.src[0] = span_of(src, n);
	r.src[1] = span_of(mask, rows * ml);
	issue(r);
	for (uint64_t i = 0; i < rows; i++)
		for (uint64_t j = 0; j < sl; j++) {
			U m;
			std::memcpy(&m, mask.data_ + i * ml + j, sizeof(U));
			dst.data_[i * sl + j] = m == (U)0 ? on_zero(i * sl + j) : on_set(i * sl + j);
		}
}

} // namespace ascendsim

namespace AscendC {

template <class T, class U, bool isReuseMask = true>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, const LocalTensor<T> &src0, T src1, const LocalTensor<U> &mask,
				   const LocalTensor<uint8_t> &sharedTmpBuffer, const SelectWithBytesMaskShapeInfo &info,
				   ascendsim::srcloc loc = {})
{
	const T *a = src0.data_;
	ascendsim::select_bytes(dst, mask, sharedTmpBuffer, info, src0, [a](uint64_t i) ASCENDSIM_NOCOV { return a[i]; },
				[src1](uint64_t) ASCENDSIM_NOCOV { return src1; }, loc);
}

template <class T, class U, bool isReuseMask = true>
ASCENDSIM_NOCOV inline void Select(const LocalTensor<T> &dst, T src0, const LocalTensor<T> &src1, const LocalTensor<U> &mask,
				   const LocalTensor<uint8_t> &sharedTmpBuffer, const SelectWithBytesMaskShapeInfo &info,
				   ascendsim::srcloc loc = {})
{
	const T *b = src1.data_;
	ascendsim::select_bytes(dst, mask, sharedTmpBuffer, info, src1, [src0](uint64_t) ASCENDSIM_NOCOV { return src0; },
				[b](uint64_t i) ASCENDSIM_NOCOV { return b[i]; }, loc);
}

template <class T, class U, bool isReuseMask = true>
ASCENDSIM_NOCOV inline void SelectWithBytesMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, T src1,
						const LocalTensor<U> &mask, const LocalTensor<uint8_t> &sharedTmpBuffer,
						const SelectWithBytesMaskShapeInfo &info, ascendsim::srcloc loc = {})
{
	Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer, info, loc);
}

template <class T, class U, bool isReuseMask = true>
ASCENDSIM_NOCOV inline void SelectWithBytesMask(const LocalTensor<T> &dst, T src0, const LocalTensor<T> &src1,
						const LocalTensor<U> &mask, const LocalTensor<uint8_t> &sharedTmpBuffer,
						const SelectWithBytesMaskShapeInfo &info, ascendsim::srcloc loc = {})
{
	Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer, info, loc);
}

} // namespace AscendC

#endif
