// SPDX-License-Identifier: MIT
//
// Reductions: ReduceSum/ReduceMax/ReduceMin (count form, with a work
// tensor), WholeReduceSum/Max/Min and BlockReduceSum/Max/Min (mask/repeat
// form).  Sums run as a pairwise tree inside each 256-byte repeat, rounding
// every partial sum to the element type, and ReduceSum reduces the repeat
// results again the same way, so the order is fixed and documented.
#ifndef ASCENDSIM_KERNEL_REDUCE_H
#define ASCENDSIM_KERNEL_REDUCE_H

#include "ascendsim/kernel_vector.h"

namespace ascendsim {

// Pairwise sum of v[0..n) in place; each partial rounds to T.
template <class T> ASCENDSIM_NOCOV inline T tree_sum(T *v, uint32_t n)
{
	if (n == 0)
		return num<T>::store(0);
	while (n > 1) {
		uint32_t h = n / 2;
		for (uint32_t i = 0; i < h; i++)
			v[i] = num<T>::store(num<T>::load(v[2 * i]) + num<T>::load(v[2 * i + 1]));
		if (n & 1)
			v[h] = v[n - 1];
		n = h + (n & 1);
	}
	return v[0];
}

// Index of the max (want_max) or min, first occurrence wins.
template <class T> ASCENDSIM_NOCOV inline uint32_t arg_extreme(const T *v, uint32_t n, bool want_max)
{
	uint32_t best = 0;
	auto bv = num<T>::load(v[0]);
	for (uint32_t i = 1; i < n; i++) {
		auto x = num<T>::load(v[i]);
		if (want_max ? x > bv : x < bv) {
			bv = x;
			best = i;
		}
	}
	return best;
}

template <class T> ASCENDSIM_NOCOV inline void store_index(T *slot, uint32_t index)
{
	if constexpr (sizeof(T) == 2) {
		uint16_t i16 = (uint16_t)index;
		std::memcpy(slot, &i16, 2);
	} else {
		std::memcpy(slot, &index, 4);
	}
}

enum reduce_kind { REDUCE_SUM, REDUCE_MAX, REDUCE_MIN };

template <class T>
ASCENDSIM_NOCOV inline void reduce_count(const char *api, reduce_kind kind, const AscendC::LocalTensor<T> &dst,
			 const AscendC::LocalTensor<T> &src, const AscendC::LocalTensor<T> &work, int32_t count,
			 bool cal_index, srcloc loc)
{
	uint32_t n = count_arg(count, api, loc);
	if (n == 0)
		fail("invalid_argument", loc, "%s: count is 0", api);
	constexpr uint32_t lanes = 256 / sizeof(T);
	uint32_t reps = (n + lanes - 1) / lanes;
	vec_operand(src, n, api, "src", loc);
	vec_operand(dst, cal_index ? 2 : 1, api, "dst", loc);
	vec_operand(work, reps, api, "workLocal", loc);
	instr r = vec_record(api, dtype_of<T>::code, n, reps, loc);
	r.dst = span_of(dst, cal_index ? 2 : 1);
	r.src[0] = span_of(src, n);
	r.src[1] = span_of(work, reps);
	issue(r);
	if (kind == REDUCE_SUM) {
		// Level 1: one partial per repeat (into work); then reduce those.
		T buf[256 / sizeof(T)];
		for (uint32_t k = 0; k < reps; k++) {
			uint32_t m = n - k * lanes < lanes ? n - k * lanes : lanes;
			std::memcpy(buf, src.data_ + (size_t)k * lanes, m * sizeof(T));
			work.data_[k] = tree_sum(buf, m);
		}
		uint32_t left = reps;
		while (left > 1) {
			uint32_t next = (left + lanes - 1) / lanes;
			for (uint32_t k = 0; k < next; k++) {
				uint32_t m = left - k * lanes < lanes ? left - k * lanes : lanes;
				std::memcpy(buf, work.data_ + (size_t)k * lanes, m * sizeof(T));
				work.data_[k] = tree_sum(buf, m);
			}
			left = next;
		}
		dst.data_[0] = work.data_[0];
		return;
	}
	uint32_t idx = arg_extreme(src.data_, n, kind == REDUCE_MAX);
	T best = src.data_[idx];
	if (reps > 0)
		work.data_[0] = best;
	dst.data_[0] = best;
	if (cal_index)
		store_index(dst.data_ + 1, idx);
}

// Whole-repeat reductions: one result (or value/index pair) per repeat.
// dstRepStride counts one repeat's output (1 element, or 2 for a pair), so
// 1 packs the results densely.
template <class T, bool isSetMask>
ASCENDSIM_NOCOV inline void whole_reduce(const char *api, reduce_kind kind, const AscendC::LocalTensor<T> &dst,
			 const AscendC::LocalTensor<T> &src, const uint64_t *bits, uint64_t mask, int32_t repeat,
			 int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, AscendC::ReduceOrder order,
			 srcloc loc)
{
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T);
	lane_plan lp = plan_lanes(lanes, isSetMask, bits, mask, repeat, api, loc);
	uint32_t per = kind == REDUCE_SUM || order == AscendC::ReduceOrder::ORDER_ONLY_VALUE ||
				   order == AscendC::ReduceOrder::ORDER_ONLY_INDEX
			   ? 1
			   : 2;
	uint64_t es = lane_extent(lp, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride);
	uint64_t ed = lp.repeats ? (uint64_t)(lp.repeats - 1) * (uint32_t)dstRepStride * per + per : 0;
	vec_operand(src, es, api, "src", loc);
	ub_check(dst, ed, api, "dst", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[1] = (uint16_t)srcBlkStride;
	r.rep_stride[0] = (uint16_t)dstRepStride;
	r.rep_stride[1] = (uint16_t)srcRepStride;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src, es);
	issue(r);
	T buf[lanes];
	uint32_t pos[lanes];
	for (uint32_t rr = 0; rr < lp.repeats; rr++) {
		uint32_t m = 0;
		for (uint32_t k = 0; k < lanes; k++)
			if (lane_on(lp, rr, k)) {
				buf[m] = src.data_[lane_offset(rr, k, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride)];
				pos[m++] = k;
			}
		T *out = dst.data_ + (size_t)rr * (uint32_t)dstRepStride * per;
		if (kind == REDUCE_SUM) {
			*out = tree_sum(buf, m);
			continue;
		}
		if (m == 0)
			continue;
		uint32_t i = arg_extreme(buf, m, kind == REDUCE_MAX);
		switch (order) {
		case AscendC::ReduceOrder::ORDER_VALUE_INDEX: out[0] = buf[i]; store_index(out + 1, pos[i]); break;
		case AscendC::ReduceOrder::ORDER_INDEX_VALUE: store_index(out, pos[i]); out[1] = buf[i]; break;
		case AscendC::ReduceOrder::ORDER_ONLY_VALUE: out[0] = buf[i]; break;
		default: store_index(out, pos[i]); break;
		}
	}
}

// Per 32-byte block reductions: eight results per repeat, written densely;
// dstRepStride counts one repeat's output (8 elements), so 1 packs densely.
template <class T, bool isSetMask>
ASCENDSIM_NOCOV inline void block_reduce(const char *api, reduce_kind kind, const AscendC::LocalTensor<T> &dst,
			 const AscendC::LocalTensor<T> &src, int32_t repeat, const uint64_t *bits, uint64_t mask,
			 int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, srcloc loc)
{
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T);
	lane_plan lp = plan_lanes(lanes, isSetMask, bits, mask, repeat, api, loc);
	uint64_t es = lane_extent(lp, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride);
	uint64_t ed = lp.repeats ? (uint64_t)(lp.repeats - 1) * (uint32_t)dstRepStride * 8 + 8 : 0;
	vec_operand(src, es, api, "src", loc);
	vec_operand(dst, ed, api, "dst", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[1] = (uint16_t)srcBlkStride;
	r.rep_stride[0] = (uint16_t)dstRepStride;
	r.rep_stride[1] = (uint16_t)srcRepStride;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src, es);
	issue(r);
	T buf[epb];
	for (uint32_t rr = 0; rr < lp.repeats; rr++)
		for (uint32_t b = 0; b < 8; b++) {
			uint32_t m = 0;
			for (uint32_t k = b * epb; k < (b + 1) * epb; k++)
				if (lane_on(lp, rr, k))
					buf[m++] = src.data_[lane_offset(rr, k, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride)];
			T *out = dst.data_ + (size_t)rr * (uint32_t)dstRepStride * 8 + b;
			if (kind == REDUCE_SUM)
				*out = tree_sum(buf, m);
			else if (m)
				*out = buf[arg_extreme(buf, m, kind == REDUCE_MAX)];
		}
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &workLocal,
		      const int32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "ReduceSum supports half and float");
	ascendsim::reduce_count("ReduceSum", ascendsim::REDUCE_SUM, dst, src, workLocal, count, false, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void ReduceMax(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &workLocal,
		      const int32_t count, bool calIndex = false, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "ReduceMax supports half and float");
	ascendsim::reduce_count("ReduceMax", ascendsim::REDUCE_MAX, dst, src, workLocal, count, calIndex, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void ReduceMin(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &workLocal,
		      const int32_t count, bool calIndex = false, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "ReduceMin supports half and float");
	ascendsim::reduce_count("ReduceMin", ascendsim::REDUCE_MIN, dst, src, workLocal, count, calIndex, loc);
}

#define ASCENDSIM_WHOLE_REDUCE(NAME, KIND, ORDER_PARAM, ORDER_ARG)                                                    \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, uint64_t mask, const int32_t repeatTimes, \
			 const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM, \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		ascendsim::whole_reduce<T, isSetMask>(#NAME, ascendsim::KIND, dst, src, nullptr, mask, repeatTimes,  \
						      dstRepStride, srcBlkStride, srcRepStride, ORDER_ARG, loc);     \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[],               \
			 const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,         \
			 const int32_t srcRepStride ORDER_PARAM, ascendsim::srcloc loc = {})                         \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		ascendsim::whole_reduce<T, isSetMask>(#NAME, ascendsim::KIND, dst, src, mask, 0, repeatTimes,        \
						      dstRepStride, srcBlkStride, srcRepStride, ORDER_ARG, loc);     \
	}

#define ASCENDSIM_COMMA ,
ASCENDSIM_WHOLE_REDUCE(WholeReduceSum, REDUCE_SUM, , ReduceOrder::ORDER_ONLY_VALUE)
ASCENDSIM_WHOLE_REDUCE(WholeReduceMax, REDUCE_MAX, ASCENDSIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
ASCENDSIM_WHOLE_REDUCE(WholeReduceMin, REDUCE_MIN, ASCENDSIM_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)

#define ASCENDSIM_BLOCK_REDUCE(NAME, KIND)                                                                            \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeat, uint64_t mask,  \
			 const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride,        \
			 ascendsim::srcloc loc = {})                                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		ascendsim::block_reduce<T, isSetMask>(#NAME, ascendsim::KIND, dst, src, repeat, nullptr, mask,       \
						      dstRepStride, srcBlkStride, srcRepStride, loc);                \
	}                                                                                                             \
	template <class T, bool isSetMask = true>                                                                     \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeat,                 \
			 const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,              \
			 const int32_t srcRepStride, ascendsim::srcloc loc = {})                                     \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		ascendsim::block_reduce<T, isSetMask>(#NAME, ascendsim::KIND, dst, src, repeat, mask, 0,             \
						      dstRepStride, srcBlkStride, srcRepStride, loc);                \
	}

ASCENDSIM_BLOCK_REDUCE(BlockReduceSum, REDUCE_SUM)
ASCENDSIM_BLOCK_REDUCE(BlockReduceMax, REDUCE_MAX)
ASCENDSIM_BLOCK_REDUCE(BlockReduceMin, REDUCE_MIN)

} // namespace AscendC

#endif
