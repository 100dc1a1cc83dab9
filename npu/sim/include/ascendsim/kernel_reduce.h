// SPDX-License-Identifier: MIT
//
// Reductions: ReduceSum/ReduceMax/ReduceMin (count and mask/repeat forms),
// WholeReduceSum/Max/Min, RepeatReduceSum and BlockReduceSum/Max/Min, the
// registers they leave (ACC_VAL, MAX_MIN_CNT), the vcadd intrinsic and the
// high-level Sum.
// Sums run as a pairwise tree inside each 256-byte repeat, rounding every
// partial sum to the element type; across repeats the count form of
// ReduceSum adds in order and the mask/repeat form folds the repeat sums as
// a tree, as the Atlas A2 documentation says.
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

template <class T> ASCENDSIM_NOCOV inline uint32_t raw_bits(T v)
{
	uint32_t b = 0;
	std::memcpy(&b, &v, sizeof(T));
	return b;
}

template <class T> ASCENDSIM_NOCOV inline T from_bits(uint32_t b)
{
	T v;
	std::memcpy(&v, &b, sizeof(T));
	return v;
}

// The active lanes of repeat `r` in lane order; returns how many.
template <class T>
ASCENDSIM_NOCOV inline uint32_t repeat_lanes(const lane_plan &lp, const T *src, uint32_t r, uint32_t epb, uint32_t blk,
					     uint32_t rep, T *buf, uint32_t *pos)
{
	uint32_t m = 0;
	for (uint32_t k = 0; k < lp.lanes; k++)
		if (lane_on(lp, r, k)) {
			buf[m] = src[lane_offset(r, k, epb, blk, rep)];
			if (pos)
				pos[m] = k;
			m++;
		}
	return m;
}

// What the accumulating sum (vcadd in mode 1, under ReduceSum's count form
// on Atlas A2) computes: each repeat's active lanes as a pairwise tree, the
// repeat sums then added in order, every step rounded to T.
template <class T>
ASCENDSIM_NOCOV inline T accumulate_sum(const lane_plan &lp, const T *src, uint32_t epb, uint32_t blk, uint32_t rep)
{
	T buf[256 / sizeof(T)];
	T acc = num<T>::store(0);
	for (uint32_t r = 0; r < lp.repeats; r++) {
		uint32_t m = repeat_lanes(lp, src, r, epb, blk, rep, buf, (uint32_t *)nullptr);
		T part = tree_sum(buf, m);
		acc = r == 0 ? part : num<T>::store(num<T>::load(acc) + num<T>::load(part));
	}
	return acc;
}

template <class T> ASCENDSIM_NOCOV inline void set_acc_val(T v)
{
	g_core->acc_val = raw_bits(v);
	g_core->acc_dtype = dtype_of<T>::code;
}

// exact: 1 for a WholeReduceMax/Min over a continuous layout, 2 for one
// over another layout, 0 for ReduceMax/Min (whose index hardware does not
// leave exact).
template <class T> ASCENDSIM_NOCOV inline void set_max_min(T v, uint32_t index, uint8_t exact)
{
	core_state *c = g_core;
	c->max_min_val = raw_bits(v);
	c->max_min_idx = index;
	c->max_min_dtype = dtype_of<T>::code;
	c->max_min_exact = exact;
	c->max_min_counter = c->counter_mode;
}

// The count form ("the first n elements") of ReduceSum.  On Atlas A2 it is
// one accumulating vcadd in counter mode (tree inside a repeat, repeats
// added in order); the sum lands in dst[0] and in ACC_VAL, and
// sharedTmpBuffer is not used.  isSetMask false leaves the mask to the
// kernel and ignores count; a count of 0 is a NOP.
template <class T, bool isSetMask>
ASCENDSIM_NOCOV inline void reduce_sum_count(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
					     int32_t count, srcloc loc)
{
	const char *api = "ReduceSum";
	constexpr uint32_t lanes = 256 / sizeof(T), epb = 32 / sizeof(T);
	lane_plan lp{};
	if (isSetMask) {
		uint32_t n = count_arg(count, api, loc);
		if (n == 0)
			return;
		lp.counter = true;
		lp.lanes = lanes;
		lp.total = n;
		lp.repeats = (n + lanes - 1) / lanes;
	} else {
		lp = plan_lanes(lanes, false, nullptr, 0, 1, api, loc);
	}
	uint64_t es = lane_extent(lp, epb, 1, 8);
	vec_operand(src, es, api, "src", loc);
	ub_check(dst, 1, api, "dst", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.dst = span_of(dst, 1);
	r.src[0] = span_of(src, es);
	issue(r);
	T sum = accumulate_sum(lp, src.data_, epb, 1, 8);
	dst.data_[0] = sum;
	set_acc_val(sum);
}

// Count forms of ReduceMax/ReduceMin: the extreme of src[0..n) (first
// occurrence) and, with cal_index, its index after it.  A count of 0 is a
// NOP.
template <class T>
ASCENDSIM_NOCOV inline void reduce_count(const char *api, reduce_kind kind, const AscendC::LocalTensor<T> &dst,
			 const AscendC::LocalTensor<T> &src, const AscendC::LocalTensor<T> &work, int32_t count,
			 bool cal_index, srcloc loc)
{
	uint32_t n = count_arg(count, api, loc);
	if (n == 0)
		return;
	constexpr uint32_t lanes = 256 / sizeof(T);
	uint32_t reps = (n + lanes - 1) / lanes;
	vec_operand(src, n, api, "src", loc);
	ub_check(dst, cal_index ? 2 : 1, api, "dst", loc);
	vec_operand(work, reps, api, "workLocal", loc);
	instr r = vec_record(api, dtype_of<T>::code, n, reps, loc);
	r.dst = span_of(dst, cal_index ? 2 : 1);
	r.src[0] = span_of(src, n);
	r.src[1] = span_of(work, reps);
	issue(r);
	uint32_t idx = arg_extreme(src.data_, n, kind == REDUCE_MAX);
	T best = src.data_[idx];
	work.data_[0] = best;
	dst.data_[0] = best;
	if (cal_index)
		store_index(dst.data_ + 1, idx);
	set_max_min(best, idx, 0);
}

// The mask/repeat ("high-dimensional") forms of ReduceSum/Max/Min: every
// repeat reduced on its own, then the repeat results.  Sums are trees at
// both levels (the repeat sums are folded 256 bytes at a time, as further
// repeats over sharedTmpBuffer); an extreme keeps the first occurrence and
// its index counts lanes as r * lanes + k.  repeatTime may exceed 255; 0 is
// a NOP.  sharedTmpBuffer holds the first round's results.
template <class T>
ASCENDSIM_NOCOV inline void reduce_repeat(const char *api, reduce_kind kind, const AscendC::LocalTensor<T> &dst,
					  const AscendC::LocalTensor<T> &src, const AscendC::LocalTensor<T> &work,
					  const uint64_t *bits, uint64_t mask, int32_t repeat, int32_t srcRepStride,
					  bool cal_index, srcloc loc)
{
	constexpr uint32_t lanes = 256 / sizeof(T), epb = 32 / sizeof(T);
	if (repeat < 0)
		fail("invalid_argument", loc, "%s: repeatTime %d is negative", api, (int)repeat);
	if (srcRepStride < 0 || srcRepStride > 65535)
		fail("invalid_argument", loc, "%s: srcRepStride %d is outside 0..65535", api, (int)srcRepStride);
	if (repeat == 0)
		return;
	lane_plan lp = plan_lanes(lanes, true, bits, mask, 1, api, loc);
	if (!lp.counter)
		lp.repeats = (uint32_t)repeat;
	uint32_t reps = lp.repeats;
	uint32_t first = kind == REDUCE_SUM ? reps : 2 * reps;
	uint64_t wneed = ((uint64_t)first + epb - 1) / epb * epb;
	uint64_t es = lane_extent(lp, epb, 1, (uint32_t)srcRepStride);
	vec_operand(src, es, api, "src", loc);
	ub_check(dst, kind != REDUCE_SUM && cal_index ? 2 : 1, api, "dst", loc);
	vec_operand(work, wneed, api, "sharedTmpBuffer", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.rep_stride[1] = (uint16_t)srcRepStride;
	r.dst = span_of(dst, kind != REDUCE_SUM && cal_index ? 2 : 1);
	r.src[0] = span_of(src, es);
	r.src[1] = span_of(work, wneed);
	issue(r);
	T buf[lanes];
	uint32_t pos[lanes];
	if (kind == REDUCE_SUM) {
		for (uint32_t k = 0; k < reps; k++) {
			uint32_t m = repeat_lanes(lp, src.data_, k, epb, 1, (uint32_t)srcRepStride, buf, (uint32_t *)nullptr);
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
	bool want_max = kind == REDUCE_MAX, found = false;
	T best{};
	uint32_t best_idx = 0;
	for (uint32_t k = 0; k < reps; k++) {
		uint32_t m = repeat_lanes(lp, src.data_, k, epb, 1, (uint32_t)srcRepStride, buf, pos);
		if (m == 0)
			continue;
		uint32_t i = arg_extreme(buf, m, want_max);
		work.data_[2 * k] = buf[i];
		store_index(work.data_ + 2 * k + 1, pos[i]);
		auto v = num<T>::load(buf[i]), b = num<T>::load(best);
		if (!found || (want_max ? v > b : v < b)) {
			best = buf[i];
			best_idx = k * lanes + pos[i];
			found = true;
		}
	}
	if (!found)
		return;
	dst.data_[0] = best;
	if (cal_index)
		store_index(dst.data_ + 1, best_idx);
	set_max_min(best, best_idx, 0);
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
	bool found = false;
	T best{};
	uint32_t best_idx = 0;
	for (uint32_t rr = 0; rr < lp.repeats; rr++) {
		uint32_t m = repeat_lanes(lp, src.data_, rr, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride, buf, pos);
		T *out = dst.data_ + (size_t)rr * (uint32_t)dstRepStride * per;
		if (kind == REDUCE_SUM) {
			*out = tree_sum(buf, m);
			continue;
		}
		if (m == 0)
			continue;
		uint32_t i = arg_extreme(buf, m, kind == REDUCE_MAX);
		auto v = num<T>::load(buf[i]), b = num<T>::load(best);
		if (!found || (kind == REDUCE_MAX ? v > b : v < b)) {
			best = buf[i];
			best_idx = rr * lanes + pos[i];
			found = true;
		}
		switch (order) {
		case AscendC::ReduceOrder::ORDER_VALUE_INDEX: out[0] = buf[i]; store_index(out + 1, pos[i]); break;
		case AscendC::ReduceOrder::ORDER_INDEX_VALUE: store_index(out, pos[i]); out[1] = buf[i]; break;
		case AscendC::ReduceOrder::ORDER_ONLY_VALUE: out[0] = buf[i]; break;
		default: store_index(out, pos[i]); break;
		}
	}
	// MAX_MIN_CNT keeps the extreme of all repeats and its lane number.
	if (found)
		set_max_min(best, best_idx, srcBlkStride == 1 && srcRepStride == 8 ? 1 : 2);
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

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
		      const int32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "ReduceSum supports half and float");
	(void)sharedTmpBuffer; /* not used by the count form on Atlas A2 */
	ascendsim::reduce_sum_count<T, isSetMask>(dst, src, count, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
		      const int32_t mask, const int32_t repeatTime, const int32_t srcRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "ReduceSum supports half and float");
	if (mask < 0)
		ascendsim::fail("invalid_argument", loc, "ReduceSum: mask %d is negative", (int)mask);
	ascendsim::reduce_repeat("ReduceSum", ascendsim::REDUCE_SUM, dst, src, sharedTmpBuffer, nullptr, (uint64_t)mask,
				 repeatTime, srcRepStride, false, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void ReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
		      const uint64_t mask[], const int32_t repeatTime, const int32_t srcRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "ReduceSum supports half and float");
	ascendsim::reduce_repeat("ReduceSum", ascendsim::REDUCE_SUM, dst, src, sharedTmpBuffer, mask, 0, repeatTime,
				 srcRepStride, false, loc);
}

#define ASCENDSIM_REDUCE_EXTREME(NAME, KIND)                                                                          \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                       \
					 const LocalTensor<T> &sharedTmpBuffer, const int32_t count, bool calIndex = false, \
					 ascendsim::srcloc loc = {})                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		ascendsim::reduce_count(#NAME, ascendsim::KIND, dst, src, sharedTmpBuffer, count, calIndex, loc);    \
	}                                                                                                             \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                       \
					 const LocalTensor<T> &sharedTmpBuffer, const int32_t mask,                  \
					 const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false, \
					 ascendsim::srcloc loc = {})                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		if (mask < 0)                                                                                         \
			ascendsim::fail("invalid_argument", loc, #NAME ": mask %d is negative", (int)mask);          \
		ascendsim::reduce_repeat(#NAME, ascendsim::KIND, dst, src, sharedTmpBuffer, nullptr, (uint64_t)mask, \
					 repeatTime, srcRepStride, calIndex, loc);                                   \
	}                                                                                                             \
	template <class T>                                                                                            \
	ASCENDSIM_NOCOV inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,                       \
					 const LocalTensor<T> &sharedTmpBuffer, const uint64_t mask[],               \
					 const int32_t repeatTime, const int32_t srcRepStride, bool calIndex = false, \
					 ascendsim::srcloc loc = {})                                                  \
	{                                                                                                             \
		static_assert(ascendsim::is_one_of<T, half, float>::value, #NAME " supports half and float");        \
		ascendsim::reduce_repeat(#NAME, ascendsim::KIND, dst, src, sharedTmpBuffer, mask, 0, repeatTime,     \
					 srcRepStride, calIndex, loc);                                               \
	}

ASCENDSIM_REDUCE_EXTREME(ReduceMax, REDUCE_MAX)
ASCENDSIM_REDUCE_EXTREME(ReduceMin, REDUCE_MIN)

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

// RepeatReduceSum: WholeReduceSum with a continuous mask only
// (elemsInOneRepeat); dstBlkStride has no effect.
template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void RepeatReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeat,
					    const int32_t elemsInOneRepeat, const int32_t dstBlkStride, const int32_t srcBlkStride,
					    const int32_t dstRepStride, const int32_t srcRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "RepeatReduceSum supports half and float");
	(void)dstBlkStride;
	if (elemsInOneRepeat < 0)
		ascendsim::fail("invalid_argument", loc, "RepeatReduceSum: elemsInOneRepeat %d is negative", (int)elemsInOneRepeat);
	ascendsim::whole_reduce<T, isSetMask>("RepeatReduceSum", ascendsim::REDUCE_SUM, dst, src, nullptr,
					      (uint64_t)elemsInOneRepeat, repeat, dstRepStride, srcBlkStride, srcRepStride,
					      ReduceOrder::ORDER_ONLY_VALUE, loc);
}

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

// ---- the reduction registers ------------------------------------------------------------------

namespace ascendsim {

// A scalar read of a special register, costed as a control instruction on S.
ASCENDSIM_NOCOV inline void spr_read(const char *api, srcloc loc)
{
	instr r{};
	r.name = api;
	r.loc = loc;
	r.kind = INSTR_CONTROL;
	r.pipe = PIPE_ID_S;
	r.event_id = -1;
	issue(r);
}

ASCENDSIM_NOCOV inline uint64_t acc_val_read(const char *api, srcloc loc)
{
	if (!g_core->acc_dtype)
		fail("invalid_argument", loc,
		     "%s: no accumulating sum (ReduceSum's count form, vcadd in mode 1) has run on this core", api);
	spr_read(api, loc);
	return g_core->acc_val;
}

template <class T> ASCENDSIM_NOCOV inline T acc_val_as(const char *api, srcloc loc)
{
	static_assert(is_one_of<T, half, float>::value, "the ReduceSum accumulator holds half or float");
	uint64_t v = acc_val_read(api, loc);
	if (g_core->acc_dtype != dtype_of<T>::code)
		fail("invalid_argument", loc, "%s<T>: T must be the type of the ReduceSum that set the accumulator", api);
	return from_bits<T>((uint32_t)v);
}

// The value bits, and the index in the next 32 bits.
ASCENDSIM_NOCOV inline uint64_t max_min_raw(const char *api, srcloc loc)
{
	if (!g_core->max_min_dtype)
		fail("invalid_argument", loc, "%s: no WholeReduceMax/Min or ReduceMax/Min has run on this core", api);
	spr_read(api, loc);
	return (uint64_t)g_core->max_min_val | ((uint64_t)g_core->max_min_idx << 32);
}

template <class T>
ASCENDSIM_NOCOV inline void max_min_read(const char *api, T &value, T &index, bool counter_ok, srcloc loc)
{
	static_assert(is_one_of<T, half, float>::value, "the max/min register holds half or float");
	core_state *c = g_core;
	max_min_raw(api, loc);
	if (c->max_min_dtype != dtype_of<T>::code)
		fail("invalid_argument", loc, "%s<T>: T must be the type of the reduction that set the register", api);
	if (c->max_min_exact == 2)
		violation("invalid_argument", loc,
			  "%s: only a continuous reduction (srcBlkStride 1, srcRepStride 8) leaves a defined result", api);
	if (!counter_ok && c->max_min_counter)
		violation("invalid_argument", loc, "%s: the result of a reduction in counter mode is not available", api);
	if (c->max_min_exact == 0)
		warn(loc, "%s after ReduceMax/ReduceMin: hardware leaves the index inexact (documented); "
			  "the simulator returns the exact one",
		     api);
	value = from_bits<T>(c->max_min_val);
	if constexpr (sizeof(T) == 2)
		index = from_bits<T>((uint16_t)c->max_min_idx);
	else
		index = from_bits<T>(c->max_min_idx);
}

// vcadd on raw UB addresses (GetPhyAddr cast to a pointer): a UB offset.
template <class T> ASCENDSIM_NOCOV inline AscendC::LocalTensor<T> ub_at(const T *p, const char *api, const char *operand, srcloc loc)
{
	uintptr_t a = (uintptr_t)p;
	core_state *c = g_core;
	uint32_t off;
	if (a < c->ub_bytes)
		off = (uint32_t)a;
	else if ((const uint8_t *)p >= c->ub && (const uint8_t *)p < c->ub + c->ub_bytes)
		off = (uint32_t)((const uint8_t *)p - c->ub);
	else
		fail("out_of_bounds", loc, "%s: %s 0x%llx is not a UB address (GetPhyAddr of a LocalTensor)", api, operand,
		     (unsigned long long)a);
	if (off % sizeof(T))
		fail("misaligned_operand", loc, "%s: %s at UB 0x%x is not %zu-byte aligned", api, operand, off, sizeof(T));
	AscendC::LocalTensor<T> t;
	t.data_ = reinterpret_cast<T *>(c->ub + off);
	t.size_ = t.cap_ = (c->ub_bytes - off) / (uint32_t)sizeof(T);
	return t;
}

// The vcadd intrinsic: per repeat, the pairwise-tree sum of the active
// lanes (current mask, counter mode honoured).  mode false writes repeat r's
// sum to dst[r * dstRepeatStride]; mode true adds the repeat sums in order
// into ACC_VAL and leaves dst alone (CCE intrinsic reference, "vcadd").
template <class T>
ASCENDSIM_NOCOV inline void vcadd_run(T *dstp, T *srcp, uint8_t repeat, uint16_t dstRepeatStride, uint16_t srcBlockStride,
				      uint16_t srcRepeatStride, bool mode, srcloc loc)
{
	const char *api = "vcadd";
	constexpr uint32_t lanes = 256 / sizeof(T), epb = 32 / sizeof(T);
	AscendC::LocalTensor<T> dst = ub_at(dstp, api, "dst", loc), src = ub_at(srcp, api, "src", loc);
	lane_plan lp = plan_lanes(lanes, false, nullptr, 0, repeat, api, loc);
	uint64_t es = lane_extent(lp, epb, srcBlockStride, srcRepeatStride);
	uint64_t ed = mode || !lp.repeats ? 0 : (uint64_t)(lp.repeats - 1) * dstRepeatStride + 1;
	vec_operand(src, es, api, "src", loc);
	ub_check(dst, ed, api, "dst", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[1] = srcBlockStride;
	r.rep_stride[0] = dstRepeatStride;
	r.rep_stride[1] = srcRepeatStride;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src, es);
	issue(r);
	if (mode) {
		set_acc_val(accumulate_sum(lp, src.data_, epb, srcBlockStride, srcRepeatStride));
		return;
	}
	T buf[lanes];
	for (uint32_t k = 0; k < lp.repeats; k++) {
		uint32_t m = repeat_lanes(lp, src.data_, k, epb, srcBlockStride, srcRepeatStride, buf, (uint32_t *)nullptr);
		dst.data_[(size_t)k * dstRepeatStride] = tree_sum(buf, m);
	}
}

} // namespace ascendsim

namespace AscendC {

// The high-level Sum (AscendC API reference, Sum): the sum of the first n
// of every row of inner elements, outter rows, one result per row in dst.
// inner * sizeof(T) must be a whole number of 32-byte blocks and 1 <= n <=
// inner; src, dst and the temporary space must not overlap.  It adds as
// ReduceSum does, which the reference says it shares: a pairwise tree in
// each 256-byte repeat, the repeat sums then in order.  CANN documents no
// size for the temporary space (GetSumMaxMinTmpSize gives no figures), so
// the simulator checks none beyond a given sharedTmpBuffer not overlapping.
struct SumParams {
	uint32_t outter = 1;
	uint32_t inner;
	uint32_t n;
};

} // namespace AscendC

namespace ascendsim {

template <class T>
ASCENDSIM_NOCOV inline void sum_rows(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
				     const AscendC::LocalTensor<uint8_t> *tmp, const AscendC::SumParams &p, srcloc loc)
{
	const char *api = "Sum";
	constexpr uint32_t lanes = 256 / sizeof(T), epb = 32 / sizeof(T);
	if (p.outter == 0 || p.n == 0 || p.n > p.inner || (p.inner * sizeof(T)) % 32 != 0)
		fail("invalid_argument", loc,
		     "Sum: SumParams{outter %u, inner %u, n %u}: outter and n must be at least 1, n at most inner, and "
		     "inner * %zu bytes a multiple of 32",
		     p.outter, p.inner, p.n, sizeof(T));
	uint64_t in = (uint64_t)p.outter * p.inner, out = ((uint64_t)p.outter * sizeof(T) + 31) / 32 * 32 / sizeof(T);
	vec_operand(src, in, api, "srcTensor", loc);
	vec_operand(dst, out, api, "dstTensor", loc);
	uint32_t s0 = ub_offset(src.data_), d0 = ub_offset(dst.data_);
	if (s0 < d0 + out * sizeof(T) && d0 < s0 + in * sizeof(T))
		fail("invalid_argument", loc, "Sum: dstTensor (UB 0x%x) overlaps srcTensor (UB 0x%x)", d0, s0);
	if (tmp) {
		uint32_t t0 = ub_offset(tmp->data_), tn = tmp->size_;
		if ((t0 < d0 + out * sizeof(T) && d0 < t0 + tn) || (t0 < s0 + in * sizeof(T) && s0 < t0 + tn))
			fail("invalid_argument", loc, "Sum: sharedTmpBuffer (UB 0x%x) overlaps a source or destination", t0);
	}
	uint32_t reps = (p.n + lanes - 1) / lanes;
	instr r = vec_record(api, dtype_of<T>::code, p.outter * p.n, p.outter * reps, loc);
	r.dst = span_of(dst, p.outter);
	r.src[0] = span_of(src, in);
	issue(r);
	lane_plan lp{};
	lp.counter = true;
	lp.lanes = lanes;
	lp.total = p.n;
	lp.repeats = reps;
	for (uint32_t row = 0; row < p.outter; row++)
		dst.data_[row] = accumulate_sum(lp, src.data_ + (uint64_t)row * p.inner, epb, 1, 8);
}

} // namespace ascendsim

namespace AscendC {

template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
ASCENDSIM_NOCOV inline void Sum(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor,
				const LocalTensor<uint8_t> &sharedTmpBuffer, const SumParams &sumParams,
				ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Sum supports half and float");
	static_assert(reduceDim == -1, "Sum sums the last dimension only: reduceDim is -1");
	ascendsim::sum_rows(dstTensor, srcTensor, &sharedTmpBuffer, sumParams, loc);
}

template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
ASCENDSIM_NOCOV inline void Sum(const LocalTensor<T> &dstTensor, const LocalTensor<T> &srcTensor, const SumParams &sumParams,
				ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Sum supports half and float");
	static_assert(reduceDim == -1, "Sum sums the last dimension only: reduceDim is -1");
	ascendsim::sum_rows(dstTensor, srcTensor, (const LocalTensor<uint8_t> *)nullptr, sumParams, loc);
}

// The accumulator a count-form ReduceSum left: raw bits (the older
// reg_others spelling kernels call without a type), or as T.
ASCENDSIM_NOCOV inline int64_t GetAccVal(ascendsim::srcloc loc = {})
{
	return (int64_t)ascendsim::acc_val_read("GetAccVal", loc);
}

template <class T> ASCENDSIM_NOCOV inline T GetAccVal(ascendsim::srcloc loc = {})
{
	return ascendsim::acc_val_as<T>("GetAccVal", loc);
}

template <class T> ASCENDSIM_NOCOV inline T GetReduceRepeatSumSpr(ascendsim::srcloc loc = {})
{
	return ascendsim::acc_val_as<T>("GetReduceRepeatSumSpr", loc);
}

// The extreme and its index (stored in T's bits) a WholeReduceMax/Min or
// ReduceMax/Min left.  Atlas A2 has only the two-result form.
template <class T> ASCENDSIM_NOCOV inline void GetReduceMaxMinCount(T &maxMinValue, T &maxMinIndex, ascendsim::srcloc loc = {})
{
	ascendsim::max_min_read("GetReduceMaxMinCount", maxMinValue, maxMinIndex, true, loc);
}

template <class T> ASCENDSIM_NOCOV inline void GetReduceMaxMinCount(T &maxMinValue)
{
	static_assert(sizeof(T) == 0, "GetReduceMaxMinCount(value) is not available on Atlas A2; use (value, index)");
}

template <class T> ASCENDSIM_NOCOV inline void GetReduceRepeatMaxMinSpr(T &maxMinValue, T &maxMinIndex, ascendsim::srcloc loc = {})
{
	ascendsim::max_min_read("GetReduceRepeatMaxMinSpr", maxMinValue, maxMinIndex, false, loc);
}

template <class T> ASCENDSIM_NOCOV inline void GetReduceRepeatMaxMinSpr(T &maxMinValue)
{
	static_assert(sizeof(T) == 0, "GetReduceRepeatMaxMinSpr(value) is not available on Atlas A2; use (value, index)");
}

ASCENDSIM_NOCOV inline int64_t GetMaxMinCnt(ascendsim::srcloc loc = {})
{
	return (int64_t)ascendsim::max_min_raw("GetMaxMinCnt", loc);
}

} // namespace AscendC

// The intrinsic spellings of the same registers and of vcadd.
ASCENDSIM_NOCOV inline int64_t get_acc_val(ascendsim::srcloc loc = {})
{
	return (int64_t)ascendsim::acc_val_read("get_acc_val", loc);
}

ASCENDSIM_NOCOV inline int64_t get_max_min_cnt(ascendsim::srcloc loc = {})
{
	return (int64_t)ascendsim::max_min_raw("get_max_min_cnt", loc);
}

ASCENDSIM_NOCOV inline void vcadd(__ubuf__ half *dst, __ubuf__ half *src, uint8_t repeat, uint16_t dstRepeatStride,
				  uint16_t srcBlockStride, uint16_t srcRepeatStride, bool mode, ascendsim::srcloc loc = {})
{
	ascendsim::vcadd_run(dst, src, repeat, dstRepeatStride, srcBlockStride, srcRepeatStride, mode, loc);
}

ASCENDSIM_NOCOV inline void vcadd(__ubuf__ float *dst, __ubuf__ float *src, uint8_t repeat, uint16_t dstRepeatStride,
				  uint16_t srcBlockStride, uint16_t srcRepeatStride, bool mode, ascendsim::srcloc loc = {})
{
	ascendsim::vcadd_run(dst, src, repeat, dstRepeatStride, srcBlockStride, srcRepeatStride, mode, loc);
}

#endif
