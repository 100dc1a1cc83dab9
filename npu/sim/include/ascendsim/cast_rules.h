// SPDX-License-Identifier: MIT
//
// Element conversion for Cast: every RoundMode, saturation and CAST_ODD.
// Rules (the simulator's reading of the documented semantics):
//  - CAST_NONE rounds to nearest even where precision is lost, else is exact.
//  - float destinations follow IEEE overflow per direction: nearest modes go
//    to infinity, toward-zero and to-odd stop at the largest finite value,
//    floor/ceil go to infinity only in their own direction.  NaN stays NaN.
//  - integer destinations round per mode, then saturate to the type's
//    range; NaN becomes 0.  CAST_ODD toward an integer acts as CAST_TRUNC
//    (the Cast API rejects that pairing before it gets here).
//  - float -> float with a rounding mode rounds to an integral float.
// The arithmetic runs in long double (64-bit significand), where every
// source value is exact.
#ifndef ASCENDSIM_CAST_RULES_H
#define ASCENDSIM_CAST_RULES_H

#include <cmath>
#include <limits>

#include "ascendsim/types.h"

namespace ascendsim {

enum cast_mode : uint8_t {
	CM_NONE = 0,
	CM_RINT,
	CM_FLOOR,
	CM_CEIL,
	CM_ROUND,
	CM_TRUNC,
	CM_ODD,
};

// Round a finite x to an integral value.
ASCENDSIM_NOCOV inline long double cast_round_integral(long double x, uint8_t mode)
{
	switch (mode) {
	case CM_FLOOR: return floorl(x);
	case CM_CEIL: return ceill(x);
	case CM_TRUNC: return truncl(x);
	case CM_ROUND: return roundl(x);
	case CM_ODD: {
		long double t = truncl(x);
		if (t != x && fmodl(t, 2.0L) == 0.0L)
			t += x > 0 ? 1.0L : -1.0L;
		return t;
	}
	default: { /* nearest, ties to even */
		long double f = floorl(x);
		long double d = x - f;
		if (d > 0.5L || (d == 0.5L && fmodl(f, 2.0L) != 0.0L))
			f += 1.0L;
		return f;
	}
	}
}

// Round a finite x to a binary format with `prec` significand bits, minimum
// normal exponent `emin` and largest finite value `maxval`.
ASCENDSIM_NOCOV inline long double cast_round_format(long double x, int prec, int emin, long double maxval, uint8_t mode)
{
	if (x == 0.0L)
		return x;
	int e;
	frexpl(fabsl(x), &e);
	int lead = e - 1;
	if (lead < emin)
		lead = emin;
	long double q = ldexpl(1.0L, lead - (prec - 1));
	long double r = cast_round_integral(x / q, mode) * q;
	if (fabsl(r) > maxval) {
		bool pos = x > 0;
		long double inf = std::numeric_limits<long double>::infinity();
		switch (mode) {
		case CM_TRUNC:
		case CM_ODD: return pos ? maxval : -maxval;
		case CM_FLOOR: return pos ? maxval : -inf;
		case CM_CEIL: return pos ? inf : -maxval;
		default: return pos ? inf : -inf;
		}
	}
	return r;
}

template <class S> ASCENDSIM_NOCOV inline long double cast_source(S v)
{
	if constexpr (std::is_same<S, half>::value)
		return (long double)half_bits_to_float(half_bits(v));
	else if constexpr (std::is_same<S, bfloat16_t>::value)
		return (long double)bf16_bits_to_float(v.bits_);
	else
		return (long double)v;
}

template <class S> ASCENDSIM_NOCOV inline bool cast_source_is_nan(S v)
{
	if constexpr (std::is_same<S, half>::value)
		return (half_bits(v) & 0x7fffu) > 0x7c00u;
	else if constexpr (std::is_same<S, bfloat16_t>::value)
		return (v.bits_ & 0x7fffu) > 0x7f80u;
	else if constexpr (std::is_floating_point<S>::value)
		return v != v;
	else
		return false;
}

template <class S> ASCENDSIM_NOCOV inline float cast_source_float(S v)
{
	if constexpr (std::is_same<S, half>::value)
		return half_bits_to_float(half_bits(v));
	else if constexpr (std::is_same<S, bfloat16_t>::value)
		return bf16_bits_to_float(v.bits_);
	else
		return (float)v;
}

template <class D, class S> ASCENDSIM_NOCOV inline D cast_value(S v, uint8_t mode)
{
	constexpr bool src_float = std::is_floating_point<S>::value || std::is_same<S, half>::value ||
				   std::is_same<S, bfloat16_t>::value;
	// Fast paths for the conversions real kernels use most.
	if constexpr (std::is_same<D, float>::value && std::is_same<S, half>::value) {
		(void)mode;
		return half_bits_to_float(half_bits(v));
	} else if constexpr (std::is_same<D, float>::value && std::is_same<S, bfloat16_t>::value) {
		(void)mode;
		return bf16_bits_to_float(v.bits_);
	} else if constexpr (std::is_same<D, half>::value && std::is_same<S, float>::value) {
		if (mode == CM_NONE || mode == CM_RINT || v != v || __builtin_isinf(v))
			return bits_half(float_to_half_bits(v));
		return bits_half(float_to_half_bits((float)cast_round_format((long double)v, 11, -14, 65504.0L, mode)));
	} else if constexpr (std::is_same<D, bfloat16_t>::value && std::is_same<S, float>::value) {
		bfloat16_t b;
		if (mode == CM_NONE || mode == CM_RINT || v != v || __builtin_isinf(v))
			b.bits_ = float_to_bf16_bits(v);
		else
			b.bits_ = float_to_bf16_bits((float)cast_round_format(
			    (long double)v, 8, -126, ldexpl(255.0L, 127 - 7), mode));
		return b;
	} else if constexpr (std::is_integral<D>::value) {
		if constexpr (src_float) {
			if (cast_source_is_nan(v))
				return (D)0;
		}
		long double x = cast_source(v);
		long double lo = (long double)std::numeric_limits<D>::min();
		long double hi = (long double)std::numeric_limits<D>::max();
		if (x <= lo)
			return std::numeric_limits<D>::min();
		if (x >= hi)
			return std::numeric_limits<D>::max();
		long double r = cast_round_integral(x, mode == CM_ODD ? (uint8_t)CM_TRUNC : mode);
		if (r <= lo)
			return std::numeric_limits<D>::min();
		if (r >= hi)
			return std::numeric_limits<D>::max();
		return (D)r;
	} else {
		// Floating destination from anything else.
		if constexpr (src_float) {
			if (cast_source_is_nan(v) || __builtin_isinf(cast_source_float(v))) {
				float f = cast_source_float(v);
				if constexpr (std::is_same<D, half>::value)
					return bits_half(float_to_half_bits(f));
				else if constexpr (std::is_same<D, bfloat16_t>::value) {
					bfloat16_t b;
					b.bits_ = float_to_bf16_bits(f);
					return b;
				} else
					return (D)f;
			}
		}
		long double x = cast_source(v);
		if constexpr (std::is_same<D, S>::value) {
			// Same type: a rounding mode asks for an integral value.
			if (mode == CM_NONE)
				return v;
			long double r = cast_round_integral(x, mode);
			if constexpr (std::is_same<D, half>::value)
				return bits_half(float_to_half_bits((float)r));
			else
				return (D)r;
		} else if constexpr (std::is_same<D, half>::value) {
			return bits_half(float_to_half_bits((float)cast_round_format(x, 11, -14, 65504.0L, mode)));
		} else if constexpr (std::is_same<D, bfloat16_t>::value) {
			bfloat16_t b;
			b.bits_ = float_to_bf16_bits((float)cast_round_format(x, 8, -126, ldexpl(255.0L, 127 - 7), mode));
			return b;
		} else {
			return (D)cast_round_format(x, 24, -126, (long double)std::numeric_limits<float>::max(), mode);
		}
	}
}

// The conversions Cast accepts on the 910B vector unit (asc-devkit Cast.md,
// the Atlas A2 table).  half <-> int4b_t compile, as a kernel that keeps an
// int4 branch for another dtype needs, and stop as unsupported if they run.
template <class D, class S> constexpr bool cast_supported()
{
	return (std::is_same<S, half>::value &&
		is_one_of<D, float, int32_t, int16_t, int8_t, uint8_t, int4b_t>::value) ||
	       (std::is_same<S, int4b_t>::value && is_one_of<D, half>::value) ||
	       (std::is_same<S, float>::value &&
		is_one_of<D, half, bfloat16_t, int32_t, int64_t, int16_t, float>::value) ||
	       (std::is_same<S, bfloat16_t>::value && is_one_of<D, float, int32_t>::value) ||
	       (std::is_same<S, int32_t>::value && is_one_of<D, float, half, int64_t, int16_t>::value) ||
	       (std::is_same<S, int16_t>::value && is_one_of<D, half, float>::value) ||
	       (std::is_same<S, int8_t>::value && is_one_of<D, half>::value) ||
	       (std::is_same<S, uint8_t>::value && is_one_of<D, half>::value) ||
	       (std::is_same<S, int64_t>::value && is_one_of<D, int32_t, float>::value);
}

// A Cast with an int4b_t side: accepted by the compiler, not emulated.
template <class D, class S> constexpr bool cast_int4()
{
	return std::is_same<D, int4b_t>::value || std::is_same<S, int4b_t>::value;
}

} // namespace ascendsim

#endif
