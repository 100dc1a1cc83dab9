// SPDX-License-Identifier: MIT
//
// Overload ranks that let GET_TILING_DATA find its tiling class by looking at
// the return type of ascendsim_pick_tiling(tiling_rank<0>{}) in decltype:
// REGISTER_TILING_DEFAULT declares rank 0, REGISTER_TILING_DATA_CLASS ranks
// by order of appearance, so the first registered class wins through
// derived-to-base overload ranking; rank 256 is the "none" fallback.
#ifndef ASCENDSIM_TILING_RANK_H
#define ASCENDSIM_TILING_RANK_H

#include <cstdint>
#include <type_traits>

namespace ascendsim {

template <int N> struct tiling_rank : tiling_rank<N + 1> {};
template <> struct tiling_rank<256> {};
struct no_tiling_class {};
inline no_tiling_class ascendsim_pick_tiling(tiling_rank<256>)
{
	return {};
}

// A class registered for the operator the kernel function is named after
// wins over the first-registered one (operators register helper classes
// first).  Names compare case-blind without underscores: PadV3GradReplication
// and pad_v3_grad_replication match.
constexpr uint64_t op_name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		char c = *s;
		if (c == '_')
			continue;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		h = (h ^ (uint8_t)c) * 1099511628211ULL;
	}
	return h;
}
template <uint64_t H> struct op_tag {};
struct no_named {};
template <uint64_t H> no_named ascendsim_pick_tiling_named(op_tag<H>, ...);

// REGISTER_TILING_DEFAULT, then the class named for the kernel, then the
// first registered one.
template <class D, class N, class R> struct tiling_pick {
	using type = typename std::conditional<!std::is_same<D, no_named>::value, D,
					       typename std::conditional<!std::is_same<N, no_named>::value, N, R>::type>::type;
};

} // namespace ascendsim

::ascendsim::no_named ascendsim_pick_tiling_default(...);

#endif
