// SPDX-License-Identifier: MIT
//
// Which bytes of each output the kernel wrote.  Simulated GM is zeroed
// (anonymous mmap) but an NPU's GM, from torch_npu's caching allocator, is
// not: an output element that no path of the kernel wrote reads as 0 here
// and as whatever the last tensor left there on hardware.  A kernel that
// dispatches no branch, or leaves a core's tail alone, can then look right
// whenever the right answer is mostly zero (masks, is_inf, counts).
//
// The harness gives every output region (not a ref output, whose unwritten
// bytes keep their input's values) a bitmap of one bit per byte; the shim
// sets bits on every GM write it performs (ascendsim/runtime.h,
// gm_mark_written).  Raw __gm__ pointer stores bypass the shim and stay
// unset.  After the launch each output is summed up per element (an
// element counts as written when all its bytes were): the result's output
// entry gets "written_elements", the first unwritten ranges, and, when some
// are unwritten, a file of one bit per element (LSB first) so that two runs
// can be compared element by element.
#include <sys/mman.h>

#include <jansson.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "internal.h"

namespace ascendsim {

uint64_t *written_bitmap_new(uint64_t bytes)
{
	uint64_t words = (bytes + 63) / 64;
	void *p = mmap(nullptr, words * 8 + 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? nullptr : (uint64_t *)p;
}

// Sets bits [lo, hi) of the bitmap.
static void set_bits(uint64_t *w, uint64_t lo, uint64_t hi)
{
	uint64_t a = lo / 64, b = (hi - 1) / 64;
	uint64_t first = ~0ULL << (lo % 64), last = ~0ULL >> (63 - (hi - 1) % 64);
	if (a == b) {
		w[a] |= first & last;
		return;
	}
	w[a] |= first;
	if (b > a + 1)
		std::memset(w + a + 1, 0xff, (b - a - 1) * 8);
	w[b] |= last;
}

void gm_mark_written_slow(const gm_region *r, const void *addr, uint64_t bytes)
{
	const uint8_t *a = (const uint8_t *)addr, *b = a + bytes;
	if (a < r->begin)
		a = r->begin;
	if (b > r->data_end)
		b = r->data_end;
	if (a >= b)
		return;
	set_bits(r->written, (uint64_t)(a - r->begin), (uint64_t)(b - r->begin));
}

void gm_mark_all_written(const gm_region *r)
{
	if (r && r->written)
		gm_mark_written_slow(r, r->begin, (uint64_t)(r->data_end - r->begin));
}

// Of one bitmap word covering elements of `esize` bytes, the bit at each
// element's first byte, set when all its bytes are.
static inline uint64_t complete_elements(uint64_t w, uint32_t esize)
{
	switch (esize) {
	case 1: return w;
	case 2: return w & (w >> 1) & 0x5555555555555555ULL;
	case 4: {
		uint64_t t = w & (w >> 1);
		return t & (t >> 2) & 0x1111111111111111ULL;
	}
	default: {
		uint64_t t = w & (w >> 1);
		t &= t >> 2;
		return t & (t >> 4) & 0x0101010101010101ULL;
	}
	}
}

enum { UNWRITTEN_RANGES_LISTED = 8 };

written_summary written_summarize(const uint64_t *bits, uint64_t elems, uint32_t esize, const std::string &dir,
				  const std::string &file)
{
	written_summary s;
	s.tracked = true;
	if (esize != 1 && esize != 2 && esize != 4 && esize != 8)
		esize = 8; /* every dtype has one of these sizes */
	uint64_t per_word = 64 / esize, words = (elems + per_word - 1) / per_word;
	for (uint64_t k = 0; k < words; k++)
		s.written += (uint64_t)__builtin_popcountll(complete_elements(bits[k], esize));
	if (s.written == elems)
		return s;
	// Some are unwritten: the ranges, and one bit per element in a file.
	std::vector<uint8_t> out((elems + 7) / 8, 0);
	bool in_gap = false;
	uint64_t gap_start = 0;
	for (uint64_t k = 0; k < words; k++) {
		uint64_t c = complete_elements(bits[k], esize);
		uint64_t base = k * per_word, n = elems - base < per_word ? elems - base : per_word;
		uint64_t lead = complete_elements(~0ULL, esize);
		uint64_t all = n == per_word ? lead : lead & ((1ULL << (n * esize)) - 1);
		// whole words written or not at once (base is a multiple of 8: per_word >= 8)
		if (c == 0 && in_gap)
			continue;
		if (c == all && !in_gap) {
			std::memset(&out[base / 8], 0xff, n / 8);
			for (uint64_t i = base + n / 8 * 8; i < base + n; i++)
				out[i / 8] |= (uint8_t)(1u << (i % 8));
			continue;
		}
		for (uint64_t j = 0; j < n; j++) {
			uint64_t i = base + j;
			bool w = (c >> (j * esize)) & 1;
			if (w)
				out[i / 8] |= (uint8_t)(1u << (i % 8));
			if (!w && !in_gap) {
				in_gap = true;
				gap_start = i;
			} else if (w && in_gap) {
				in_gap = false;
				if (s.ranges.size() < UNWRITTEN_RANGES_LISTED)
					s.ranges.emplace_back(gap_start, i);
				s.range_count++;
			}
		}
	}
	if (in_gap) {
		if (s.ranges.size() < UNWRITTEN_RANGES_LISTED)
			s.ranges.emplace_back(gap_start, elems);
		s.range_count++;
	}
	std::string path = dir + "/" + file;
	FILE *f = std::fopen(path.c_str(), "wb");
	if (!f || (out.size() && std::fwrite(out.data(), 1, out.size(), f) != out.size()) || std::fclose(f) != 0)
		finish_error("infra_error", "infra_error", "", 0, "cannot write " + path + ": " + std::strerror(errno));
	s.file = file;
	return s;
}

void written_json(json_t *o, const written_summary &s)
{
	if (!s.tracked)
		return;
	json_object_set_new(o, "written_elements", json_integer((json_int_t)s.written));
	if (s.file.empty())
		return;
	json_t *a = json_array();
	for (const auto &r : s.ranges)
		json_array_append_new(a, json_pack("[I, I]", (json_int_t)r.first, (json_int_t)r.second));
	json_object_set_new(o, "unwritten", a);
	json_object_set_new(o, "unwritten_ranges", json_integer((json_int_t)s.range_count));
	json_object_set_new(o, "written_file", json_string(s.file.c_str()));
}

} // namespace ascendsim
