// SPDX-License-Identifier: MIT
//
// Sorting on the vector unit, in the Atlas A2 (910B) layout: Sort32, the
// basic MrgSort (MrgSort4Info) with GetMrgSortResult, and the library's
// Sort<T, isFullSort>, MrgSort with element counts, Concat, Extract,
// GetSortLen and GetSortOffset.  Written clean-room from the public API
// reference (asc-devkit docs/zh/api/SIMD-API: 基础API "排序组合" and 高阶API
// "排序操作").  ProposalConcat, ProposalExtract, MrgSort4 and RpSort16 are
// documented as not available on Atlas A2 and report `unsupported`.
//
// A sorted element is an 8-byte record: float score then uint32 index, or
// half score, two reserved bytes (written as zero here) and uint32 index.
// Sorting is descending by score and stable (equal scores keep their input
// order); NaN scores sort before everything else (a choice: the docs are
// silent).
#ifndef ASCENDSIM_KERNEL_SORT_H
#define ASCENDSIM_KERNEL_SORT_H

#include <algorithm>
#include <vector>

#include "ascendsim/kernel_gather.h"

namespace AscendC {

constexpr int32_t MRG_SORT_ELEMENT_LEN = 4;

struct MrgSort4Info {
	uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
	bool ifExhaustedSuspension = false;
	uint16_t validBit = 0;
	uint8_t repeatTimes = 1;
	MrgSort4Info() = default;
	ASCENDSIM_NOCOV MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
				     const uint16_t validBitIn, const uint16_t repeatTimesIn)
	    : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes((uint8_t)repeatTimesIn)
	{
		for (int i = 0; i < MRG_SORT_ELEMENT_LEN; i++)
			elementLengths[i] = elementLengthsIn[i];
	}
};

template <class T> struct MrgSortSrcList {
	LocalTensor<T> src1;
	LocalTensor<T> src2;
	LocalTensor<T> src3;
	LocalTensor<T> src4;
	MrgSortSrcList() = default;
	ASCENDSIM_NOCOV MrgSortSrcList(const LocalTensor<T> &src1In, const LocalTensor<T> &src2In, const LocalTensor<T> &src3In,
				       const LocalTensor<T> &src4In)
	    : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0]) {}
};

// Elements of T one sorted record takes (8 bytes).  The reference page calls
// the result a size in bytes, but the value is in elements of T, which is
// how operators use it (Get<float>(GetSortLen<float>(n)), blockLen =
// GetSortLen<float>(n) * sizeof(float)).
template <class T> ASCENDSIM_NOCOV inline uint32_t GetSortLen(const uint32_t elemCount)
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "GetSortLen supports half and float");
	return elemCount * (uint32_t)(8 / sizeof(T));
}

template <class T> ASCENDSIM_NOCOV inline uint32_t GetSortOffset(const uint32_t elemOffset)
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "GetSortOffset supports half and float");
	return elemOffset * (uint32_t)(8 / sizeof(T));
}

} // namespace AscendC

namespace ascendsim {

struct sort_rec {
	uint32_t score_bits; /* float bits, or half bits in the low 16 */
	uint32_t index;
	float key;           /* for ordering */
};

// a before b in descending order; NaN before everything.
ASCENDSIM_NOCOV inline bool sort_before(const sort_rec &a, const sort_rec &b)
{
	bool an = a.key != a.key, bn = b.key != b.key;
	if (an || bn)
		return an && !bn;
	return a.key > b.key;
}

template <class T> ASCENDSIM_NOCOV inline sort_rec sort_load(const uint8_t *p)
{
	sort_rec r;
	T v;
	std::memcpy(&v, p, sizeof(T));
	uint32_t b = 0;
	std::memcpy(&b, p, sizeof(T));
	r.score_bits = b;
	std::memcpy(&r.index, p + 4, 4);
	float f = num<T>::load(v);
	r.key = f;
	return r;
}

template <class T> ASCENDSIM_NOCOV inline void sort_store(uint8_t *p, const sort_rec &r)
{
	std::memset(p, 0, 4);
	std::memcpy(p, &r.score_bits, sizeof(T));
	std::memcpy(p + 4, &r.index, 4);
}

template <class T> ASCENDSIM_NOCOV inline sort_rec sort_make(T score, uint32_t index)
{
	sort_rec r;
	r.score_bits = 0;
	std::memcpy(&r.score_bits, &score, sizeof(T));
	r.index = index;
	r.key = num<T>::load(score);
	return r;
}

ASCENDSIM_NOCOV inline void sort_stable(std::vector<sort_rec> &v)
{
	std::stable_sort(v.begin(), v.end(), sort_before);
}

// Sort `reps` groups of 32 (score, index) pairs; a full sort orders all
// of them at once.  Records go to dst densely (8 bytes each).
template <class T>
ASCENDSIM_NOCOV inline void sort_groups(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src0,
					const AscendC::LocalTensor<uint32_t> &src1, int32_t repeat, bool full, srcloc loc)
{
	if (repeat < 0 || repeat > 255)
		fail("repeat_overflow", loc, "%s: repeatTime %d is outside 0..255", api, (int)repeat);
	uint32_t n = (uint32_t)repeat * 32;
	vec_operand(dst, (uint64_t)n * 8 / sizeof(T), api, "dst", loc);
	vec_operand(src0, n, api, "src0 (scores)", loc);
	vec_operand(src1, n, api, "src1 (indices)", loc);
	/*
	 * Each operand starts 32-byte aligned (vec_operand checks it), as the
	 * parameter tables of Sort32 and Sort ask.  The 256/128-byte figures
	 * in Sort32's repeat note are the strides from one repeat to the next;
	 * CANN's own moe_soft_max_topk sorts into a dst on a 128-byte boundary.
	 */
	instr r = vec_record("Sort32", dtype_of<T>::code, n, (uint32_t)repeat, loc);
	r.dst = span_of(dst, (uint64_t)n * 8 / sizeof(T));
	r.src[0] = span_of(src0, n);
	r.src[1] = span_of(src1, n);
	issue(r);
	std::vector<sort_rec> v(n);
	for (uint32_t i = 0; i < n; i++)
		v[i] = sort_make(src0.data_[i], src1.data_[i]);
	if (full && repeat > 1) {
		sort_stable(v);
		// The library merges the sorted groups four at a time.
		for (uint32_t groups = (uint32_t)repeat; groups > 1; groups = (groups + 3) / 4) {
			instr m = vec_record("MrgSort", dtype_of<T>::code, n, ((uint64_t)n * 8 + 255) / 256, loc);
			m.dst = r.dst;
			m.src[0] = r.dst;
			issue(m);
		}
	} else {
		for (uint32_t g = 0; g < (uint32_t)repeat; g++)
			std::stable_sort(v.begin() + g * 32, v.begin() + g * 32 + 32, sort_before);
	}
	uint8_t *d = (uint8_t *)dst.data_;
	for (uint32_t i = 0; i < n; i++)
		sort_store<T>(d + (size_t)i * 8, v[i]);
}

// Merge up to four sorted record lists.  validBit 3, 7 or 15 names the
// lists taken; ties go to the lower-numbered list.  With `suspend` the merge
// stops once a list runs out (after its last record), and `done` tells how
// many records of each list went out.  repeatTimes > 1 merges that many
// consecutive groups of four equally long, contiguous lists and is refused
// (invalid_argument) unless those documented conditions hold.
template <class T>
ASCENDSIM_NOCOV inline void merge_lists(const char *api, const AscendC::LocalTensor<T> &dst, const AscendC::MrgSortSrcList<T> &src,
					const uint16_t len[4], uint16_t validBit, bool suspend, int32_t repeat,
					uint32_t done[4], srcloc loc)
{
	if (repeat < 0 || repeat > 255)
		fail("repeat_overflow", loc, "%s: repeatTimes %d is outside 0..255", api, (int)repeat);
	int lists = validBit == 3 ? 2 : validBit == 7 ? 3 : validBit == 15 ? 4 : 0;
	if (!lists)
		fail("invalid_argument", loc, "%s: validBit %u; it takes 3, 7 or 15 (the first 2, 3 or 4 lists)", api, validBit);
	const AscendC::LocalTensor<T> *s[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
	constexpr uint32_t per = 8 / sizeof(T); /* elements of T per record */
	for (int i = 0; i < 4; i++)
		done[i] = 0;
	if (repeat > 1) {
		bool same = lists == 4 && !suspend;
		for (int i = 1; i < 4 && same; i++)
			same = len[i] == len[0] && s[i]->data_ == s[i - 1]->data_ + (size_t)len[0] * per;
		if (!same)
			fail("invalid_argument", loc,
			     "%s: repeatTimes %d needs four equally long, contiguous lists, validBit 15 and no exhausted "
			     "suspension",
			     api, (int)repeat);
	}
	uint32_t reps = (uint32_t)repeat;
	uint64_t total = 0;
	for (int i = 0; i < lists; i++) {
		if (len[i] > 4095)
			fail("invalid_argument", loc, "%s: list %d has %u records; at most 4095", api, i + 1, len[i]);
		total += len[i];
	}
	uint64_t group = reps > 1 ? total * per : 0; /* elements one repeat moves the lists and dst by */
	vec_operand(dst, reps ? (reps - 1) * group + total * per : 0, api, "dst", loc);
	ub_span spans[4] = {};
	for (int i = 0; i < lists; i++) {
		ub_check(*s[i], reps ? (reps - 1) * group + (uint64_t)len[i] * per : 0, api, "src list", loc);
		if (ub_offset(s[i]->data_) % 8)
			fail("misaligned_operand", loc, "%s: list %d at UB 0x%x is not 8-byte aligned", api, i + 1,
			     ub_offset(s[i]->data_));
		spans[i] = span_of(*s[i], reps ? (reps - 1) * group + (uint64_t)len[i] * per : 0);
	}
	instr r = vec_record("MrgSort", dtype_of<T>::code, (uint32_t)(total * reps), (total * reps * 8 + 255) / 256, loc);
	r.dst = span_of(dst, reps ? (reps - 1) * group + total * per : 0);
	for (int i = 0; i < lists && i < 3; i++)
		r.src[i] = spans[i];
	if (lists == 4) /* three source slots: the last holds lists 3 and 4 */
		r.src[2] = ub_span{std::min(spans[2].begin, spans[3].begin), std::max(spans[2].end, spans[3].end)};
	for (int i = 0; i < lists; i++)
		if (spans_meet(r.dst, spans[i]))
			fail("invalid_argument", loc, "%s: list %d (UB 0x%x) overlaps dst (UB 0x%x); the lists and dst must be apart",
			     api, i + 1, spans[i].begin, r.dst.begin);
	issue(r);
	for (uint32_t rr = 0; rr < reps; rr++) {
		const uint8_t *p[4];
		uint32_t at[4] = {0, 0, 0, 0};
		for (int i = 0; i < lists; i++)
			p[i] = (const uint8_t *)(s[i]->data_ + rr * group);
		uint8_t *d = (uint8_t *)(dst.data_ + rr * group);
		uint64_t out = 0;
		for (;;) {
			int best = -1;
			sort_rec br{};
			for (int i = 0; i < lists; i++) {
				if (at[i] >= len[i])
					continue;
				sort_rec c = sort_load<T>(p[i] + (size_t)at[i] * 8);
				if (best < 0 || sort_before(c, br)) {
					best = i;
					br = c;
				}
			}
			if (best < 0)
				break;
			std::memcpy(d + out * 8, p[best] + (size_t)at[best] * 8, 8);
			out++;
			at[best]++;
			if (suspend && at[best] == len[best])
				break;
		}
		if (suspend)
			for (int i = 0; i < 4; i++)
				done[i] = at[i];
		else
			for (int i = 0; i < lists; i++)
				done[i] = len[i];
	}
	for (int i = 0; i < 4; i++)
		g_core->mrgsort_done[i] = (uint16_t)done[i];
}

} // namespace ascendsim

namespace AscendC {

// ---- basic API ---------------------------------------------------------------------------------

// Each repeat sorts 32 scores of src0 with their uint32 indices from src1
// into 32 records (256 bytes) of dst.  The documented per-repeat alignments
// (dst 256 bytes, src0 32 elements, src1 128 bytes) are misaligned_operand
// violations.
template <class T>
ASCENDSIM_NOCOV inline void Sort32(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<uint32_t> &src1,
				   const int32_t repeatTime, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Sort32 supports half and float");
	ascendsim::sort_groups("Sort32", dst, src0, src1, repeatTime, false, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &src, const MrgSort4Info &params,
				    ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "MrgSort supports half and float");
	uint32_t done[4];
	ascendsim::merge_lists("MrgSort", dst, src, params.elementLengths, params.validBit, params.ifExhaustedSuspension,
			       params.repeatTimes, done, loc);
}

// Records each list of the last MrgSort gave out (all of them unless it
// stopped early with ifExhaustedSuspension).
ASCENDSIM_NOCOV inline void GetMrgSortResult(uint16_t &mrgSortList1, uint16_t &mrgSortList2, uint16_t &mrgSortList3,
					     uint16_t &mrgSortList4)
{
	const uint16_t *d = ascendsim::g_core->mrgsort_done;
	mrgSortList1 = d[0];
	mrgSortList2 = d[1];
	mrgSortList3 = d[2];
	mrgSortList4 = d[3];
}

// ---- library API -------------------------------------------------------------------------------

// Sorts 32*repeatTime scores (concat) with their indices: each group of 32
// on its own, or all together with isFullSort (the library merges the
// groups through tmp, which must hold GetSortLen<T>(32*repeatTime)
// elements; the simulator requires that much).
template <class T, bool isFullSort>
ASCENDSIM_NOCOV inline void Sort(const LocalTensor<T> &dst, const LocalTensor<T> &concat, const LocalTensor<uint32_t> &index,
				 LocalTensor<T> &tmp, const int32_t repeatTime, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Sort supports half and float");
	if (isFullSort && repeatTime > 1)
		ascendsim::vec_operand(tmp, GetSortLen<T>((uint32_t)repeatTime * 32), "Sort", "tmp", loc);
	ascendsim::sort_groups("Sort", dst, concat, index, repeatTime, isFullSort, loc);
}

template <class T, bool isExhaustedSuspension = false>
ASCENDSIM_NOCOV inline void MrgSort(const LocalTensor<T> &dst, const MrgSortSrcList<T> &sortList, const uint16_t elementCountList[4],
				    uint32_t sortedNum[4], uint16_t validBit, const int32_t repeatTime,
				    ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "MrgSort supports half and float");
	ascendsim::merge_lists("MrgSort", dst, sortList, elementCountList, validBit, isExhaustedSuspension, repeatTime,
			       sortedNum, loc);
}

// On Atlas A2 the scores are sorted where they are: concat becomes a view
// of src and no instruction runs.
template <class T>
ASCENDSIM_NOCOV inline void Concat(LocalTensor<T> &concat, const LocalTensor<T> &src, const LocalTensor<T> &tmp, const int32_t repeatTime,
				   ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Concat supports half and float");
	(void)tmp;
	if (repeatTime < 0 || repeatTime > 255)
		ascendsim::fail("repeat_overflow", loc, "Concat: repeatTime %d is outside 0..255", (int)repeatTime);
	ascendsim::ub_check(src, 1, "Concat", "src", loc);
	concat = src;
}

// Splits 32*repeatTime sorted records into scores and indices.
template <class T>
ASCENDSIM_NOCOV inline void Extract(const LocalTensor<T> &dstValue, const LocalTensor<uint32_t> &dstIndex, const LocalTensor<T> &sorted,
				    const int32_t repeatTime, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "Extract supports half and float");
	const char *api = "Extract";
	if (repeatTime < 0 || repeatTime > 255)
		ascendsim::fail("repeat_overflow", loc, "Extract: repeatTime %d is outside 0..255", (int)repeatTime);
	uint32_t n = (uint32_t)repeatTime * 32;
	ascendsim::vec_operand(dstValue, n, api, "dstValue", loc);
	ascendsim::vec_operand(dstIndex, n, api, "dstIndex", loc);
	ascendsim::vec_operand(sorted, (uint64_t)n * 8 / sizeof(T), api, "sorted", loc);
	// Two passes, as two records: the scores, then the indices.
	ascendsim::instr r = ascendsim::vec_record(api, ascendsim::dtype_of<T>::code, n, (uint32_t)repeatTime, loc);
	r.dst = ascendsim::span_of(dstValue, n);
	r.src[0] = ascendsim::span_of(sorted, (uint64_t)n * 8 / sizeof(T));
	ascendsim::issue(r);
	r.dtype = ascendsim::DTYPE_U32;
	r.dst = ascendsim::span_of(dstIndex, n);
	ascendsim::issue(r);
	std::vector<uint8_t> copy((const uint8_t *)sorted.data_, (const uint8_t *)sorted.data_ + (size_t)n * 8);
	for (uint32_t i = 0; i < n; i++) {
		std::memcpy(&dstValue.data_[i], copy.data() + (size_t)i * 8, sizeof(T));
		std::memcpy(&dstIndex.data_[i], copy.data() + (size_t)i * 8 + 4, 4);
	}
}

// Region-proposal forms: documented as not available on Atlas A2 (910B).
template <class... A> ASCENDSIM_NOCOV inline void ProposalConcat(A &&...)
{
	ascendsim::unsupported(ascendsim::srcloc(), "AscendC::ProposalConcat is not available on Atlas A2 (910B)");
}
template <class... A> ASCENDSIM_NOCOV inline void ProposalExtract(A &&...)
{
	ascendsim::unsupported(ascendsim::srcloc(), "AscendC::ProposalExtract is not available on Atlas A2 (910B)");
}
template <class... A> ASCENDSIM_NOCOV inline void MrgSort4(A &&...)
{
	ascendsim::unsupported(ascendsim::srcloc(), "AscendC::MrgSort4 is not available on Atlas A2 (910B)");
}
template <class... A> ASCENDSIM_NOCOV inline void RpSort16(A &&...)
{
	ascendsim::unsupported(ascendsim::srcloc(), "AscendC::RpSort16 is not available on Atlas A2 (910B)");
}

} // namespace AscendC

#endif
