// SPDX-License-Identifier: MIT
//
// Numeric types of the simulated 910B vector core: half (GCC's _Float16),
// bfloat16_t (a struct, since GCC 12 has no C++ __bf16), bit-exact round to
// nearest even conversions, and a small dtype code used by instruction records.
// Written clean-room from IEEE 754 and the documented AscendC type names.
#ifndef ASCENDSIM_TYPES_H
#define ASCENDSIM_TYPES_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

using half = _Float16;

// The shim's own code is not the operator's: every function in these
// headers carries ASCENDSIM_NOCOV, so that when the kernel translation unit
// is compiled with -fsanitize-coverage=trace-pc only the operator's basic
// blocks reach the counter the cycle model charges to S (see
// runtime/timing.cpp).  GCC neither instruments nor inlines across the
// attribute, so API calls become calls, and the shim's loops stay uncounted.
#if defined(__has_attribute)
#if __has_attribute(no_sanitize_coverage)
#define ASCENDSIM_NOCOV __attribute__((no_sanitize_coverage))
#endif
#endif
#ifndef ASCENDSIM_NOCOV
#define ASCENDSIM_NOCOV
#endif

namespace ascendsim {

ASCENDSIM_NOCOV inline uint32_t float_bits(float f)
{
	uint32_t u;
	std::memcpy(&u, &f, 4);
	return u;
}

ASCENDSIM_NOCOV inline float bits_float(uint32_t u)
{
	float f;
	std::memcpy(&f, &u, 4);
	return f;
}

ASCENDSIM_NOCOV inline uint16_t half_bits(half h)
{
	uint16_t u;
	std::memcpy(&u, &h, 2);
	return u;
}

ASCENDSIM_NOCOV inline half bits_half(uint16_t u)
{
	half h;
	std::memcpy(&h, &u, 2);
	return h;
}

// Every half value as a float; filled once by the runtime at start-up.
extern float half_to_float_table[65536];

ASCENDSIM_NOCOV inline float half_bits_to_float(uint16_t h)
{
	return half_to_float_table[h];
}

// float -> half bits, round to nearest even, overflow to infinity, NaN kept
// quiet with the top payload bits.  Relies on the default FP environment
// (round to nearest, no flush to zero), which the harness never changes.
ASCENDSIM_NOCOV inline uint16_t float_to_half_bits(float f)
{
	uint32_t x = float_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t ax = x & 0x7fffffffu;
	if (ax >= 0x7f800000u) {
		if (ax > 0x7f800000u)
			return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x1ffu));
		return (uint16_t)(sign | 0x7c00u);
	}
	if (ax >= 0x477ff000u) /* >= 65520 rounds to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (ax >= 0x38800000u) { /* normal half range, >= 2^-14 */
		uint32_t r = ax - 0x38000000u;
		r += 0x0fffu + ((r >> 13) & 1u);
		return (uint16_t)(sign | (r >> 13));
	}
	/* Subnormal or zero: adding 0.5 puts the value where one float ulp is
	 * 2^-24, the half subnormal step, so the FPU does the rounding. */
	float a = bits_float(ax) + 0.5f;
	return (uint16_t)(sign | (float_bits(a) - 0x3f000000u));
}

ASCENDSIM_NOCOV inline float bf16_bits_to_float(uint16_t b)
{
	return bits_float((uint32_t)b << 16);
}

ASCENDSIM_NOCOV inline uint16_t float_to_bf16_bits(float f)
{
	uint32_t x = float_bits(f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x0040u);
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

} // namespace ascendsim

// bfloat16 as a plain struct of its bits.  Arithmetic goes through float and
// rounds back to nearest even, like every vector instruction does.
struct bfloat16_t {
	uint16_t bits_;

	bfloat16_t() = default;
	ASCENDSIM_NOCOV bfloat16_t(float f) : bits_(ascendsim::float_to_bf16_bits(f)) {}
	ASCENDSIM_NOCOV bfloat16_t(double d) : bits_(ascendsim::float_to_bf16_bits((float)d)) {}
	ASCENDSIM_NOCOV bfloat16_t(int i) : bits_(ascendsim::float_to_bf16_bits((float)i)) {}
	ASCENDSIM_NOCOV bfloat16_t(half h) : bits_(ascendsim::float_to_bf16_bits((float)h)) {}
	ASCENDSIM_NOCOV operator float() const { return ascendsim::bf16_bits_to_float(bits_); }

	ASCENDSIM_NOCOV bfloat16_t &operator+=(bfloat16_t o) { return *this = bfloat16_t((float)*this + (float)o); }
	ASCENDSIM_NOCOV bfloat16_t &operator-=(bfloat16_t o) { return *this = bfloat16_t((float)*this - (float)o); }
	ASCENDSIM_NOCOV bfloat16_t &operator*=(bfloat16_t o) { return *this = bfloat16_t((float)*this * (float)o); }
	ASCENDSIM_NOCOV bfloat16_t &operator/=(bfloat16_t o) { return *this = bfloat16_t((float)*this / (float)o); }
};

// int4b_t, the 4-bit signed integer CANN lists among Atlas A2's data types.
// Two share a byte, which the simulator's tensors cannot address, so the
// type is only named: kernels that test for it (IsSameType<T, int4b_t>) or
// keep a branch for an int4 output (a Cast between half and int4b_t, the
// pairs Atlas A2 documents) compile and run on the other dtypes; that Cast
// stops as unsupported if it runs, and any other API on a tensor of
// int4b_t has no dtype_of and does not compile.
struct int4b_t {
	int8_t storage_;
};

ASCENDSIM_NOCOV inline bfloat16_t operator+(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a + (float)b); }
ASCENDSIM_NOCOV inline bfloat16_t operator-(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a - (float)b); }
ASCENDSIM_NOCOV inline bfloat16_t operator*(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a * (float)b); }
ASCENDSIM_NOCOV inline bfloat16_t operator/(bfloat16_t a, bfloat16_t b) { return bfloat16_t((float)a / (float)b); }
ASCENDSIM_NOCOV inline bfloat16_t operator-(bfloat16_t a) { return bfloat16_t(-(float)a); }

namespace ascendsim {

// Element type codes carried by instruction records and the result JSON.
enum dtype_code : uint8_t {
	DTYPE_NONE = 0,
	DTYPE_F16,
	DTYPE_BF16,
	DTYPE_F32,
	DTYPE_I8,
	DTYPE_U8,
	DTYPE_I16,
	DTYPE_U16,
	DTYPE_I32,
	DTYPE_U32,
	DTYPE_I64,
	DTYPE_U64,
	DTYPE_BOOL,
	DTYPE_F64, /* GM tensors only (the harness's inputs and outputs) */
	DTYPE_C64, /* complex64: a float32 real and imaginary part; GM tensors only */
	DTYPE_COUNT
};

const char *dtype_name(uint8_t code); /* "float16", ... as in the spec */

template <class T> struct dtype_of { static constexpr dtype_code code = DTYPE_NONE; };
template <> struct dtype_of<half> { static constexpr dtype_code code = DTYPE_F16; };
template <> struct dtype_of<bfloat16_t> { static constexpr dtype_code code = DTYPE_BF16; };
template <> struct dtype_of<float> { static constexpr dtype_code code = DTYPE_F32; };
template <> struct dtype_of<int8_t> { static constexpr dtype_code code = DTYPE_I8; };
template <> struct dtype_of<uint8_t> { static constexpr dtype_code code = DTYPE_U8; };
template <> struct dtype_of<int16_t> { static constexpr dtype_code code = DTYPE_I16; };
template <> struct dtype_of<uint16_t> { static constexpr dtype_code code = DTYPE_U16; };
template <> struct dtype_of<int32_t> { static constexpr dtype_code code = DTYPE_I32; };
template <> struct dtype_of<uint32_t> { static constexpr dtype_code code = DTYPE_U32; };
template <> struct dtype_of<int64_t> { static constexpr dtype_code code = DTYPE_I64; };
template <> struct dtype_of<uint64_t> { static constexpr dtype_code code = DTYPE_U64; };
template <> struct dtype_of<bool> { static constexpr dtype_code code = DTYPE_BOOL; };

template <class T, class... U> struct is_one_of : std::disjunction<std::is_same<T, U>...> {};

// A tensor that holds a bit mask (Compare's and CompareScalar's dst, Select's
// selMask).  CANN documents uint8_t (and a few wider unsigned types) for it,
// but its functions take the container as a free template parameter and
// read or write the tensor's bytes as one bit array, so the container never
// changes a bit's place; CANN's own operators pass int8_t and uint16_t masks
// and build with it (cann-ops equal, less, radius, adaptive_max_pool3d).
// Any integer container is accepted; floating types are still refused.
template <class U> struct is_bit_container : std::integral_constant<bool, std::is_integral<U>::value && !std::is_same<U, bool>::value> {};

// How a vector instruction computes on a type: load widens to `calc`, store
// rounds (floats, to nearest even) or wraps (integers) back to the element.
template <class T> struct num {
	using calc = T;
	ASCENDSIM_NOCOV static T load(T v) { return v; }
	ASCENDSIM_NOCOV static T store(T v) { return v; }
};
template <> struct num<half> {
	using calc = float;
	ASCENDSIM_NOCOV static float load(half v) { return half_bits_to_float(half_bits(v)); }
	ASCENDSIM_NOCOV static half store(float f) { return bits_half(float_to_half_bits(f)); }
};
template <> struct num<bfloat16_t> {
	using calc = float;
	ASCENDSIM_NOCOV static float load(bfloat16_t v) { return bf16_bits_to_float(v.bits_); }
	ASCENDSIM_NOCOV static bfloat16_t store(float f)
	{
		bfloat16_t b;
		b.bits_ = float_to_bf16_bits(f);
		return b;
	}
};
template <> struct num<int8_t> {
	using calc = int32_t;
	ASCENDSIM_NOCOV static int32_t load(int8_t v) { return v; }
	ASCENDSIM_NOCOV static int8_t store(int32_t v) { return (int8_t)(uint8_t)(uint32_t)v; }
};
template <> struct num<uint8_t> {
	using calc = int32_t;
	ASCENDSIM_NOCOV static int32_t load(uint8_t v) { return v; }
	ASCENDSIM_NOCOV static uint8_t store(int32_t v) { return (uint8_t)(uint32_t)v; }
};
template <> struct num<int16_t> {
	using calc = int32_t;
	ASCENDSIM_NOCOV static int32_t load(int16_t v) { return v; }
	ASCENDSIM_NOCOV static int16_t store(int32_t v) { return (int16_t)(uint16_t)(uint32_t)v; }
};
template <> struct num<uint16_t> {
	using calc = int32_t;
	ASCENDSIM_NOCOV static int32_t load(uint16_t v) { return v; }
	ASCENDSIM_NOCOV static uint16_t store(int32_t v) { return (uint16_t)(uint32_t)v; }
};
template <> struct num<int32_t> {
	using calc = int64_t;
	ASCENDSIM_NOCOV static int64_t load(int32_t v) { return v; }
	ASCENDSIM_NOCOV static int32_t store(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
};
template <> struct num<uint32_t> {
	using calc = int64_t;
	ASCENDSIM_NOCOV static int64_t load(uint32_t v) { return v; }
	ASCENDSIM_NOCOV static uint32_t store(int64_t v) { return (uint32_t)(uint64_t)v; }
};

} // namespace ascendsim

#endif
