// SPDX-License-Identifier: MIT
//
// Vector instructions that move elements around inside the Unified Buffer:
// Copy (UB to UB, masked), Gather, GatherMask, Brcb, CreateVecIndex,
// ArithProgression/Arange, PairReduceSum, TransDataTo5HD, Transpose and the
// library BroadCast.  Written clean-room from the public AscendC API reference (asc-devkit docs/zh/api/SIMD-API,
// pages named after each API, and the CCE intrinsic page scatter_vnchwconv
// for TransDataTo5HD's element order); where the docs leave a choice open
// the comment at the API says what the simulator does, and
// docs/simulator.md's "Choices to check against hardware" lists it.
//
// Every instruction here runs repeat by repeat: a repeat reads all of its
// inputs before it writes, and reading what an earlier repeat of the same
// instruction wrote is refused (invalid_argument), as the documented
// address-overlap rule says the result is then undefined.
#ifndef ASCENDSIM_KERNEL_GATHER_H
#define ASCENDSIM_KERNEL_GATHER_H

#include <vector>

#include "ascendsim/kernel_vector.h"

namespace AscendC {

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
// Arch 2201 (910B) defaults to the second form; the parameter is reserved.
constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;

// Strides in 32-byte blocks.  repeatTimes is read in both mask modes.
struct GatherMaskParams {
	uint8_t src0BlockStride = 1;
	uint16_t repeatTimes = 0;
	uint16_t src0RepeatStride = 8;
	uint8_t src1RepeatStride = 8;
	GatherMaskParams() = default;
	ASCENDSIM_NOCOV GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn,
					 const uint16_t src0RepeatStrideIn, const uint8_t src1RepeatStrideIn)
	    : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
	      src1RepeatStride(src1RepeatStrideIn) {}
};

// Only dstBlkStride and dstRepStride are read; the others are documented as
// reserved and kept so that code naming them compiles.
struct BrcbRepeatParams {
	uint32_t blockNumber = 8;
	uint16_t dstRepStride = 8;
	uint16_t dstBlkStride = 1;
	uint8_t src0BlkStride = 1;
	uint8_t src1BlkStride = 1;
	uint8_t src0RepStride = 8;
	uint8_t src1RepStride = 8;
	bool repeatStrideMode = false;
	bool strideSizeMode = false;
	BrcbRepeatParams() = default;
	ASCENDSIM_NOCOV BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
	    : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
};

// Copy's strides: within a repeat between blocks, and between repeats, in
// 32-byte blocks.
struct CopyRepeatParams {
	uint16_t dstStride = 1;
	uint16_t srcStride = 1;
	uint16_t dstRepeatSize = 8;
	uint16_t srcRepeatSize = 8;
	CopyRepeatParams() = default;
	ASCENDSIM_NOCOV CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
					 uint16_t srcRepeatSizeIn)
	    : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn) {}
};

constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
	bool dstHighHalf = false;
	bool srcHighHalf = false;
	uint8_t repeatTimes = 1;
	uint16_t dstRepStride = 0;
	uint16_t srcRepStride = 0;
	constexpr TransDataTo5HDParams() = default;
	constexpr TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
				       const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
	    : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
	      dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
};

enum class TransposeType : uint8_t {
	TRANSPOSE_TYPE_NONE = 0,
	TRANSPOSE_NZ2ND_0213,
	TRANSPOSE_NZ2NZ_0213,
	TRANSPOSE_NZ2NZ_012_WITH_N,
	TRANSPOSE_NZ2ND_012_WITH_N,
	TRANSPOSE_NZ2ND_012_WITHOUT_N,
	TRANSPOSE_NZ2NZ_012_WITHOUT_N,
	TRANSPOSE_ND2ND_ONLY,
	TRANSPOSE_ND_UB_GM,
	TRANSPOSE_GRAD_ND_UB_GM,
	TRANSPOSE_ND2ND_B16,
	TRANSPOSE_NCHW2NHWC,
	TRANSPOSE_NHWC2NCHW,
};

struct TransposeParamsExt {
	uint16_t nSize = 0;
	uint16_t cSize = 0;
	uint16_t hSize = 0;
	uint16_t wSize = 0;
	TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
	constexpr TransposeParamsExt() = default;
	constexpr TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn,
				     const uint16_t wSizeIn, const TransposeType transposeTypeIn)
	    : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
};

} // namespace AscendC

namespace ascendsim {

// Exactly which bytes of a destination span earlier repeats wrote, kept
// only when the span meets a source.  Marks are made after a repeat ends.
struct written_map {
	ub_span span{0, 0};
	std::vector<uint8_t> bytes;

	ASCENDSIM_NOCOV void init(ub_span s)
	{
		span = s;
		bytes.assign(s.end > s.begin ? s.end - s.begin : 0, 0);
	}
	ASCENDSIM_NOCOV void mark(uint32_t a, uint32_t len)
	{
		for (uint32_t i = 0; i < len; i++)
			if (a + i >= span.begin && a + i < span.end)
				bytes[a + i - span.begin] = 1;
	}
	ASCENDSIM_NOCOV bool hit(uint32_t a, uint32_t len) const
	{
		for (uint32_t i = 0; i < len; i++)
			if (a + i >= span.begin && a + i < span.end && bytes[a + i - span.begin])
				return true;
		return false;
	}
};

[[noreturn]] ASCENDSIM_NOCOV inline void repeat_dependency(const char *api, uint32_t r, uint32_t a, srcloc loc)
{
	fail("invalid_argument", loc,
	     "%s: repeat %u reads UB 0x%x, which an earlier repeat of the same instruction wrote; source and "
	     "destination may overlap only where no repeat depends on another's result",
	     api, r, a);
}

// Spans overlap (either may be empty).
ASCENDSIM_NOCOV inline bool spans_meet(ub_span a, ub_span b)
{
	return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}

ASCENDSIM_NOCOV inline void repeat_arg(int64_t repeat, const char *api, srcloc loc)
{
	if (repeat < 0 || repeat > 255)
		fail("repeat_overflow", loc, "%s: repeatTimes %lld is outside 0..255 (the field is 8 bits wide)", api,
		     (long long)repeat);
}

// ---- Copy (UB -> UB, mask forms) ----------------------------------------------------------

// The masked, strided UB -> UB copy: lane k of repeat r goes from src to dst
// unchanged (bit for bit).  Repeat sizes above 4095 blocks are outside the
// documented range (invalid_argument).  The count form is documented for
// the 950 only and is left out.
template <class T, bool isSetMask>
ASCENDSIM_NOCOV inline void copy_mask(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const uint64_t *bits,
				      uint64_t mask, int32_t repeat, const AscendC::CopyRepeatParams &p, srcloc loc)
{
	const char *api = "Copy";
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T);
	if (p.dstRepeatSize > 4095 || p.srcRepeatSize > 4095)
		fail("invalid_argument", loc, "Copy: dstRepeatSize %u / srcRepeatSize %u exceed 4095", p.dstRepeatSize,
		     p.srcRepeatSize);
	lane_plan lp = plan_lanes(lanes, isSetMask, bits, mask, repeat, api, loc);
	uint64_t ed = lane_extent(lp, epb, p.dstStride, p.dstRepeatSize);
	uint64_t es = lane_extent(lp, epb, p.srcStride, p.srcRepeatSize);
	vec_operand(dst, ed, api, "dst", loc);
	vec_operand(src, es, api, "src", loc);
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[0] = p.dstStride;
	r.blk_stride[1] = p.srcStride;
	r.rep_stride[0] = p.dstRepeatSize;
	r.rep_stride[1] = p.srcRepeatSize;
	r.dst = span_of(dst, ed);
	r.src[0] = span_of(src, es);
	issue(r);
	bool overlap = spans_meet(r.dst, r.src[0]);
	written_map wm;
	if (overlap)
		wm.init(r.dst);
	T buf[lanes];
	for (uint32_t rr = 0; rr < lp.repeats; rr++) {
		for (uint32_t k = 0; k < lanes; k++) {
			if (!lane_on(lp, rr, k))
				continue;
			const T *s = src.data_ + lane_offset(rr, k, epb, p.srcStride, p.srcRepeatSize);
			if (overlap && wm.hit(ub_offset(s), sizeof(T)))
				repeat_dependency(api, rr, ub_offset(s), loc);
			buf[k] = *s;
		}
		for (uint32_t k = 0; k < lanes; k++)
			if (lane_on(lp, rr, k)) {
				T *d = dst.data_ + lane_offset(rr, k, epb, p.dstStride, p.dstRepeatSize);
				*d = buf[k];
				if (overlap)
					wm.mark(ub_offset(d), sizeof(T));
			}
	}
}

template <class T> struct copy_types {
	static constexpr bool ok = is_one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>::value;
};

} // namespace ascendsim

namespace AscendC {

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const uint8_t repeatTime,
				 const CopyRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::copy_types<T>::ok,
		      "Copy supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	ascendsim::copy_mask<T, isSetMask>(dst, src, mask, 0, repeatTime, repeatParams, loc);
}

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void Copy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask, const uint8_t repeatTime,
				 const CopyRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::copy_types<T>::ok,
		      "Copy supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	ascendsim::copy_mask<T, isSetMask>(dst, src, nullptr, mask, repeatTime, repeatParams, loc);
}

} // namespace AscendC

namespace ascendsim {

// ---- Gather --------------------------------------------------------------------------------

// dst[i] = src at byte (srcBaseAddr + srcOffset[i]).  `plan` says which
// lanes of which repeat run; repeat r takes offsets r*lanes.. and writes
// dst from r*dstRepStride blocks (dst_rep_elems elements apart).
template <class T>
ASCENDSIM_NOCOV inline void gather_run(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,
				       const AscendC::LocalTensor<uint32_t> &offs, uint32_t base, const lane_plan &lp,
				       uint32_t dst_rep_elems, srcloc loc)
{
	const char *api = "Gather";
	constexpr uint32_t lanes = 256 / sizeof(T);
	if (base % sizeof(T) != 0)
		fail("misaligned_operand", loc, "Gather: srcBaseAddr %u is not a multiple of the %zu-byte element", base,
		     sizeof(T));
	// Extents: the last lane of the last (or for counter mode, any) repeat.
	uint64_t n_off = 0, ed = 0;
	for (uint32_t r = lp.repeats >= 2 ? lp.repeats - 2 : 0; r < lp.repeats; r++)
		for (uint32_t k = 0; k < lanes; k++)
			if (lane_on(lp, r, k)) {
				n_off = std::max<uint64_t>(n_off, (uint64_t)r * lanes + k + 1);
				ed = std::max<uint64_t>(ed, (uint64_t)r * dst_rep_elems + k + 1);
			}
	vec_operand(dst, ed, api, "dst", loc);
	vec_operand(src, 1, api, "src", loc);
	vec_operand(offs, n_off, api, "srcOffset", loc);
	// Every offset must land inside src, element aligned.
	uint64_t lo = ~0ULL, hi = 0;
	for (uint32_t r = 0; r < lp.repeats; r++)
		for (uint32_t k = 0; k < lanes; k++) {
			if (!lane_on(lp, r, k))
				continue;
			uint32_t i = r * lanes + k;
			uint64_t b = (uint64_t)base + offs.data_[i];
			if (b % sizeof(T) != 0)
				fail("misaligned_operand", loc,
				     "Gather: srcOffset[%u] = %u (+ srcBaseAddr %u) is not a multiple of the %zu-byte "
				     "element",
				     i, offs.data_[i], base, sizeof(T));
			if (b / sizeof(T) >= src.size_)
				fail("out_of_bounds", loc,
				     "Gather: srcOffset[%u] = %u (+ srcBaseAddr %u) reads byte %llu of src at UB 0x%x, "
				     "which has only %llu bytes",
				     i, offs.data_[i], base, (unsigned long long)b, ub_offset(src.data_),
				     (unsigned long long)src.size_ * sizeof(T));
			lo = std::min(lo, b);
			hi = std::max(hi, b + sizeof(T));
		}
	instr r = vec_record(api, dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.rep_stride[0] = (uint16_t)(dst_rep_elems * sizeof(T) / 32);
	r.dst = span_of(dst, ed);
	if (hi > lo) {
		uint32_t s0 = ub_offset(src.data_);
		r.src[0] = ub_span{s0 + (uint32_t)lo, s0 + (uint32_t)hi};
	}
	r.src[1] = span_of(offs, n_off);
	issue(r);
	const uint8_t *sb = (const uint8_t *)src.data_ + base;
	bool overlap = spans_meet(r.dst, r.src[0]) || spans_meet(r.dst, r.src[1]);
	written_map wm;
	if (overlap)
		wm.init(r.dst);
	T buf[lanes];
	for (uint32_t rr = 0; rr < lp.repeats; rr++) {
		for (uint32_t k = 0; k < lanes; k++) {
			if (!lane_on(lp, rr, k))
				continue;
			uint32_t i = rr * lanes + k;
			if (overlap) {
				if (wm.hit(ub_offset(offs.data_ + i), 4))
					repeat_dependency(api, rr, ub_offset(offs.data_ + i), loc);
				if (wm.hit(ub_offset(sb + offs.data_[i]), sizeof(T)))
					repeat_dependency(api, rr, ub_offset(sb + offs.data_[i]), loc);
			}
			std::memcpy(&buf[k], sb + offs.data_[i], sizeof(T));
		}
		for (uint32_t k = 0; k < lanes; k++)
			if (lane_on(lp, rr, k)) {
				T *d = dst.data_ + (size_t)rr * dst_rep_elems + k;
				*d = buf[k];
				if (overlap)
					wm.mark(ub_offset(d), sizeof(T));
			}
	}
}

template <class T> struct gather_types {
	static constexpr bool ok = is_one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>::value;
};

} // namespace ascendsim

namespace AscendC {

// Count form: the first `count` offsets, dst written densely.
template <class T>
ASCENDSIM_NOCOV inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
				   const uint32_t srcBaseAddr, const uint32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::gather_types<T>::ok,
		      "Gather supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	constexpr uint32_t lanes = 256 / sizeof(T);
	ascendsim::lane_plan lp{};
	lp.counter = true;
	lp.lanes = lanes;
	lp.total = count;
	lp.repeats = (count + lanes - 1) / lanes;
	ascendsim::gather_run(dst, src, srcOffset, srcBaseAddr, lp, lanes, loc);
}

// Mask forms: dstRepStride in 32-byte blocks; offsets are consumed a whole
// repeat (256 bytes of T) at a time whatever the mask.
template <class T>
ASCENDSIM_NOCOV inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
				   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTimes,
				   const uint16_t dstRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::gather_types<T>::ok,
		      "Gather supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), true, nullptr, mask, repeatTimes, "Gather", loc);
	ascendsim::gather_run(dst, src, srcOffset, srcBaseAddr, lp, dstRepStride * (32 / (uint32_t)sizeof(T)), loc);
}

template <class T>
ASCENDSIM_NOCOV inline void Gather(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
				   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTimes,
				   const uint16_t dstRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::gather_types<T>::ok,
		      "Gather supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	ascendsim::lane_plan lp = ascendsim::plan_lanes(256 / sizeof(T), true, mask, 0, repeatTimes, "Gather", loc);
	ascendsim::gather_run(dst, src, srcOffset, srcBaseAddr, lp, dstRepStride * (32 / (uint32_t)sizeof(T)), loc);
}

} // namespace AscendC

namespace ascendsim {

// ---- GatherMask ----------------------------------------------------------------------------

// Bit k of a built-in pattern (1..7), k counting from 0 within a repeat.
ASCENDSIM_NOCOV inline bool builtin_pattern_bit(uint8_t p, uint64_t k)
{
	switch (p) {
	case 1: return k % 2 == 0;
	case 2: return k % 2 == 1;
	case 3: case 4: case 5: case 6: return k % 4 == (uint64_t)(p - 3);
	default: return true;
	}
}

// Normal mode (reduceMode false): each repeat covers 256 bytes of src0;
// counter mode (true): each repeat covers `mask` elements, read on through
// the repeat's blocks (src0BlockStride apart), as the 910B's "configuration
// one" does.  Kept elements go densely to dst from dst[0] across repeats.
// The built-in patterns restart each repeat; a pattern tensor is read from
// src1RepeatStride blocks further each repeat, bit k of repeat r being bit
// k mod 8 of byte k/8 (little-endian, element k of the repeat).
template <class T, class U>
ASCENDSIM_NOCOV inline void gather_mask_run(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src0,
					    const AscendC::LocalTensor<U> *pattern, uint8_t builtin, bool reduceMode,
					    uint32_t mask, const AscendC::GatherMaskParams &p, uint64_t &rsvdCnt, srcloc loc)
{
	const char *api = "GatherMask";
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T);
	repeat_arg(p.repeatTimes, api, loc);
	if (!pattern && (builtin < 1 || builtin > 7))
		fail("invalid_argument", loc, "GatherMask: built-in src1Pattern %u is outside 1..7", builtin);
	if (reduceMode && mask == 0)
		fail("invalid_argument", loc, "GatherMask: mask 0 in counter mode (reduceMode true); it takes 1..2^32-1");
	uint32_t reps = p.repeatTimes;
	uint64_t per = reduceMode ? mask : lanes; /* elements per repeat */
	uint32_t blk = p.src0BlockStride, rep = p.src0RepeatStride;
	auto src_index = [&](uint32_t r, uint64_t k) ASCENDSIM_NOCOV {
		return ((uint64_t)r * rep + (k / epb) * blk) * epb + k % epb;
	};
	uint64_t pat_bytes_per = (per + 7) / 8;
	uint64_t pat_stride = (uint64_t)p.src1RepeatStride * 32;
	uint64_t es = 0, ep = 0;
	if (reps) {
		for (uint32_t r : {reps - 1, reps >= 2 ? reps - 2 : reps - 1})
			es = std::max(es, src_index(r, per - 1) + 1);
		ep = ((reps - 1) * pat_stride + pat_bytes_per + sizeof(U) - 1) / sizeof(U);
	}
	vec_operand(src0, es, api, "src0", loc);
	if (pattern)
		vec_operand(*pattern, ep, api, "src1Pattern", loc);
	vec_operand(dst, reps ? 1 : 0, api, "dst", loc);
	const uint8_t *pat = pattern ? (const uint8_t *)pattern->data_ : nullptr;
	auto bit = [&](uint32_t r, uint64_t k) ASCENDSIM_NOCOV {
		if (!pat)
			return builtin_pattern_bit(builtin, k);
		return ((pat[r * pat_stride + k / 8] >> (k % 8)) & 1) != 0;
	};
	uint64_t kept = 0;
	for (uint32_t r = 0; r < reps; r++)
		for (uint64_t k = 0; k < per; k++)
			kept += bit(r, k);
	ub_check(dst, kept, api, "dst", loc);
	instr rec = vec_record(api, dtype_of<T>::code, reps * per, reduceMode ? (reps * per * sizeof(T) + 255) / 256 : reps,
			       loc);
	rec.counter_mode = reduceMode;
	rec.blk_stride[1] = (uint16_t)blk;
	rec.rep_stride[1] = (uint16_t)rep;
	rec.rep_stride[2] = p.src1RepeatStride;
	rec.dst = span_of(dst, kept);
	rec.src[0] = span_of(src0, es);
	if (pattern)
		rec.src[1] = span_of(*pattern, ep);
	issue(rec);
	bool overlap = spans_meet(rec.dst, rec.src[0]) || spans_meet(rec.dst, rec.src[1]);
	uint32_t d0 = ub_offset(dst.data_);
	uint64_t out = 0;
	std::vector<T> buf;
	for (uint32_t r = 0; r < reps; r++) {
		buf.clear();
		for (uint64_t k = 0; k < per; k++) {
			if (overlap && pat && out) {
				uint32_t pa = ub_offset(pat + r * pat_stride + k / 8);
				if (pa >= d0 && pa < d0 + out * sizeof(T))
					repeat_dependency(api, r, pa, loc);
			}
			if (!bit(r, k))
				continue;
			const T *s = src0.data_ + src_index(r, k);
			if (overlap && out) {
				uint32_t sa = ub_offset(s);
				if (sa >= d0 && sa < d0 + out * sizeof(T))
					repeat_dependency(api, r, sa, loc);
			}
			buf.push_back(*s);
		}
		std::memcpy(dst.data_ + out, buf.data(), buf.size() * sizeof(T));
		out += buf.size();
	}
	rsvdCnt = kept;
	// Documented: the API leaves the vector unit in normal mask mode.
	g_core->counter_mode = false;
}

template <class T, class U> ASCENDSIM_NOCOV constexpr bool gather_mask_types()
{
	return (is_one_of<T, int16_t, uint16_t, half, bfloat16_t>::value && std::is_same<U, uint16_t>::value) ||
	       (is_one_of<T, int32_t, uint32_t, float>::value && std::is_same<U, uint32_t>::value);
}

} // namespace ascendsim

namespace AscendC {

template <class T, class U, GatherMaskMode mode = defaultGatherMaskMode>
ASCENDSIM_NOCOV inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<U> &src1Pattern,
				       const bool reduceMode, const uint32_t mask, const GatherMaskParams &gatherMaskParams,
				       uint64_t &rsvdCnt, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::gather_mask_types<T, U>(),
		      "GatherMask supports int16_t, uint16_t, half and bfloat16_t with a uint16_t pattern, and int32_t, "
		      "uint32_t and float with a uint32_t pattern");
	ascendsim::gather_mask_run(dst, src0, &src1Pattern, 0, reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
}

template <class T, GatherMaskMode mode = defaultGatherMaskMode>
ASCENDSIM_NOCOV inline void GatherMask(const LocalTensor<T> &dst, const LocalTensor<T> &src0, const uint8_t src1Pattern,
				       const bool reduceMode, const uint32_t mask, const GatherMaskParams &gatherMaskParams,
				       uint64_t &rsvdCnt, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>::value,
		      "GatherMask supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	using U = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
	ascendsim::gather_mask_run<T, U>(dst, src0, nullptr, src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt, loc);
}

// ---- Brcb --------------------------------------------------------------------------------------

// Repeat r reads src[8r .. 8r+8) and fills dst block j (at r*dstRepStride +
// j*dstBlkStride blocks) with src[8r+j].  dstBlkStride 0 is documented as
// unsupported: an invalid_argument violation, then treated as 1 (the
// documented pseudo-code's reading) where the manifest permits it.
template <class T>
ASCENDSIM_NOCOV inline void Brcb(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint8_t repeatTime,
				 const BrcbRepeatParams &repeatParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>::value,
		      "Brcb supports int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t and float");
	const char *api = "Brcb";
	constexpr uint32_t epb = 32 / sizeof(T);
	uint32_t blk = repeatParams.dstBlkStride, rep = repeatParams.dstRepStride;
	if (blk == 0) {
		ascendsim::violation("invalid_argument", loc, "Brcb: dstBlkStride 0 is not supported");
		blk = 1;
	}
	uint32_t reps = repeatTime;
	uint64_t ed = reps ? ((uint64_t)(reps - 1) * rep + 7ULL * blk + 1) * epb : 0;
	if (reps >= 2)
		ed = std::max<uint64_t>(ed, ((uint64_t)(reps - 2) * rep + 7ULL * blk + 1) * epb);
	ascendsim::vec_operand(dst, ed, api, "dst", loc);
	ascendsim::vec_operand(src, (uint64_t)reps * 8, api, "src", loc);
	ascendsim::instr r = ascendsim::vec_record(api, ascendsim::dtype_of<T>::code, (uint64_t)reps * 8 * epb, reps, loc);
	r.blk_stride[0] = (uint16_t)blk;
	r.rep_stride[0] = (uint16_t)rep;
	r.dst = ascendsim::span_of(dst, ed);
	r.src[0] = ascendsim::span_of(src, (uint64_t)reps * 8);
	ascendsim::issue(r);
	bool overlap = ascendsim::spans_meet(r.dst, r.src[0]);
	ascendsim::written_map wm;
	if (overlap)
		wm.init(r.dst);
	for (uint32_t rr = 0; rr < reps; rr++) {
		T v[8];
		for (uint32_t j = 0; j < 8; j++) {
			const T *s = src.data_ + (size_t)rr * 8 + j;
			if (overlap && wm.hit(ascendsim::ub_offset(s), sizeof(T)))
				ascendsim::repeat_dependency(api, rr, ascendsim::ub_offset(s), loc);
			v[j] = *s;
		}
		for (uint32_t j = 0; j < 8; j++) {
			T *d = dst.data_ + ((size_t)rr * rep + (size_t)j * blk) * epb;
			for (uint32_t e = 0; e < epb; e++)
				d[e] = v[j];
			if (overlap)
				wm.mark(ascendsim::ub_offset(d), 32);
		}
	}
}

// ---- CreateVecIndex ---------------------------------------------------------------------------

// dst[i] = firstValue + i, rounded to T once (half: computed in float).
// In the mask forms lane k of repeat r gets firstValue + r*lanes + k: the
// index counts the lanes an instruction walks, not where they land (the
// docs show only contiguous strides, where the two agree).
} // namespace AscendC

namespace ascendsim {

template <class T> ASCENDSIM_NOCOV inline T index_value(T first, uint64_t i)
{
	if constexpr (std::is_same<T, half>::value)
		return num<half>::store(num<half>::load(first) + (float)i);
	else if constexpr (std::is_same<T, float>::value)
		return first + (float)i;
	else
		return (T)(typename std::make_unsigned<T>::type)((uint64_t)(int64_t)first + i);
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void CreateVecIndex(LocalTensor<T> dst, const T &firstValue, uint32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, half, int32_t, float>::value,
		      "CreateVecIndex supports int16_t, half, int32_t and float");
	ascendsim::vec_operand(dst, count, "CreateVecIndex", "dst", loc);
	ascendsim::instr r = ascendsim::vec_record("CreateVecIndex", ascendsim::dtype_of<T>::code, count,
						   ascendsim::count_repeats<T>(count), loc);
	r.dst = ascendsim::span_of(dst, count);
	ascendsim::issue(r);
	for (uint32_t i = 0; i < count; i++)
		dst.data_[i] = ascendsim::index_value(firstValue, i);
}

} // namespace AscendC

namespace ascendsim {

template <class T>
ASCENDSIM_NOCOV inline void vec_index_mask(const AscendC::LocalTensor<T> &dst, T first, const uint64_t *bits, uint64_t mask,
					   int32_t repeat, uint16_t blk, uint8_t rep, srcloc loc)
{
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T);
	lane_plan lp = plan_lanes(lanes, true, bits, mask, repeat, "CreateVecIndex", loc);
	uint64_t ed = lane_extent(lp, epb, blk, rep);
	vec_operand(dst, ed, "CreateVecIndex", "dst", loc);
	instr r = vec_record("CreateVecIndex", dtype_of<T>::code, 0, 0, loc);
	mask_record<T>(r, lp);
	r.blk_stride[0] = blk;
	r.rep_stride[0] = rep;
	r.dst = span_of(dst, ed);
	issue(r);
	for (uint32_t rr = 0; rr < lp.repeats; rr++)
		for (uint32_t k = 0; k < lanes; k++)
			if (lane_on(lp, rr, k))
				dst.data_[lane_offset(rr, k, epb, blk, rep)] = index_value(first, (uint64_t)rr * lanes + k);
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void CreateVecIndex(LocalTensor<T> &dst, const T &firstValue, uint64_t mask[], uint8_t repeatTime,
					   uint16_t dstBlkStride, uint8_t dstRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, half, int32_t, float>::value,
		      "CreateVecIndex supports int16_t, half, int32_t and float");
	ascendsim::vec_index_mask(dst, firstValue, mask, 0, repeatTime, dstBlkStride, dstRepStride, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void CreateVecIndex(LocalTensor<T> &dst, const T &firstValue, uint64_t mask, uint8_t repeatTime,
					   uint16_t dstBlkStride, uint8_t dstRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, half, int32_t, float>::value,
		      "CreateVecIndex supports int16_t, half, int32_t and float");
	ascendsim::vec_index_mask(dst, firstValue, nullptr, mask, repeatTime, dstBlkStride, dstRepStride, loc);
}

} // namespace AscendC

namespace ascendsim {

// ---- ArithProgression / Arange --------------------------------------------------------------

// The library API's documented algorithm ("Arange", high-level API docs):
// the first block (32 bytes of T) by scalar writes, first + diff*i; then
// each further block of the first repeat is the block before plus 8 blocks'
// step; then each further 256-byte repeat is the repeat before plus one
// repeat's step.  Adds round to T at each step, so half progressions drift
// as on hardware.  Past the first block it writes whole blocks: up to
// `count` rounded up to 32 bytes.  Timing: one V record whose repeats are
// the dependent Adds (each costs about a full head, op class
// "ArithProgression"), its head scaled for the scalar fill and S->V flag.
template <class T> ASCENDSIM_NOCOV inline T arith_step(T diff, int64_t n)
{
	if constexpr (std::is_integral<T>::value)
		return (T)(typename std::make_unsigned<T>::type)(uint64_t)((int64_t)diff * n);
	else
		return num<T>::store(num<T>::load(diff) * (float)n);
}

template <class T> ASCENDSIM_NOCOV inline T arith_add(T a, T b)
{
	return num<T>::store(num<T>::load(a) + num<T>::load(b));
}

template <class T>
ASCENDSIM_NOCOV inline void arith_progression(const char *api, const AscendC::LocalTensor<T> &dst, T first, T diff,
					      int32_t count, srcloc loc)
{
	constexpr int64_t blk = 32 / sizeof(T), lanes = 256 / sizeof(T);
	if (count <= 0)
		fail("invalid_argument", loc, "%s: count %d must be positive", api, (int)count);
	if (num<T>::load(diff) < 0)
		violation("invalid_argument", loc, "%s: diffValue must not be negative", api);
	int64_t n = count, written, adds;
	if (n <= blk) {
		written = n;
		adds = 0;
	} else if (n <= lanes) {
		written = (n + blk - 1) / blk * blk;
		adds = written / blk - 1;
	} else {
		int64_t tail = n % lanes;
		written = n / lanes * lanes + (tail + blk - 1) / blk * blk;
		adds = 7 + (n - 1) / lanes;
	}
	ub_check(dst, (uint64_t)written, api, "dst", loc);
	if (n > blk)
		ub_check_aligned(dst, api, "dst", "misaligned_operand", loc);
	instr r = vec_record(api, dtype_of<T>::code, (uint64_t)written, (uint64_t)(adds ? adds : 1), loc);
	r.dst = span_of(dst, (uint64_t)written);
	if (adds)
		r.src[0] = span_of(dst, (uint64_t)(written - blk)); /* each step reads an earlier block */
	issue(r);
	T *d = dst.data_;
	int64_t base = n < blk ? n : blk;
	for (int64_t i = 0; i < base; i++) {
		if constexpr (std::is_integral<T>::value)
			d[i] = (T)(typename std::make_unsigned<T>::type)(uint64_t)((int64_t)first + (int64_t)diff * i);
		else if constexpr (std::is_same<T, half>::value)
			d[i] = num<half>::store(num<half>::load(first) + num<half>::load(diff) * (float)i);
		else
			d[i] = first + diff * (float)i;
	}
	if (n <= blk)
		return;
	int64_t first_rep = written < lanes ? written : lanes;
	T sb = arith_step(diff, blk);
	for (int64_t i = blk; i < first_rep; i++)
		d[i] = arith_add(d[i - blk], sb);
	T sr = arith_step(diff, lanes);
	for (int64_t i = lanes; i < written; i++)
		d[i] = arith_add(d[i - lanes], sr);
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void ArithProgression(const LocalTensor<T> &dstLocal, const T firstValue, const T diffValue,
					     const int32_t count, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, half, int32_t, float>::value,
		      "ArithProgression supports int16_t, half, int32_t and float");
	ascendsim::arith_progression("ArithProgression", dstLocal, firstValue, diffValue, count, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void Arange(const LocalTensor<T> &dst, const T firstValue, const T diffValue, const int32_t count,
				   ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, half, int32_t, float>::value,
		      "Arange supports int16_t, half, int32_t and float");
	ascendsim::arith_progression("ArithProgression", dst, firstValue, diffValue, count, loc);
}

} // namespace AscendC

namespace ascendsim {

// ---- PairReduceSum ---------------------------------------------------------------------------

// Lanes 2p and 2p+1 of a repeat sum into output p of that repeat (rounded
// to T); dstRepStride counts one repeat's output (128 bytes).  A pair with
// both lanes masked off leaves its output untouched (documented for A2); a
// pair with one lane on stores that lane's value unchanged.
template <class T, bool isSetMask>
ASCENDSIM_NOCOV inline void pair_reduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, int32_t repeat,
					const uint64_t *bits, uint64_t mask, int32_t dstRepStride, int32_t srcBlkStride,
					int32_t srcRepStride, srcloc loc)
{
	const char *api = "PairReduceSum";
	constexpr uint32_t epb = 32 / sizeof(T), lanes = 256 / sizeof(T), half_lanes = lanes / 2;
	if (dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0)
		fail("invalid_argument", loc, "PairReduceSum: strides %d/%d/%d must not be negative", dstRepStride,
		     srcBlkStride, srcRepStride);
	lane_plan lp = plan_lanes(lanes, isSetMask, bits, mask, repeat, api, loc);
	uint64_t es = lane_extent(lp, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride);
	uint64_t ed = lp.repeats ? (uint64_t)(lp.repeats - 1) * (uint32_t)dstRepStride * half_lanes + half_lanes : 0;
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
	bool overlap = spans_meet(r.dst, r.src[0]);
	written_map wm;
	if (overlap)
		wm.init(r.dst);
	for (uint32_t rr = 0; rr < lp.repeats; rr++) {
		T out[half_lanes];
		bool on[half_lanes];
		for (uint32_t q = 0; q < half_lanes; q++) {
			bool a = lane_on(lp, rr, 2 * q), b = lane_on(lp, rr, 2 * q + 1);
			on[q] = a || b;
			if (!on[q])
				continue;
			const T *pa = src.data_ + lane_offset(rr, 2 * q, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride);
			const T *pb = src.data_ + lane_offset(rr, 2 * q + 1, epb, (uint32_t)srcBlkStride, (uint32_t)srcRepStride);
			if (overlap) {
				if (a && wm.hit(ub_offset(pa), sizeof(T)))
					repeat_dependency(api, rr, ub_offset(pa), loc);
				if (b && wm.hit(ub_offset(pb), sizeof(T)))
					repeat_dependency(api, rr, ub_offset(pb), loc);
			}
			out[q] = a && b ? num<T>::store(num<T>::load(*pa) + num<T>::load(*pb)) : (a ? *pa : *pb);
		}
		for (uint32_t q = 0; q < half_lanes; q++)
			if (on[q]) {
				T *d = dst.data_ + (size_t)rr * (uint32_t)dstRepStride * half_lanes + q;
				*d = out[q];
				if (overlap)
					wm.mark(ub_offset(d), sizeof(T));
			}
	}
}

} // namespace ascendsim

namespace AscendC {

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
					  const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
					  const int32_t srcRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "PairReduceSum supports half and float");
	ascendsim::pair_reduce<T, isSetMask>(dst, src, repeatTime, mask, 0, dstRepStride, srcBlkStride, srcRepStride, loc);
}

template <class T, bool isSetMask = true>
ASCENDSIM_NOCOV inline void PairReduceSum(const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t repeatTime,
					  const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
					  const int32_t srcRepStride, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, half, float>::value, "PairReduceSum supports half and float");
	if (isSetMask && mask < 0)
		ascendsim::fail("invalid_argument", loc, "PairReduceSum: mask %d is negative", (int)mask);
	ascendsim::pair_reduce<T, isSetMask>(dst, src, repeatTime, nullptr, (uint64_t)(uint32_t)mask, dstRepStride,
					     srcBlkStride, srcRepStride, loc);
}

} // namespace AscendC

namespace ascendsim {

// ---- TransDataTo5HD ---------------------------------------------------------------------------

// One repeat reads 16 source blocks (32 bytes at each srcList address) and
// writes 16 destination blocks (CCE scatter_vnchwconv):
//   b16: dst[e][k] = src[k][e]                    e, k in 0..15
//   b32: dst[2j][k] = src[k][j], dst[2j+1][k] = src[k+8][j]   j, k in 0..7
//   b8:  dst[e][k + 16*dstHighHalf] = src[k][e + 16*srcHighHalf]   e, k in 0..15
//        (the other half of each destination block is left as it was)
// Repeat r moves every address by r*RepStride blocks, except that with
// repeatTimes == 1 the single repeat is already moved by one RepStride
// (documented, hence the usual dstRepStride = srcRepStride = 0 for one).
// Addresses are UB byte offsets as GetPhyAddr returns them.
template <class T>
ASCENDSIM_NOCOV inline void trans_5hd(const uint32_t dst_addr[16], const uint32_t src_addr[16],
				      const AscendC::TransDataTo5HDParams &p, srcloc loc)
{
	const char *api = "TransDataTo5HD";
	uint32_t reps = p.repeatTimes;
	uint32_t ub = g_core->ub_bytes;
	auto moved = [&](uint32_t r, uint16_t stride) ASCENDSIM_NOCOV {
		return (uint64_t)(reps == 1 ? 1 : r) * stride * 32;
	};
	uint64_t dlo = ~0ULL, dhi = 0, slo = ~0ULL, shi = 0;
	for (int i = 0; i < 16; i++) {
		if (dst_addr[i] % 32)
			fail("misaligned_operand", loc, "TransDataTo5HD: dstList[%d] = UB 0x%x is not 32-byte aligned", i,
			     dst_addr[i]);
		if (src_addr[i] % 32)
			fail("misaligned_operand", loc, "TransDataTo5HD: srcList[%d] = UB 0x%x is not 32-byte aligned", i,
			     src_addr[i]);
		if (reps == 0)
			continue;
		uint64_t d_last = dst_addr[i] + moved(reps - 1, p.dstRepStride) + 32;
		uint64_t s_last = src_addr[i] + moved(reps - 1, p.srcRepStride) + 32;
		if (d_last > ub)
			fail("out_of_bounds", loc,
			     "TransDataTo5HD: dstList[%d] = UB 0x%x with %u repeats of stride %u blocks ends at 0x%llx, past "
			     "the %u-byte UB",
			     i, dst_addr[i], reps, p.dstRepStride, (unsigned long long)d_last, ub);
		if (s_last > ub)
			fail("out_of_bounds", loc,
			     "TransDataTo5HD: srcList[%d] = UB 0x%x with %u repeats of stride %u blocks ends at 0x%llx, past "
			     "the %u-byte UB",
			     i, src_addr[i], reps, p.srcRepStride, (unsigned long long)s_last, ub);
		dlo = std::min<uint64_t>(dlo, dst_addr[i] + moved(0, p.dstRepStride));
		dhi = std::max<uint64_t>(dhi, d_last);
		slo = std::min<uint64_t>(slo, src_addr[i] + moved(0, p.srcRepStride));
		shi = std::max<uint64_t>(shi, s_last);
	}
	instr r = vec_record(api, dtype_of<T>::code, (uint64_t)reps * 256, reps, loc);
	r.rep_stride[0] = p.dstRepStride;
	r.rep_stride[1] = p.srcRepStride;
	// Spans are the hulls of the 16 lists: conservative for hazards.
	if (reps) {
		r.dst = ub_span{(uint32_t)dlo, (uint32_t)dhi};
		r.src[0] = ub_span{(uint32_t)slo, (uint32_t)shi};
	}
	issue(r);
	uint8_t *u = g_core->ub;
	bool overlap = spans_meet(r.dst, r.src[0]);
	written_map wm;
	if (overlap)
		wm.init(r.dst);
	for (uint32_t rr = 0; rr < reps; rr++) {
		uint8_t in[16][32];
		for (int k = 0; k < 16; k++) {
			uint64_t a = src_addr[k] + moved(rr, p.srcRepStride);
			if (overlap && wm.hit((uint32_t)a, 32))
				repeat_dependency(api, rr, (uint32_t)a, loc);
			std::memcpy(in[k], u + a, 32);
		}
		for (int e = 0; e < 16; e++) {
			uint8_t *d = u + dst_addr[e] + moved(rr, p.dstRepStride);
			if (overlap) /* b8 writes one half of the block */
				wm.mark((uint32_t)(d - u) + (sizeof(T) == 1 && p.dstHighHalf ? 16 : 0), sizeof(T) == 1 ? 16 : 32);
			if constexpr (sizeof(T) == 2) {
				for (int k = 0; k < 16; k++)
					std::memcpy(d + 2 * k, in[k] + 2 * e, 2);
			} else if constexpr (sizeof(T) == 4) {
				int j = e / 2, k0 = (e % 2) * 8;
				for (int k = 0; k < 8; k++)
					std::memcpy(d + 4 * k, in[k0 + k] + 4 * j, 4);
			} else {
				int dh = p.dstHighHalf ? 16 : 0, sh = p.srcHighHalf ? 16 : 0;
				for (int k = 0; k < 16; k++)
					d[k + dh] = in[k][e + sh];
			}
		}
	}
}

template <class T> struct trans5hd_types {
	static constexpr bool ok = is_one_of<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>::value;
};

ASCENDSIM_NOCOV inline uint32_t list_addr(uint64_t a, const char *which, int i, srcloc loc)
{
	if (a >= g_core->ub_bytes)
		fail("out_of_bounds", loc, "TransDataTo5HD: %s[%d] = 0x%llx is not a UB address (GetPhyAddr of a LocalTensor)",
		     which, i, (unsigned long long)a);
	return (uint32_t)a;
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
					   const TransDataTo5HDParams &nchwconvParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::trans5hd_types<T>::ok,
		      "TransDataTo5HD supports int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t and float");
	uint32_t d[16], s[16];
	for (int i = 0; i < 16; i++) {
		d[i] = ascendsim::list_addr(dstList[i], "dstList", i, loc);
		s[i] = ascendsim::list_addr(srcList[i], "srcList", i, loc);
	}
	ascendsim::trans_5hd<T>(d, s, nchwconvParams, loc);
}

// The address lists held in UB: 16 uint64 addresses each.
template <class T>
ASCENDSIM_NOCOV inline void TransDataTo5HD(const LocalTensor<uint64_t> &dst, const LocalTensor<uint64_t> &src,
					   const TransDataTo5HDParams &nchwconvParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::trans5hd_types<T>::ok,
		      "TransDataTo5HD supports int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t and float");
	ascendsim::vec_operand(dst, 16, "TransDataTo5HD", "dst (address list)", loc);
	ascendsim::vec_operand(src, 16, "TransDataTo5HD", "src (address list)", loc);
	uint32_t d[16], s[16];
	for (int i = 0; i < 16; i++) {
		d[i] = ascendsim::list_addr(dst.data_[i], "dst", i, loc);
		s[i] = ascendsim::list_addr(src.data_[i], "src", i, loc);
	}
	ascendsim::trans_5hd<T>(d, s, nchwconvParams, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
					   const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
					   const TransDataTo5HDParams &nchwconvParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::trans5hd_types<T>::ok,
		      "TransDataTo5HD supports int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t and float");
	uint32_t d[16], s[16];
	uint32_t reps = nchwconvParams.repeatTimes;
	uint64_t dmove = (uint64_t)(reps == 1 ? 1 : (reps ? reps - 1 : 0)) * nchwconvParams.dstRepStride * 32 + 32;
	uint64_t smove = (uint64_t)(reps == 1 ? 1 : (reps ? reps - 1 : 0)) * nchwconvParams.srcRepStride * 32 + 32;
	for (int i = 0; i < 16; i++) {
		if (reps) {
			ascendsim::ub_check(dstList[i], dmove / sizeof(T), "TransDataTo5HD", "dstList[i]", loc);
			ascendsim::ub_check(srcList[i], smove / sizeof(T), "TransDataTo5HD", "srcList[i]", loc);
		}
		d[i] = ascendsim::ub_offset(dstList[i].data_);
		s[i] = ascendsim::ub_offset(srcList[i].data_);
	}
	ascendsim::trans_5hd<T>(d, s, nchwconvParams, loc);
}

// ---- Transpose ----------------------------------------------------------------------------------

// The basic form: one 16x16 matrix of 2-byte elements, dst[i][j] = src[j][i].
template <class T>
ASCENDSIM_NOCOV inline void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int16_t, uint16_t, half>::value,
		      "Transpose (16x16) supports int16_t, uint16_t and half");
	ascendsim::vec_operand(dst, 256, "Transpose", "dst", loc);
	ascendsim::vec_operand(src, 256, "Transpose", "src", loc);
	ascendsim::instr r = ascendsim::vec_record("Transpose", ascendsim::dtype_of<T>::code, 256, 2, loc);
	r.dst = ascendsim::span_of(dst, 256);
	r.src[0] = ascendsim::span_of(src, 256);
	ascendsim::issue(r);
	T m[256];
	std::memcpy(m, src.data_, sizeof m);
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			dst.data_[i * 16 + j] = m[j * 16 + i];
}

// The enhanced form.  TRANSPOSE_ND2ND_B16 is the 16x16 transpose (uint16_t
// only on A2, src and dst may be the same); TRANSPOSE_NCHW2NHWC and
// TRANSPOSE_NHWC2NCHW permute [N,C,H,W] <-> [N,H,W,C] through
// sharedTmpBuffer, whose documented minimum is checked; TRANSPOSE_TYPE_NONE
// does nothing; the other types are documented as not supported.  Timing:
// one V record of two passes over the data in 512-byte repeats (it is built
// from TransDataTo5HD), op class "Transpose".
template <class T>
ASCENDSIM_NOCOV inline void Transpose(const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint8_t> &sharedTmpBuffer,
				      const TransposeParamsExt &transposeParams, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>::value,
		      "Transpose supports int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t and float");
	const char *api = "Transpose";
	const TransposeParamsExt &p = transposeParams;
	switch (p.transposeType) {
	case TransposeType::TRANSPOSE_TYPE_NONE:
		return;
	case TransposeType::TRANSPOSE_ND2ND_B16:
		if constexpr (std::is_same<T, uint16_t>::value)
			Transpose(dst, src, loc);
		else
			ascendsim::fail("invalid_argument", loc, "Transpose: TRANSPOSE_ND2ND_B16 takes uint16_t on Atlas A2");
		return;
	case TransposeType::TRANSPOSE_NCHW2NHWC:
	case TransposeType::TRANSPOSE_NHWC2NCHW:
		break;
	default:
		ascendsim::fail("invalid_argument", loc, "Transpose: transposeType %d is documented as not supported",
				(int)p.transposeType);
	}
	bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
	uint64_t N = p.nSize, C = p.cSize, HW = (uint64_t)p.hSize * p.wSize;
	if (C > 4095 || HW > 4095)
		ascendsim::fail("invalid_argument", loc, "Transpose: cSize %llu and hSize*wSize %llu must be at most 4095",
				(unsigned long long)C, (unsigned long long)HW);
	if (HW * sizeof(T) % 32 != 0)
		ascendsim::fail("invalid_argument", loc, "Transpose: hSize*wSize*sizeof(T) = %llu is not a multiple of 32",
				(unsigned long long)(HW * sizeof(T)));
	uint64_t n = N * C * HW;
	if (n == 0)
		return;
	uint64_t h0 = sizeof(T) == 1 ? 32 : 16, w0 = 32 / sizeof(T);
	uint64_t tmp = (to_nhwc ? C + 2 : 2 * C + 1) * h0 * w0 * sizeof(T);
	ascendsim::vec_operand(dst, n, api, "dst", loc);
	ascendsim::vec_operand(src, n, api, "src", loc);
	ascendsim::vec_operand(sharedTmpBuffer, tmp, api, "sharedTmpBuffer", loc);
	ascendsim::instr r = ascendsim::vec_record(api, ascendsim::dtype_of<T>::code, n, 2 * ((n * sizeof(T) + 511) / 512), loc);
	r.dst = ascendsim::span_of(dst, n);
	r.src[0] = ascendsim::span_of(src, n);
	r.src[1] = ascendsim::span_of(sharedTmpBuffer, tmp);
	if (ascendsim::spans_meet(r.dst, r.src[0]))
		ascendsim::fail("invalid_argument", loc, "Transpose: NCHW<->NHWC needs src and dst apart (UB 0x%x and 0x%x)",
				r.src[0].begin, r.dst.begin);
	ascendsim::issue(r);
	for (uint64_t b = 0; b < N; b++)
		for (uint64_t c = 0; c < C; c++)
			for (uint64_t s = 0; s < HW; s++) {
				uint64_t nchw = (b * C + c) * HW + s, nhwc = (b * HW + s) * C + c;
				if (to_nhwc)
					dst.data_[nhwc] = src.data_[nchw];
				else
					dst.data_[nchw] = src.data_[nhwc];
			}
}

} // namespace AscendC

namespace ascendsim {

// ---- BroadCast / Broadcast ------------------------------------------------------------------

// The library broadcast (high-level API "Broadcast", spelled BroadCast by
// older code): dim 1 or 2, axis 0 or 1; srcShape[axis] is 1 (or equal to
// dstShape[axis], a plain copy), the other dimension agrees.  dst is dense
// [dstShape]; with dim 2 and axis 0 srcShape[1] must be a whole number of
// 32-byte blocks (documented).  Source and destination must be apart.
// Timing: one V record of two passes over dst (Brcb then Copy, plus the
// GatherMask the docs add for unaligned rows), in 256-byte repeats.
template <class T, int32_t dim, int32_t axis>
ASCENDSIM_NOCOV inline void broadcast_run(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, const uint32_t *dshape,
					  const uint32_t *sshape, const AscendC::LocalTensor<uint8_t> *tmp, srcloc loc)
{
	static_assert(dim == 1 || dim == 2, "BroadCast supports dim 1 and 2");
	static_assert(axis == 0 || axis == 1, "BroadCast supports axis 0 and 1");
	static_assert(axis < dim, "BroadCast: axis must name one of the dim dimensions");
	const char *api = "BroadCast";
	uint32_t rows = dim == 2 ? dshape[0] : 1, cols = dim == 2 ? dshape[1] : dshape[0];
	uint32_t srows = dim == 2 ? sshape[0] : 1, scols = dim == 2 ? sshape[1] : sshape[0];
	bool bad = false;
	if (dim == 1)
		bad = scols != 1 && scols != cols;
	else if (axis == 0)
		bad = (srows != 1 && srows != rows) || scols != cols;
	else
		bad = (scols != 1 && scols != cols) || srows != rows;
	if (bad)
		fail("invalid_argument", loc, "%s: srcShape [%u, %u] does not broadcast to dstShape [%u, %u] along axis %d", api,
		     srows, scols, rows, cols, (int)axis);
	if (dim == 2 && axis == 0 && ((uint64_t)scols * sizeof(T)) % 32 != 0)
		fail("invalid_argument", loc, "%s: with dim 2 and axis 0 srcShape[1] = %u must fill whole 32-byte blocks", api,
		     scols);
	uint64_t nd = (uint64_t)rows * cols, ns = (uint64_t)srows * scols;
	vec_operand(dst, nd, api, "dst", loc);
	vec_operand(src, ns, api, "src", loc);
	if (tmp)
		vec_operand(*tmp, 1, api, "sharedTmpBuffer", loc);
	instr r = vec_record(api, dtype_of<T>::code, nd, 2 * ((nd * sizeof(T) + 255) / 256), loc);
	r.dst = span_of(dst, nd);
	r.src[0] = span_of(src, ns);
	if (tmp)
		r.src[1] = span_of(*tmp, 1);
	if (spans_meet(r.dst, r.src[0]))
		fail("invalid_argument", loc, "%s: src (UB 0x%x) and dst (UB 0x%x) overlap", api, r.src[0].begin, r.dst.begin);
	issue(r);
	for (uint32_t i = 0; i < rows; i++)
		for (uint32_t j = 0; j < cols; j++)
			dst.data_[(size_t)i * cols + j] =
			    src.data_[(size_t)(srows == 1 ? 0 : i) * scols + (scols == 1 ? 0 : j)];
}

template <class T> struct broadcast_types {
	static constexpr bool ok = is_one_of<T, int8_t, uint8_t, half, float>::value;
};

} // namespace ascendsim

namespace AscendC {

template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
ASCENDSIM_NOCOV inline void BroadCast(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim],
				      const uint32_t srcShape[dim], LocalTensor<uint8_t> &sharedTmpBuffer, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::broadcast_types<T>::ok, "BroadCast supports int8_t, uint8_t, half and float");
	ascendsim::broadcast_run<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer, loc);
}

template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
ASCENDSIM_NOCOV inline void BroadCast(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim],
				      const uint32_t srcShape[dim], ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::broadcast_types<T>::ok, "BroadCast supports int8_t, uint8_t, half and float");
	ascendsim::broadcast_run<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr, loc);
}

template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
ASCENDSIM_NOCOV inline void Broadcast(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim],
				      const uint32_t srcShape[dim], LocalTensor<uint8_t> &sharedTmpBuffer, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::broadcast_types<T>::ok, "Broadcast supports int8_t, uint8_t, half and float");
	ascendsim::broadcast_run<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, &sharedTmpBuffer, loc);
}

template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
ASCENDSIM_NOCOV inline void Broadcast(const LocalTensor<T> &dstLocal, const LocalTensor<T> &srcLocal, const uint32_t dstShape[dim],
				      const uint32_t srcShape[dim], ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::broadcast_types<T>::ok, "Broadcast supports int8_t, uint8_t, half and float");
	ascendsim::broadcast_run<T, dim, axis>(dstLocal, srcLocal, dstShape, srcShape, nullptr, loc);
}

} // namespace AscendC

#endif
