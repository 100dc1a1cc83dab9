// SPDX-License-Identifier: MIT
//
// Overload ranks that let GET_TILING_DATA find its tiling class by looking at
// the return type of ascendsim_pick_tiling(tiling_rank<0>{}) in decltype:
// REGISTER_TILING_DEFAULT declares rank 0, REGISTER_TILING_DATA_CLASS ranks
// by order of appearance, so the first registered class wins through
// derived-to-base overload ranking; rank 256 is the "none" fallback.
#ifndef ASCENDSIM_TILING_RANK_H
#define ASCENDSIM_TILING_RANK_H

namespace ascendsim {

template <int N> struct tiling_rank : tiling_rank<N + 1> {};
template <> struct tiling_rank<256> {};
struct no_tiling_class {};
inline no_tiling_class ascendsim_pick_tiling(tiling_rank<256>)
{
	return {};
}

} // namespace ascendsim

#endif
