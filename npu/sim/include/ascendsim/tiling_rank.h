// SPDX-License-Identifier: MIT
//
// Overload ranks that let GET_TILING_DATA find its tiling class by looking at
// the return type of ascendsim_pick_tiling(tiling_rank<0>{}) in decltype:
// REGISTER_TILING_DEFAULT declares rank 0, REGISTER_TILING_DATA_CLASS ranks
// by order of appearance, so the first registered class wins through
// derived-to-base overload ranking; rank 256 is the "none" fallback.  The
// class registered under the kernel's own operator type comes first, when
// the build names it (ASCENDSIM_OP_TYPE).
#ifndef ASCENDSIM_TILING_RANK_H
#define ASCENDSIM_TILING_RANK_H

#include <cstdint>

namespace ascendsim {

template <int N> struct tiling_rank : tiling_rank<N + 1> {};
template <> struct tiling_rank<256> {};
struct no_tiling_class {};
inline no_tiling_class ascendsim_pick_tiling(tiling_rank<256>)
{
	return {};
}

// The class registered for one operator type: a real build gives the
// kernel the class registered under the operator's own type, whatever a
// shared header registered before it.  REGISTER_TILING_DATA_CLASS declares
// ascendsim_tiling_named(op_name<hash of the type>); the template below,
// found through op_name's namespace, answers for a type none registered.
constexpr uint64_t op_hash(const char *s, uint64_t h = 1469598103934665603ull)
{
	return *s ? op_hash(s + 1, (h ^ (uint8_t)*s) * 1099511628211ull) : h;
}
template <uint64_t H> struct op_name {};
template <uint64_t H> no_tiling_class ascendsim_tiling_named(op_name<H>);
template <class Named, class First> struct tiling_choice {
	using type = Named;
};
template <class First> struct tiling_choice<no_tiling_class, First> {
	using type = First;
};

} // namespace ascendsim

#endif
