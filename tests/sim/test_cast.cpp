// SPDX-License-Identifier: MIT
//
// Cast against an independent implementation over every half bit pattern
// and every RoundMode, through the real AscendC::Cast API on a simulated
// core.  The reference rounds by searching the sorted table of all finite
// half values (float -> half) or with libm's directed rounding functions
// (-> integers), instead of the shim's arithmetic.  Prints TAP.
//
// Build (after npu/sim/build.sh lib BUILD):
//   g++ -std=gnu++17 -O2 -ffp-contract=off -I npu/sim/include tests/sim/test_cast.cpp \
//       -LBUILD -lascendsim -ljansson -o BUILD/test_cast
#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "../../npu/sim/runtime/internal.h"

using namespace AscendC;

static int test_no;
static int failures;

static void tap(bool ok, const std::string &name, const std::string &why)
{
	test_no++;
	std::printf("%s %d - %s\n", ok ? "ok" : "not ok", test_no, name.c_str());
	if (!ok) {
		failures++;
		std::printf("# %s\n", why.c_str());
	}
}

// ---- a bare simulated core for calling the API directly ----------------------

static ascendsim::core_state core;
static ascendsim::core_private priv;
alignas(64) static uint8_t ub[192 * 1024];

static void core_setup()
{
	ascendsim::g_run.instruction_budget = ~0ULL;
	ascendsim::g_run.event_ids = 8;
	ascendsim::g_run.user_event_ids = 6;
	ascendsim::g_run.ub_limit = sizeof ub;
	core.ub = ub;
	core.ub_bytes = sizeof ub;
	core.block_num = 1;
	core.mask[0] = core.mask[1] = ~0ULL;
	core.priv = &priv;
	ascendsim::g_core = &core;
}

template <class T> static LocalTensor<T> ub_tensor(uint32_t byte_offset, uint32_t elems)
{
	LocalTensor<T> t;
	t.data_ = reinterpret_cast<T *>(ub + byte_offset);
	t.size_ = t.cap_ = elems;
	return t;
}

// Run Cast<D, S> over `src` in chunks that fit the UB.
template <class D, class S> static std::vector<D> run_cast(const std::vector<S> &src, RoundMode mode)
{
	std::vector<D> out(src.size());
	const uint32_t chunk = 8192;
	for (size_t base = 0; base < src.size(); base += chunk) {
		uint32_t n = (uint32_t)std::min<size_t>(chunk, src.size() - base);
		uint32_t padded = (n + 63) & ~63u;
		LocalTensor<S> s = ub_tensor<S>(0, padded);
		LocalTensor<D> d = ub_tensor<D>(65536, padded);
		std::memcpy(s.data_, src.data() + base, n * sizeof(S));
		Cast(d, s, mode, n);
		std::memcpy(out.data() + base, d.data_, n * sizeof(D));
	}
	return out;
}

// ---- independent reference -------------------------------------------------------

static double half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(m + 1024, e - 25);
	return (h & 0x8000) ? -v : v;
}

static const char *const mode_names[] = {"CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL",
					  "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};

// All finite halves in increasing order of value (+0 only).
static std::vector<std::pair<double, uint16_t>> finite_halves()
{
	std::vector<std::pair<double, uint16_t>> v;
	for (uint32_t h = 0; h < 65536; h++) {
		if (((h >> 10) & 0x1f) == 31 || h == 0x8000)
			continue;
		v.push_back({half_value((uint16_t)h), (uint16_t)h});
	}
	std::sort(v.begin(), v.end());
	return v;
}

// float -> half by neighbour search, with the documented overflow rules.
static uint16_t ref_to_half(float f, int mode, const std::vector<std::pair<double, uint16_t>> &tab)
{
	if (std::isnan(f))
		return 0x7e00;
	if (std::isinf(f))
		return f > 0 ? 0x7c00 : 0xfc00;
	double x = f;
	const double maxv = 65504.0;
	bool neg = std::signbit(f);
	if (std::fabs(x) > maxv) {
		double ulp = 32.0; /* spacing at the top binade */
		bool beyond_half_ulp = std::fabs(x) >= maxv + ulp / 2;
		uint16_t inf = neg ? 0xfc00 : 0x7c00, big = neg ? 0xfbff : 0x7bff;
		switch (mode) {
		case 0: case 1: return beyond_half_ulp ? inf : big;
		case 4: return beyond_half_ulp ? inf : big;
		case 2: return neg ? 0xfc00 : 0x7bff;
		case 3: return neg ? 0xfbff : 0x7c00;
		default: return big; /* trunc, odd */
		}
	}
	auto it = std::lower_bound(tab.begin(), tab.end(), std::make_pair(x, (uint16_t)0));
	if (it != tab.end() && it->first == x)
		return x == 0 && neg ? 0x8000 : it->second;
	auto hi = it, lo = it - 1;
	double dl = x - lo->first, dh = hi->first - x;
	uint16_t r;
	auto even = [](uint16_t h) { return (h & 1) == 0; };
	switch (mode) {
	case 2: r = lo->second; break;
	case 3: r = hi->second; break;
	case 5: r = x > 0 ? lo->second : hi->second; break;
	case 6: r = (lo->second & 1) ? lo->second : hi->second; break;
	case 4: r = dl < dh ? lo->second : dh < dl ? hi->second : (x > 0 ? hi->second : lo->second); break;
	default: r = dl < dh ? lo->second : dh < dl ? hi->second : (even(lo->second) ? lo->second : hi->second); break;
	}
	/* A result of value zero keeps the sign of the input. */
	if ((r & 0x7fff) == 0)
		r = neg ? 0x8000 : 0;
	return r;
}

template <class I> static I ref_to_int(double x, int mode)
{
	if (std::isnan(x))
		return 0;
	double r;
	switch (mode) {
	case 2: r = std::floor(x); break;
	case 3: r = std::ceil(x); break;
	case 4: r = std::round(x); break;
	case 5: r = std::trunc(x); break;
	default:
		std::fesetround(FE_TONEAREST);
		r = std::nearbyint(x);
		break;
	}
	if (r <= (double)std::numeric_limits<I>::min())
		return std::numeric_limits<I>::min();
	if (r >= (double)std::numeric_limits<I>::max())
		return std::numeric_limits<I>::max();
	return (I)r;
}

template <class I> static void check_half_to_int(const char *tname, const std::vector<half> &all)
{
	for (int mode = 0; mode <= 5; mode++) {
		std::vector<I> got = run_cast<I, half>(all, (RoundMode)mode);
		std::string why;
		for (uint32_t h = 0; h < 65536 && why.empty(); h++) {
			I want = ref_to_int<I>(half_value((uint16_t)h), mode);
			if (got[h] != want)
				why = ascendsim::strprintf("half 0x%04x (%g): got %lld, want %lld", h, half_value((uint16_t)h),
							   (long long)got[h], (long long)want);
		}
		tap(why.empty(), std::string("half -> ") + tname + " " + mode_names[mode] + " over all 65536 values", why);
	}
}

int main()
{
	core_setup();
	std::vector<half> all(65536);
	for (uint32_t h = 0; h < 65536; h++)
		all[h] = ascendsim::bits_half((uint16_t)h);
	auto tab = finite_halves();

	// half -> float is exact for every pattern, in every mode.
	for (int mode = 0; mode <= 5; mode++) {
		std::vector<float> got = run_cast<float, half>(all, (RoundMode)mode);
		std::string why;
		for (uint32_t h = 0; h < 65536 && why.empty(); h++) {
			double want = half_value((uint16_t)h);
			bool ok = std::isnan(want) ? std::isnan(got[h]) : (got[h] == want && std::signbit(got[h]) == std::signbit(want));
			if (!ok)
				why = ascendsim::strprintf("half 0x%04x: got %.9g want %.9g", h, got[h], want);
		}
		tap(why.empty(), std::string("half -> float ") + mode_names[mode] + " over all 65536 values", why);
	}

	check_half_to_int<int32_t>("int32", all);
	check_half_to_int<int16_t>("int16", all);
	check_half_to_int<int8_t>("int8", all);
	check_half_to_int<uint8_t>("uint8", all);

	// float -> half: every half value, the exact midpoints to its upper
	// neighbour, a float ulp either side of them, and values past the top.
	std::vector<float> probes;
	for (size_t i = 0; i < tab.size(); i++) {
		float v = (float)tab[i].first;
		probes.push_back(v);
		probes.push_back(-v);
		if (i + 1 < tab.size()) {
			float mid = (float)((tab[i].first + tab[i + 1].first) / 2);
			for (float p : {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY),
					std::nextafter(v, INFINITY)}) {
				probes.push_back(p);
				probes.push_back(-p);
			}
		}
	}
	for (float p : {65504.0f, 65519.0f, 65519.996f, 65520.0f, 65520.004f, 65536.0f, 1e6f, 3.4e38f, INFINITY, NAN,
			5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f, 1e-10f, 0.0f, -0.0f})
		probes.push_back(p), probes.push_back(-p);
	for (int mode = 0; mode <= 6; mode++) {
		std::vector<half> got = run_cast<half, float>(probes, (RoundMode)mode);
		std::string why;
		for (size_t i = 0; i < probes.size() && why.empty(); i++) {
			uint16_t want = ref_to_half(probes[i], mode, tab), g = ascendsim::half_bits(got[i]);
			bool ok = std::isnan(probes[i]) ? (g & 0x7fff) > 0x7c00 : g == want;
			if (!ok)
				why = ascendsim::strprintf("float %.9g: got 0x%04x want 0x%04x", probes[i], g, want);
		}
		tap(why.empty(),
		    ascendsim::strprintf("float -> half %s over %zu probes around every half value", mode_names[mode], probes.size()),
		    why);
	}

	// The element routine agrees with the vector path on the mask form too.
	{
		std::vector<float> src(probes.begin(), probes.begin() + 64 * 10);
		LocalTensor<float> s = ub_tensor<float>(0, 640);
		LocalTensor<half> d = ub_tensor<half>(65536, 640);
		std::memcpy(s.data_, src.data(), 640 * 4);
		Cast(d, s, RoundMode::CAST_RINT, 64, 10, UnaryRepeatParams(1, 1, 4, 8));
		std::string why;
		for (int i = 0; i < 640 && why.empty(); i++)
			if (ascendsim::half_bits(d.data_[i]) != ref_to_half(src[i], 1, tab))
				why = ascendsim::strprintf("element %d", i);
		tap(why.empty(), "float -> half CAST_RINT, mask/repeat form (64 lanes x 10 repeats)", why);
	}

	std::printf("1..%d\n", test_no);
	return failures ? 1 : 0;
}
