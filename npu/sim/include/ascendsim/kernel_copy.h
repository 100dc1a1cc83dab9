// SPDX-License-Identifier: MIT
//
// Data movement: DataCopy (count and DataCopyParams forms, GM<->UB and
// UB->UB), DataCopyPad (ext and plain params, with padding), atomic
// accumulation on UB->GM copies, and InitGlobalMemory.  Strict where the
// hardware silently misbehaves: byte counts must be whole 32-byte blocks and
// UB operands 32-byte aligned.
#ifndef ASCENDSIM_KERNEL_COPY_H
#define ASCENDSIM_KERNEL_COPY_H

#include "ascendsim/kernel_pipe.h"

namespace AscendC {

// Strides and lengths in 32-byte blocks (for DataCopyPad: blockLen in bytes,
// the GM-side stride in bytes and the UB-side stride in blocks).
struct DataCopyParams {
	uint16_t blockCount = 1;
	uint16_t blockLen = 0;
	uint16_t srcStride = 0;
	uint16_t dstStride = 0;
	DataCopyParams() = default;
	ASCENDSIM_NOCOV DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
	    : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

struct DataCopyExtParams {
	uint16_t blockCount = 1;
	uint32_t blockLen = 0;
	uint32_t srcStride = 0;
	uint32_t dstStride = 0;
	uint32_t rsv = 0;
	DataCopyExtParams() = default;
	ASCENDSIM_NOCOV DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
			  const uint32_t rsvIn)
	    : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

template <class T> struct DataCopyPadExtParams {
	bool isPad = false;
	uint8_t leftPadding = 0;
	uint8_t rightPadding = 0;
	T paddingValue = 0;
	DataCopyPadExtParams() = default;
	ASCENDSIM_NOCOV DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
	    : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

struct DataCopyPadParams {
	bool isPad = false;
	uint8_t leftPadding = 0;
	uint8_t rightPadding = 0;
	uint64_t paddingValue = 0;
	DataCopyPadParams() = default;
	ASCENDSIM_NOCOV DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
			  const uint64_t padValue)
	    : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

} // namespace AscendC

namespace ascendsim {

// Write `bytes` from UB to GM inside region `r`, honouring the core's atomic
// mode.  An atomic accumulation writes its bytes as a plain store does.
template <class T>
ASCENDSIM_NOCOV inline void gm_store(const gm_region *r, T *gm, const T *ub, uint64_t bytes, srcloc loc)
{
	core_state *c = g_core;
	gm_mark_written(r, gm, bytes);
	if (__builtin_expect(c->atomic_op == 0, 1)) {
		std::memcpy(gm, ub, bytes);
		return;
	}
	if (c->atomic_dtype != dtype_of<T>::code)
		fail("invalid_argument", loc, "atomic mode is set for %s but the copy moves %s", dtype_name(c->atomic_dtype),
		     dtype_name(dtype_of<T>::code));
	if constexpr (std::is_same<T, half>::value || std::is_same<T, float>::value || std::is_same<T, bfloat16_t>::value ||
		      std::is_same<T, int8_t>::value || std::is_same<T, int16_t>::value ||
		      std::is_same<T, int32_t>::value) {
		uint64_t n = bytes / sizeof(T);
		for (uint64_t i = 0; i < n; i++) {
			T g, u;
			std::memcpy(&g, gm + i, sizeof(T));
			std::memcpy(&u, ub + i, sizeof(T));
			auto a = num<T>::load(g), b = num<T>::load(u);
			decltype(a) r = c->atomic_op == 1 ? a + b : c->atomic_op == 2 ? (a > b ? a : b) : (a < b ? a : b);
			T o = num<T>::store(r);
			std::memcpy(gm + i, &o, sizeof(T));
		}
	} else {
		fail("invalid_argument", loc, "atomic accumulation is not defined for %s", dtype_name(dtype_of<T>::code));
	}
}

ASCENDSIM_NOCOV inline instr copy_record(const char *name, uint8_t kind, uint8_t pipe, uint8_t dtype, srcloc loc)
{
	instr r{};
	r.name = name;
	r.loc = loc;
	r.kind = kind;
	r.pipe = pipe;
	r.dtype = dtype;
	r.event_id = -1;
	r.cache_mode = (uint8_t)AscendC::CacheMode::CACHE_MODE_NORMAL;
	return r;
}

// Count forms share this: whole 32-byte blocks, else hardware truncates.
template <class T> ASCENDSIM_NOCOV inline uint64_t copy_count_bytes(uint32_t count, const char *api, srcloc loc)
{
	uint64_t bytes = (uint64_t)count * sizeof(T);
	if (__builtin_expect(bytes % 32 != 0, 0)) {
		violation("misaligned_copy", loc,
			  "%s of %u elements x %zu bytes = %llu bytes is not a multiple of 32 bytes (hardware would copy "
			  "only %llu); use DataCopyPad for tails",
			  api, count, sizeof(T), (unsigned long long)bytes, (unsigned long long)(bytes & ~31ULL));
		bytes &= ~31ULL;
	}
	return bytes;
}

ASCENDSIM_NOCOV inline void copy_params_check(uint32_t blockCount, const char *api, srcloc loc)
{
	if (blockCount > 4095)
		fail("invalid_argument", loc, "%s: blockCount %u exceeds 4095", api, blockCount);
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count, ascendsim::srcloc loc = {})
{
	const char *api = "DataCopy(GM->UB)";
	uint64_t bytes = ascendsim::copy_count_bytes<T>(count, api, loc);
	uint64_t n = bytes / sizeof(T);
	ascendsim::ub_check(dst, n, api, "dst", loc);
	ascendsim::ub_check_aligned(dst, api, "dst", "misaligned_copy", loc);
	src.check(src.addr_, bytes, api, loc);
	ascendsim::instr r = ascendsim::copy_record("DataCopy", ascendsim::INSTR_COPY_IN, ascendsim::PIPE_ID_MTE2,
						    ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)n;
	r.bytes = bytes;
	r.gm = src.addr_;
	r.block_count = 1;
	r.block_len = (uint32_t)bytes;
	r.gm_pitch = bytes;
	r.cache_mode = src.cache_mode_;
	r.dst = ascendsim::span_of(dst, n);
	ascendsim::issue(r);
	std::memcpy(dst.data_, src.addr_, bytes);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count, ascendsim::srcloc loc = {})
{
	const char *api = "DataCopy(UB->GM)";
	uint64_t bytes = ascendsim::copy_count_bytes<T>(count, api, loc);
	uint64_t n = bytes / sizeof(T);
	ascendsim::ub_check(src, n, api, "src", loc);
	ascendsim::ub_check_aligned(src, api, "src", "misaligned_copy", loc);
	dst.check(dst.addr_, bytes, api, loc);
	ascendsim::instr r = ascendsim::copy_record("DataCopy", ascendsim::INSTR_COPY_OUT, ascendsim::PIPE_ID_MTE3,
						    ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)n;
	r.bytes = bytes;
	r.gm = dst.addr_;
	r.block_count = 1;
	r.block_len = (uint32_t)bytes;
	r.gm_pitch = bytes;
	r.cache_mode = dst.cache_mode_;
	r.src[0] = ascendsim::span_of(src, n);
	ascendsim::issue(r);
	ascendsim::gm_store(dst.region_, dst.addr_, src.data_, bytes, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count, ascendsim::srcloc loc = {})
{
	const char *api = "DataCopy(UB->UB)";
	uint64_t bytes = ascendsim::copy_count_bytes<T>(count, api, loc);
	uint64_t n = bytes / sizeof(T);
	ascendsim::ub_check(dst, n, api, "dst", loc);
	ascendsim::ub_check(src, n, api, "src", loc);
	ascendsim::ub_check_aligned(dst, api, "dst", "misaligned_copy", loc);
	ascendsim::ub_check_aligned(src, api, "src", "misaligned_copy", loc);
	ascendsim::instr r = ascendsim::copy_record("DataCopy", ascendsim::INSTR_COPY_LOCAL, ascendsim::PIPE_ID_V,
						    ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)n;
	r.bytes = bytes;
	r.dst = ascendsim::span_of(dst, n);
	r.src[0] = ascendsim::span_of(src, n);
	ascendsim::issue(r);
	std::memmove(dst.data_, src.data_, bytes);
}

// blockCount rows of blockLen 32-byte blocks; strides are gaps in blocks.
template <class T>
ASCENDSIM_NOCOV inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p,
		     ascendsim::srcloc loc = {})
{
	const char *api = "DataCopy(GM->UB, params)";
	ascendsim::copy_params_check(p.blockCount, api, loc);
	if (p.blockCount == 0 || p.blockLen == 0)
		return;
	uint64_t row = (uint64_t)p.blockLen * 32;
	uint64_t src_pitch = row + (uint64_t)p.srcStride * 32, dst_pitch = row + (uint64_t)p.dstStride * 32;
	uint64_t src_span = (p.blockCount - 1) * src_pitch + row, dst_span = (p.blockCount - 1) * dst_pitch + row;
	ascendsim::ub_check(dst, dst_span / sizeof(T), api, "dst", loc);
	ascendsim::ub_check_aligned(dst, api, "dst", "misaligned_copy", loc);
	src.check(src.addr_, src_span, api, loc);
	ascendsim::instr r = ascendsim::copy_record("DataCopy", ascendsim::INSTR_COPY_IN, ascendsim::PIPE_ID_MTE2,
						    ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)(row * p.blockCount / sizeof(T));
	r.bytes = row * p.blockCount;
	r.gm = src.addr_;
	r.block_count = p.blockCount;
	r.block_len = (uint32_t)row;
	r.gm_pitch = src_pitch;
	r.cache_mode = src.cache_mode_;
	r.blk_stride[0] = p.dstStride;
	r.blk_stride[1] = p.srcStride;
	r.dst = ascendsim::span_of(dst, dst_span / sizeof(T));
	ascendsim::issue(r);
	uint8_t *d = (uint8_t *)dst.data_;
	const uint8_t *s = (const uint8_t *)src.addr_;
	for (uint32_t i = 0; i < p.blockCount; i++)
		std::memcpy(d + i * dst_pitch, s + i * src_pitch, row);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
		     ascendsim::srcloc loc = {})
{
	const char *api = "DataCopy(UB->GM, params)";
	ascendsim::copy_params_check(p.blockCount, api, loc);
	if (p.blockCount == 0 || p.blockLen == 0)
		return;
	uint64_t row = (uint64_t)p.blockLen * 32;
	uint64_t src_pitch = row + (uint64_t)p.srcStride * 32, dst_pitch = row + (uint64_t)p.dstStride * 32;
	uint64_t src_span = (p.blockCount - 1) * src_pitch + row, dst_span = (p.blockCount - 1) * dst_pitch + row;
	ascendsim::ub_check(src, src_span / sizeof(T), api, "src", loc);
	ascendsim::ub_check_aligned(src, api, "src", "misaligned_copy", loc);
	dst.check(dst.addr_, dst_span, api, loc);
	ascendsim::instr r = ascendsim::copy_record("DataCopy", ascendsim::INSTR_COPY_OUT, ascendsim::PIPE_ID_MTE3,
						    ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)(row * p.blockCount / sizeof(T));
	r.bytes = row * p.blockCount;
	r.gm = dst.addr_;
	r.block_count = p.blockCount;
	r.block_len = (uint32_t)row;
	r.gm_pitch = dst_pitch;
	r.cache_mode = dst.cache_mode_;
	r.blk_stride[0] = p.dstStride;
	r.blk_stride[1] = p.srcStride;
	r.src[0] = ascendsim::span_of(src, src_span / sizeof(T));
	ascendsim::issue(r);
	for (uint32_t i = 0; i < p.blockCount; i++)
		ascendsim::gm_store(dst.region_, (T *)((uint8_t *)dst.addr_ + i * dst_pitch),
				    (const T *)((const uint8_t *)src.data_ + i * src_pitch), row, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
		     ascendsim::srcloc loc = {})
{
	const char *api = "DataCopy(UB->UB, params)";
	ascendsim::copy_params_check(p.blockCount, api, loc);
	if (p.blockCount == 0 || p.blockLen == 0)
		return;
	uint64_t row = (uint64_t)p.blockLen * 32;
	uint64_t src_pitch = row + (uint64_t)p.srcStride * 32, dst_pitch = row + (uint64_t)p.dstStride * 32;
	uint64_t src_span = (p.blockCount - 1) * src_pitch + row, dst_span = (p.blockCount - 1) * dst_pitch + row;
	ascendsim::ub_check(src, src_span / sizeof(T), api, "src", loc);
	ascendsim::ub_check(dst, dst_span / sizeof(T), api, "dst", loc);
	ascendsim::ub_check_aligned(src, api, "src", "misaligned_copy", loc);
	ascendsim::ub_check_aligned(dst, api, "dst", "misaligned_copy", loc);
	ascendsim::instr r = ascendsim::copy_record("DataCopy", ascendsim::INSTR_COPY_LOCAL, ascendsim::PIPE_ID_V,
						    ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)(row * p.blockCount / sizeof(T));
	r.bytes = row * p.blockCount;
	r.block_count = p.blockCount;
	r.block_len = (uint32_t)row;
	r.src[0] = ascendsim::span_of(src, src_span / sizeof(T));
	r.dst = ascendsim::span_of(dst, dst_span / sizeof(T));
	ascendsim::issue(r);
	for (uint32_t i = 0; i < p.blockCount; i++)
		std::memmove((uint8_t *)dst.data_ + i * dst_pitch, (const uint8_t *)src.data_ + i * src_pitch, row);
}

} // namespace AscendC

namespace ascendsim {

// GM -> UB with padding.  Row i reads blockLen bytes at GM + i*(blockLen +
// srcStride bytes) and lands at UB + i*(rowBytes + dstStride*32), where
// rowBytes is the 32-byte-rounded length of left pad + data + right pad.
// Pad elements take paddingValue when isPad is set, otherwise the row's
// first element.
template <class T>
ASCENDSIM_NOCOV inline void copy_pad_in(const AscendC::LocalTensor<T> &dst, const AscendC::GlobalTensor<T> &src, uint32_t blockCount,
			uint32_t blockLen, uint64_t srcStride, uint64_t dstStride, bool isPad, uint32_t left, uint32_t right,
			T padValue, srcloc loc)
{
	const char *api = "DataCopyPad(GM->UB)";
	copy_params_check(blockCount, api, loc);
	if (blockCount == 0 || blockLen == 0)
		return;
	if (blockLen > 2097151)
		fail("invalid_argument", loc, "%s: blockLen %u bytes exceeds 2097151", api, blockLen);
	if (blockLen % sizeof(T) != 0)
		fail("invalid_argument", loc, "%s: blockLen %u bytes is not a whole number of %zu-byte elements", api,
		     blockLen, sizeof(T));
	if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
		fail("invalid_argument", loc, "%s: padding of %u + %u elements exceeds 32 bytes a side", api, left, right);
	uint64_t data_bytes = blockLen + (uint64_t)(left + right) * sizeof(T);
	uint64_t row = (data_bytes + 31) & ~31ULL;
	uint64_t dst_pitch = row + dstStride * 32, src_pitch = blockLen + srcStride;
	uint64_t dst_span = (blockCount - 1) * dst_pitch + row, src_span = (blockCount - 1) * src_pitch + blockLen;
	ub_check(dst, dst_span / sizeof(T), api, "dst", loc);
	ub_check_aligned(dst, api, "dst", "misaligned_copy", loc);
	src.check(src.addr_, src_span, api, loc);
	instr r = copy_record("DataCopyPad", INSTR_COPY_IN, PIPE_ID_MTE2, dtype_of<T>::code, loc);
	r.count = (uint32_t)((uint64_t)blockLen * blockCount / sizeof(T));
	r.bytes = (uint64_t)blockLen * blockCount;
	r.gm = src.addr_;
	r.block_count = blockCount;
	r.block_len = blockLen;
	r.gm_pitch = src_pitch;
	r.cache_mode = src.cache_mode_;
	r.copy_flags = COPY_PAD;
	r.dst = span_of(dst, dst_span / sizeof(T));
	issue(r);
	uint32_t row_elems = (uint32_t)(row / sizeof(T)), n = blockLen / (uint32_t)sizeof(T);
	for (uint32_t i = 0; i < blockCount; i++) {
		T *d = (T *)((uint8_t *)dst.data_ + i * dst_pitch);
		const T *s = (const T *)((const uint8_t *)src.addr_ + i * src_pitch);
		std::memcpy(d + left, s, blockLen);
		T fill = isPad ? padValue : d[left];
		for (uint32_t k = 0; k < left; k++)
			d[k] = fill;
		for (uint32_t k = left + n; k < row_elems; k++)
			d[k] = fill;
	}
}

// UB -> GM, exact bytes.  Row i is read at UB + i*(roundup32(blockLen) +
// srcStride*32) and written at GM + i*(blockLen + dstStride bytes).
template <class T>
ASCENDSIM_NOCOV inline void copy_pad_out(const AscendC::GlobalTensor<T> &dst, const AscendC::LocalTensor<T> &src, uint32_t blockCount,
			 uint32_t blockLen, uint64_t srcStride, uint64_t dstStride, srcloc loc)
{
	const char *api = "DataCopyPad(UB->GM)";
	copy_params_check(blockCount, api, loc);
	if (blockCount == 0 || blockLen == 0)
		return;
	if (blockLen > 2097151)
		fail("invalid_argument", loc, "%s: blockLen %u bytes exceeds 2097151", api, blockLen);
	if (blockLen % sizeof(T) != 0)
		fail("invalid_argument", loc, "%s: blockLen %u bytes is not a whole number of %zu-byte elements", api,
		     blockLen, sizeof(T));
	uint64_t row = ((uint64_t)blockLen + 31) & ~31ULL;
	uint64_t src_pitch = row + srcStride * 32, dst_pitch = blockLen + dstStride;
	uint64_t src_span = (blockCount - 1) * src_pitch + blockLen, dst_span = (blockCount - 1) * dst_pitch + blockLen;
	ub_check(src, (src_span + sizeof(T) - 1) / sizeof(T), api, "src", loc);
	ub_check_aligned(src, api, "src", "misaligned_copy", loc);
	dst.check(dst.addr_, dst_span, api, loc);
	instr r = copy_record("DataCopyPad", INSTR_COPY_OUT, PIPE_ID_MTE3, dtype_of<T>::code, loc);
	r.count = (uint32_t)((uint64_t)blockLen * blockCount / sizeof(T));
	r.bytes = (uint64_t)blockLen * blockCount;
	r.gm = dst.addr_;
	r.block_count = blockCount;
	r.block_len = blockLen;
	r.gm_pitch = dst_pitch;
	r.cache_mode = dst.cache_mode_;
	r.copy_flags = COPY_PAD;
	r.src[0] = span_of(src, src_span / sizeof(T));
	issue(r);
	for (uint32_t i = 0; i < blockCount; i++)
		gm_store(dst.region_, (T *)((uint8_t *)dst.addr_ + i * dst_pitch),
			 (const T *)((const uint8_t *)src.data_ + i * src_pitch), blockLen, loc);
}

} // namespace ascendsim

namespace AscendC {

template <class T>
ASCENDSIM_NOCOV inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyExtParams &p,
			const DataCopyPadExtParams<T> &pad, ascendsim::srcloc loc = {})
{
	ascendsim::copy_pad_in(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding,
			       pad.rightPadding, pad.paddingValue, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopyPad(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const DataCopyParams &p,
			const DataCopyPadParams &pad, ascendsim::srcloc loc = {})
{
	T v;
	uint64_t raw = pad.paddingValue;
	std::memcpy(&v, &raw, sizeof(T));
	ascendsim::copy_pad_in(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding,
			       pad.rightPadding, v, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyExtParams &p,
			ascendsim::srcloc loc = {})
{
	ascendsim::copy_pad_out(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}

template <class T>
ASCENDSIM_NOCOV inline void DataCopyPad(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const DataCopyParams &p,
			ascendsim::srcloc loc = {})
{
	ascendsim::copy_pad_out(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, loc);
}

// Fill `size` elements of GM with `value` (MTE3); used to clear outputs
// before atomic accumulation.  The documented types are the 16- and 32-bit
// ones; bfloat16_t is accepted too, as a 16-bit pattern, because CANN's own
// operators clear bfloat16 outputs with it and build (cann-ops
// reflection_pad3d_grad, max_pool3d_grad_with_argmax).
template <class T>
ASCENDSIM_NOCOV inline void InitGlobalMemory(GlobalTensor<T> &gmWorkspaceAddr, const uint64_t size, const T value,
			     ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, uint16_t, int16_t, half, bfloat16_t, uint32_t, int32_t, float>::value,
		      "InitGlobalMemory supports uint16_t, int16_t, half, bfloat16_t, uint32_t, int32_t and float");
	gmWorkspaceAddr.check(gmWorkspaceAddr.addr_, size * sizeof(T), "InitGlobalMemory", loc);
	ascendsim::instr r = ascendsim::copy_record("InitGlobalMemory", ascendsim::INSTR_COPY_OUT,
						    ascendsim::PIPE_ID_MTE3, ascendsim::dtype_of<T>::code, loc);
	r.count = (uint32_t)size;
	r.bytes = size * sizeof(T);
	r.gm = gmWorkspaceAddr.addr_;
	r.block_count = 1;
	r.block_len = (uint32_t)r.bytes;
	r.gm_pitch = r.bytes;
	r.cache_mode = gmWorkspaceAddr.cache_mode_;
	ascendsim::issue(r);
	ascendsim::gm_mark_written(gmWorkspaceAddr.region_, gmWorkspaceAddr.addr_, size * sizeof(T));
	for (uint64_t i = 0; i < size; i++)
		std::memcpy(gmWorkspaceAddr.addr_ + i, &value, sizeof(T));
}

// The older name of InitGlobalMemory, with a 32-bit size and 0 by default.
template <class T>
ASCENDSIM_NOCOV inline void InitOutput(GlobalTensor<T> gmWorkspaceAddr, uint32_t size, T value = 0, ascendsim::srcloc loc = {})
{
	InitGlobalMemory(gmWorkspaceAddr, (uint64_t)size, value, loc);
}

} // namespace AscendC

#endif
