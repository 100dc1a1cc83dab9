// SPDX-License-Identifier: MIT
//
// LocalTensor (a typed view of one simulated core's UB) and GlobalTensor (a
// typed view of harness-allocated GM).  Views carry how many elements remain
// in their buffer so that every API can bounds-check what it touches.
#ifndef ASCENDSIM_KERNEL_TENSOR_H
#define ASCENDSIM_KERNEL_TENSOR_H

#include "ascendsim/kernel_base.h"

namespace AscendC {
template <class T> class LocalTensor;
}

namespace ascendsim {

// `dst = src0 OP src1` on whole tensors: the operator builds this, the
// assignment runs the instruction (ascendsim/kernel_vector.h).
enum tensor_op : uint8_t { TOP_ADD, TOP_SUB, TOP_MUL, TOP_DIV, TOP_LT, TOP_GT, TOP_LE, TOP_GE, TOP_EQ, TOP_NE };
template <class T, bool cmp> struct tensor_expr;
template <class D, class T, bool cmp> void tensor_assign(const AscendC::LocalTensor<D> &dst, const tensor_expr<T, cmp> &e);

} // namespace ascendsim

namespace AscendC {

template <class T> class LocalTensor {
public:
	using PrimType = T;

	LocalTensor() = default;
	LocalTensor(const LocalTensor &) = default;
	LocalTensor &operator=(const LocalTensor &) = default;

	// The whole-tensor operator forms (dst = src0 * src1, dst = src0 < src1).
	template <class U, bool cmp> ASCENDSIM_NOCOV LocalTensor &operator=(const ascendsim::tensor_expr<U, cmp> &e)
	{
		ascendsim::tensor_assign(*this, e);
		return *this;
	}

	// A sub-view starting `offset` elements in.  Hardware does not check this;
	// the simulator checks when the view is used.
	ASCENDSIM_NOCOV LocalTensor operator[](const uint32_t offset) const
	{
		LocalTensor t = *this;
		t.data_ = data_ + offset;
		t.size_ = offset <= size_ ? size_ - offset : 0;
		t.cap_ = offset <= cap_ ? cap_ - offset : 0;
		return t;
	}

	ASCENDSIM_NOCOV T GetValue(const uint32_t index, ascendsim::srcloc loc = {}) const
	{
		scalar_access(index, false, "LocalTensor::GetValue", loc);
		T v;
		std::memcpy(&v, data_ + index, sizeof(T));
		return v;
	}

	ASCENDSIM_NOCOV void SetValue(const uint32_t index, const T value, ascendsim::srcloc loc = {}) const
	{
		scalar_access(index, true, "LocalTensor::SetValue", loc);
		std::memcpy(data_ + index, &value, sizeof(T));
	}

	// Scalar reference access; counted as a scalar read.
	ASCENDSIM_NOCOV T &operator()(const uint32_t index, ascendsim::srcloc loc = {}) const
	{
		scalar_access(index, false, "LocalTensor::operator()", loc);
		return data_[index];
	}

	template <class U> ASCENDSIM_NOCOV LocalTensor<U> ReinterpretCast() const
	{
		LocalTensor<U> t;
		t.data_ = reinterpret_cast<U *>(data_);
		t.size_ = (uint32_t)(((uint64_t)size_ * sizeof(T)) / sizeof(U));
		t.cap_ = (uint32_t)(((uint64_t)cap_ * sizeof(T)) / sizeof(U));
		t.pos_ = pos_;
		return t;
	}

	ASCENDSIM_NOCOV uint32_t GetSize() const { return size_; }
	ASCENDSIM_NOCOV void SetSize(const uint32_t size, ascendsim::srcloc loc = {})
	{
		if (size > cap_)
			ascendsim::fail("out_of_bounds", loc,
					"LocalTensor::SetSize(%u) exceeds the %u elements left in its buffer", size, cap_);
		size_ = size;
	}
	ASCENDSIM_NOCOV uint32_t GetLength() const { return size_ * (uint32_t)sizeof(T); }
	ASCENDSIM_NOCOV uint64_t GetPhyAddr() const { return ascendsim::ub_offset(data_); }
	ASCENDSIM_NOCOV uint64_t GetPhyAddr(const uint32_t offset) const { return ascendsim::ub_offset(data_ + offset); }
	ASCENDSIM_NOCOV TPosition GetPosition() const { return (TPosition)pos_; }

	// Simulator internals, public so that the API templates can reach them.
	T *data_ = nullptr;
	uint32_t size_ = 0; /* elements from data_ to the end of the buffer (or SetSize) */
	uint32_t cap_ = 0;  /* elements from data_ to the end of the buffer */
	uint8_t pos_ = (uint8_t)TPosition::VECCALC;

	ASCENDSIM_NOCOV void scalar_access(uint32_t index, bool write, const char *api, ascendsim::srcloc loc) const
	{
		if (!data_)
			ascendsim::fail("out_of_bounds", loc, "%s on a LocalTensor that was never allocated", api);
		if (index >= size_)
			ascendsim::fail("out_of_bounds", loc, "%s index %u is past the %u elements of the tensor at UB 0x%x",
					api, index, size_, ascendsim::ub_offset(data_));
		ascendsim::instr r{};
		r.name = api;
		r.loc = loc;
		r.kind = write ? ascendsim::INSTR_SCALAR_WRITE : ascendsim::INSTR_SCALAR_READ;
		r.pipe = ascendsim::PIPE_ID_S;
		r.dtype = ascendsim::dtype_of<T>::code;
		r.count = 1;
		r.bytes = sizeof(T);
		uint32_t off = ascendsim::ub_offset(data_ + index);
		if (write)
			r.dst = {off, off + (uint32_t)sizeof(T)};
		else
			r.src[0] = {off, off + (uint32_t)sizeof(T)};
		r.event_id = -1;
		ascendsim::issue(r);
	}
};

template <class T> class GlobalTensor {
public:
	using PrimType = T;

	GlobalTensor() = default;

	ASCENDSIM_NOCOV void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize, ascendsim::srcloc loc = {})
	{
		(void)loc;
		addr_ = view_ = buffer;
		view_bytes_ = bufferSize * sizeof(T);
		size_ = bufferSize;
		region_ = ascendsim::gm_find(buffer);
	}

	// Without a size the view reaches to the end of the allocation.
	ASCENDSIM_NOCOV void SetGlobalBuffer(__gm__ T *buffer, ascendsim::srcloc loc = {})
	{
		(void)loc;
		addr_ = view_ = buffer;
		region_ = ascendsim::gm_find(buffer);
		view_bytes_ = region_ && (uint8_t *)buffer <= region_->end ? (uint64_t)(region_->end - (uint8_t *)buffer) : 0;
		size_ = view_bytes_ / sizeof(T);
	}

	ASCENDSIM_NOCOV const __gm__ T *GetPhyAddr() const { return addr_; }
	ASCENDSIM_NOCOV __gm__ T *GetPhyAddr(const uint64_t offset) const { return addr_ + offset; }
	ASCENDSIM_NOCOV uint64_t GetSize() const { return size_; }

	ASCENDSIM_NOCOV GlobalTensor operator[](const uint64_t offset) const
	{
		GlobalTensor t = *this;
		t.addr_ = addr_ + offset;
		t.size_ = offset <= size_ ? size_ - offset : 0;
		return t;
	}

	ASCENDSIM_NOCOV T GetValue(const uint64_t offset, ascendsim::srcloc loc = {}) const
	{
		scalar_access(offset, false, "GlobalTensor::GetValue", loc);
		T v;
		std::memcpy(&v, addr_ + offset, sizeof(T));
		return v;
	}

	ASCENDSIM_NOCOV void SetValue(const uint64_t offset, const T value, ascendsim::srcloc loc = {}) const
	{
		scalar_access(offset, true, "GlobalTensor::SetValue", loc);
		ascendsim::gm_mark_written(region_, addr_ + offset, sizeof(T));
		std::memcpy(addr_ + offset, &value, sizeof(T));
	}

	// A reference the kernel may read or write through: counted as a scalar
	// read, and its element as written (the shim cannot tell which).
	ASCENDSIM_NOCOV T &operator()(const uint64_t offset, ascendsim::srcloc loc = {}) const
	{
		scalar_access(offset, false, "GlobalTensor::operator()", loc);
		ascendsim::gm_mark_written(region_, addr_ + offset, sizeof(T));
		return addr_[offset];
	}

	ASCENDSIM_NOCOV void SetL2CacheHint(CacheMode mode) { cache_mode_ = (uint8_t)mode; }

	// Simulator internals.
	T *addr_ = nullptr;
	T *view_ = nullptr;
	uint64_t view_bytes_ = 0;
	uint64_t size_ = 0;
	const ascendsim::gm_region *region_ = nullptr;
	uint8_t cache_mode_ = (uint8_t)CacheMode::CACHE_MODE_NORMAL;

	ASCENDSIM_NOCOV void check(const T *addr, uint64_t bytes, const char *api, ascendsim::srcloc loc) const
	{
		ascendsim::gm_check(region_, view_, view_bytes_, addr, bytes, api, loc);
	}

	ASCENDSIM_NOCOV void scalar_access(uint64_t offset, bool write, const char *api, ascendsim::srcloc loc) const
	{
		check(addr_ + offset, sizeof(T), api, loc);
		ascendsim::instr r{};
		r.name = api;
		r.loc = loc;
		r.kind = write ? ascendsim::INSTR_SCALAR_WRITE : ascendsim::INSTR_SCALAR_READ;
		r.pipe = ascendsim::PIPE_ID_S;
		r.dtype = ascendsim::dtype_of<T>::code;
		r.count = 1;
		r.bytes = sizeof(T);
		r.gm = addr_ + offset;
		r.event_id = -1;
		ascendsim::issue(r);
	}
};

} // namespace AscendC

namespace ascendsim {

// Fail unless `t` is allocated, 32-byte aligned and has `elems` elements.
template <class T>
ASCENDSIM_NOCOV inline void ub_check(const AscendC::LocalTensor<T> &t, uint64_t elems, const char *api, const char *operand, srcloc loc)
{
	if (__builtin_expect(t.data_ == nullptr, 0))
		fail("out_of_bounds", loc, "%s: %s is a LocalTensor that was never allocated", api, operand);
	if (__builtin_expect(elems > t.size_, 0))
		fail("out_of_bounds", loc,
		     "%s: %s needs %llu elements (%llu bytes) at UB 0x%x but the tensor has only %u left", api, operand,
		     (unsigned long long)elems, (unsigned long long)(elems * sizeof(T)), ub_offset(t.data_), t.size_);
}

// Vector and copy operands must start on a 32-byte UB boundary.
template <class T>
ASCENDSIM_NOCOV inline void ub_check_aligned(const AscendC::LocalTensor<T> &t, const char *api, const char *operand, const char *kind,
			     srcloc loc)
{
	uint32_t off = ub_offset(t.data_);
	if (__builtin_expect(off % 32 != 0, 0))
		violation(kind, loc, "%s: %s starts at UB 0x%x, which is not 32-byte aligned", api, operand, off);
}

template <class T> ASCENDSIM_NOCOV inline ub_span span_of(const AscendC::LocalTensor<T> &t, uint64_t elems)
{
	uint32_t b = ub_offset(t.data_);
	return ub_span{b, b + (uint32_t)(elems * sizeof(T))};
}

} // namespace ascendsim

#endif
