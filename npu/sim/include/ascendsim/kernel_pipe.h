// SPDX-License-Identifier: MIT
//
// TPipe, TQue/TQueBind and TBuf (UB allocation and the queue protocol),
// flags, barriers, SyncAll, vector-mask control and atomic modes.  The
// bookkeeping lives in libascendsim; these templates only adapt the types.
#ifndef ASCENDSIM_KERNEL_PIPE_H
#define ASCENDSIM_KERNEL_PIPE_H

#include "ascendsim/kernel_tensor.h"

namespace ascendsim {

// SetFlag (`set`) or WaitFlag on `evt` with `id`, whichever spelling the
// kernel used: the template API or the set_flag/wait_flag intrinsics.
ASCENDSIM_NOCOV inline void flag_record(bool set, AscendC::HardEvent evt, int64_t id, const char *api, srcloc loc)
{
	instr r{};
	uint8_t src, dst;
	if (!hard_event_pipes(evt, &src, &dst))
		unsupported(loc, "%s<%s> involves a cube pipe", api, hard_event_name((int)evt));
	r.name = api;
	r.loc = loc;
	r.kind = set ? INSTR_SET_FLAG : INSTR_WAIT_FLAG;
	r.pipe = set ? src : dst;
	r.event = (uint8_t)evt;
	if (id < 0 || id > 7)
		fail("invalid_argument", loc, "%s event id %lld is outside 0..7", api, (long long)id);
	r.event_id = (int8_t)id;
	issue(r);
}

} // namespace ascendsim

namespace AscendC {

// What a TQue's `mask` template argument may point to instead of an int.
// bufferLen/bufferNumber, when not 0, must match InitBuffer; the ND/NZ
// conversions exist only on Atlas inference AI Cores.
struct TQueConfig {
	bool nd2nz = false;
	bool nz2nd = false;
	bool scmBlockGroup = false;
	uint32_t bufferLen = 0;
	uint32_t bufferNumber = 0;
	uint32_t consumerSize = 0;
	TPosition consumer[8] = {};
	bool enableStaticEvtId = false;
	bool enableLoopQueue = false;
};

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0> class TQueBind {
public:
	ASCENDSIM_NOCOV TQueBind() { ascendsim::queue_setup(&q_, (int)src, (int)dst, depth); }

	// The TQueConfig the queue was declared with, if any.
	static constexpr const TQueConfig *config()
	{
		if constexpr (std::is_pointer<decltype(mask)>::value) {
			static_assert(std::is_convertible<decltype(mask), const TQueConfig *>::value,
				      "TQue: a pointer mask must point to a TQueConfig");
			static_assert(!mask->nd2nz && !mask->nz2nd,
				      "TQueConfig: nd2nz/nz2nd are not available on Atlas A2 vector cores");
			return mask;
		} else {
			static_assert(std::is_integral<decltype(mask)>::value, "TQue: mask is an int or a const TQueConfig *");
			static_assert(mask == 0, "TQue: the ND/NZ mask bits are not available on Atlas A2 vector cores");
			return nullptr;
		}
	}

	template <class T> ASCENDSIM_NOCOV LocalTensor<T> AllocTensor(ascendsim::srcloc loc = {})
	{
		return make<T>(ascendsim::queue_alloc(&q_, loc));
	}

	template <class T> ASCENDSIM_NOCOV void FreeTensor(LocalTensor<T> &tensor, ascendsim::srcloc loc = {})
	{
		if (!tensor.data_)
			ascendsim::fail("queue_misuse", loc, "FreeTensor of a LocalTensor that was never allocated");
		ascendsim::queue_free(&q_, ascendsim::ub_offset(tensor.data_), loc);
	}

	template <class T> ASCENDSIM_NOCOV bool EnQue(const LocalTensor<T> &tensor, ascendsim::srcloc loc = {})
	{
		if (!tensor.data_)
			ascendsim::fail("queue_misuse", loc, "EnQue of a LocalTensor that was never allocated");
		ascendsim::queue_enque(&q_, ascendsim::ub_offset(tensor.data_), loc);
		return true;
	}

	template <class T> ASCENDSIM_NOCOV LocalTensor<T> DeQue(ascendsim::srcloc loc = {})
	{
		return make<T>(ascendsim::queue_deque(&q_, loc));
	}

	// The hand-off between two user positions (GM -> VECIN or VECOUT -> GM),
	// so that a bound VECIN/VECOUT queue serves a copy in, a vector step
	// and a copy out with one buffer (EnQue<GM, VECIN>, EnQue<VECOUT, GM>).
	template <TPosition srcUserPos, TPosition dstUserPos, class T>
	ASCENDSIM_NOCOV bool EnQue(const LocalTensor<T> &tensor, ascendsim::srcloc loc = {})
	{
		if (!tensor.data_)
			ascendsim::fail("queue_misuse", loc, "EnQue of a LocalTensor that was never allocated");
		ascendsim::queue_enque_at(&q_, ascendsim::ub_offset(tensor.data_), (int)srcUserPos, (int)dstUserPos, loc);
		return true;
	}

	template <TPosition srcUserPos, TPosition dstUserPos, class T>
	ASCENDSIM_NOCOV LocalTensor<T> DeQue(ascendsim::srcloc loc = {})
	{
		return make<T>(ascendsim::queue_deque_at(&q_, (int)srcUserPos, (int)dstUserPos, loc));
	}

	ASCENDSIM_NOCOV bool VacantInQue() const { return ascendsim::queue_vacant(&q_) != 0; }
	ASCENDSIM_NOCOV bool HasTensorInQue() const { return ascendsim::queue_count(&q_) != 0; }
	ASCENDSIM_NOCOV int32_t GetTensorCountInQue() const { return ascendsim::queue_count(&q_); }
	ASCENDSIM_NOCOV bool HasIdleBuffer() const { return ascendsim::queue_has_idle(&q_); }
	ASCENDSIM_NOCOV void FreeAllEvent() {}

	ascendsim::queue_state q_{};

private:
	template <class T> ASCENDSIM_NOCOV LocalTensor<T> make(uint32_t off) const
	{
		LocalTensor<T> t;
		t.data_ = reinterpret_cast<T *>(ascendsim::g_core->ub + off);
		t.size_ = t.cap_ = q_.len / (uint32_t)sizeof(T);
		t.pos_ = (uint8_t)dst;
		return t;
	}
};

template <TPosition pos, int32_t depth, auto mask = 0> class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::LCM> class TBuf {
public:
	template <class T> ASCENDSIM_NOCOV LocalTensor<T> Get(ascendsim::srcloc loc = {}) const
	{
		return Get<T>(len_ / (uint32_t)sizeof(T), loc);
	}

	// `len` is in elements of T.
	template <class T> ASCENDSIM_NOCOV LocalTensor<T> Get(const uint32_t len, ascendsim::srcloc loc = {}) const
	{
		return GetWithOffset<T>(len, 0, loc);
	}

	// `size` elements of T starting `bufOffset` bytes into the buffer.
	template <class T> ASCENDSIM_NOCOV LocalTensor<T> GetWithOffset(uint32_t size, const uint32_t bufOffset, ascendsim::srcloc loc = {}) const
	{
		if (!ready_)
			ascendsim::fail("out_of_bounds", loc, "TBuf::Get on a TBuf that InitBuffer never set up");
		if ((uint64_t)bufOffset + (uint64_t)size * sizeof(T) > len_)
			ascendsim::fail("out_of_bounds", loc,
					"TBuf::Get of %u elements x %zu bytes at offset %u exceeds the %u-byte buffer", size,
					sizeof(T), bufOffset, len_);
		LocalTensor<T> t;
		t.data_ = reinterpret_cast<T *>(ascendsim::g_core->ub + base_ + bufOffset);
		t.size_ = t.cap_ = size;
		t.pos_ = (uint8_t)pos;
		return t;
	}

	// TBuf derives from TQueBind, so AllocTensor/FreeTensor exist on it too:
	// the one buffer, as Get() gives it, with no flags (a TBuf's tensors
	// need no freeing).  FreeTensor checks the tensor is this buffer's.
	template <class T> ASCENDSIM_NOCOV LocalTensor<T> AllocTensor(ascendsim::srcloc loc = {}) const { return Get<T>(loc); }

	template <class T> ASCENDSIM_NOCOV void FreeTensor(LocalTensor<T> &tensor, ascendsim::srcloc loc = {}) const
	{
		uint8_t *p = reinterpret_cast<uint8_t *>(tensor.data_);
		if (!ready_ || !p || p < ascendsim::g_core->ub + base_ || p >= ascendsim::g_core->ub + base_ + len_)
			ascendsim::fail("queue_misuse", loc, "TBuf::FreeTensor of a LocalTensor this TBuf did not give out");
	}

	uint32_t base_ = 0;
	uint32_t len_ = 0;
	bool ready_ = false;
};

class TPipe {
public:
	ASCENDSIM_NOCOV TPipe()
	{
		if (ascendsim::g_core && !ascendsim::g_core->tpipe)
			ascendsim::g_core->tpipe = this;
	}
	ASCENDSIM_NOCOV ~TPipe()
	{
		if (ascendsim::g_core && ascendsim::g_core->tpipe == this)
			ascendsim::g_core->tpipe = nullptr;
	}
	TPipe(const TPipe &) = delete;
	TPipe &operator=(const TPipe &) = delete;

	template <class Q> ASCENDSIM_NOCOV bool InitBuffer(Q &que, uint8_t num, uint32_t len, ascendsim::srcloc loc = {})
	{
		ascendsim::queue_state *q = &que.q_;
		if constexpr (Q::config() != nullptr) {
			constexpr const TQueConfig *c = Q::config();
			if ((c->bufferNumber && c->bufferNumber != num) || (c->bufferLen && c->bufferLen != len))
				ascendsim::fail("invalid_argument", loc,
						"InitBuffer(%u, %u) does not match the queue's TQueConfig (bufferNumber %u, "
						"bufferLen %u)",
						num, len, c->bufferNumber, c->bufferLen);
		}
		if (num == 0 || num > ascendsim::QUEUE_MAX_SLOTS)
			ascendsim::fail("invalid_argument", loc, "InitBuffer: %u buffers; a queue takes 1 to %d", num,
					(int)ascendsim::QUEUE_MAX_SLOTS);
		if (q->ready)
			ascendsim::fail("queue_misuse", loc, "InitBuffer called twice on the same queue");
		uint32_t aligned = (len + 31u) & ~31u;
		q->base = ascendsim::ub_reserve(&cursor_, (uint32_t)num * aligned, "InitBuffer(queue)", loc);
		q->num = num;
		q->len = aligned;
		q->ready = true;
		if (nqueues_ < kMaxQueues)
			queues_[nqueues_++] = q;
		return true;
	}

	template <TPosition pos> ASCENDSIM_NOCOV bool InitBuffer(TBuf<pos> &buf, uint32_t len, ascendsim::srcloc loc = {})
	{
		uint32_t aligned = (len + 31u) & ~31u;
		buf.base_ = ascendsim::ub_reserve(&cursor_, aligned, "InitBuffer(TBuf)", loc);
		buf.len_ = len;
		buf.ready_ = true;
		return true;
	}

	ASCENDSIM_NOCOV void Reset()
	{
		for (int i = 0; i < nqueues_; i++)
			ascendsim::queue_release(queues_[i]);
		nqueues_ = 0;
		cursor_ = 0;
	}
	ASCENDSIM_NOCOV void Destroy() { Reset(); }
	ASCENDSIM_NOCOV void Init() {}

	template <HardEvent evt> ASCENDSIM_NOCOV TEventID AllocEventID(ascendsim::srcloc loc = {})
	{
		return ascendsim::event_alloc((int)evt, loc);
	}
	template <HardEvent evt> ASCENDSIM_NOCOV void ReleaseEventID(TEventID id, ascendsim::srcloc loc = {})
	{
		ascendsim::event_release((int)evt, id, loc);
	}
	ASCENDSIM_NOCOV TEventID FetchEventID(HardEvent evt, ascendsim::srcloc loc = {}) { return ascendsim::event_fetch((int)evt, loc); }
	template <HardEvent evt> ASCENDSIM_NOCOV TEventID FetchEventID(ascendsim::srcloc loc = {})
	{
		return ascendsim::event_fetch((int)evt, loc);
	}

	uint32_t cursor_ = 0;

private:
	static constexpr int kMaxQueues = 64;
	ascendsim::queue_state *queues_[kMaxQueues];
	int nqueues_ = 0;
};

ASCENDSIM_NOCOV inline TPipe *GetTPipePtr()
{
	return static_cast<TPipe *>(ascendsim::g_core->tpipe);
}

// The whole UB left after the TPipe's InitBuffer calls, as a temporary
// tensor of position `pos` (not reserved: a later InitBuffer may reuse it).
template <class T, TPosition pos> ASCENDSIM_NOCOV inline bool PopStackBuffer(LocalTensor<T> &popLocal, ascendsim::srcloc loc = {})
{
	static_assert(ascendsim::is_one_of<T, uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t, float,
					   half>::value,
		      "PopStackBuffer supports 8-, 16-, 32- and 64-bit integers, half and float");
	static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::VECCALC,
		      "PopStackBuffer: a vector core has only the UB positions VECIN, VECOUT and VECCALC");
	TPipe *pipe = GetTPipePtr();
	if (!pipe)
		ascendsim::fail("invalid_argument", loc, "PopStackBuffer without a TPipe");
	uint32_t used = (pipe->cursor_ + 31u) & ~31u;
	uint32_t limit = ascendsim::g_run.ub_limit;
	popLocal.data_ = reinterpret_cast<T *>(ascendsim::g_core->ub + used);
	popLocal.size_ = popLocal.cap_ = used < limit ? (limit - used) / (uint32_t)sizeof(T) : 0;
	popLocal.pos_ = (uint8_t)pos;
	return popLocal.size_ > 0;
}

template <pipe_t pipe> ASCENDSIM_NOCOV inline void PipeBarrier(ascendsim::srcloc loc = {})
{
	ascendsim::instr r{};
	r.name = "PipeBarrier";
	r.loc = loc;
	r.kind = ascendsim::INSTR_BARRIER;
	r.barrier = ascendsim::pipe_of(pipe);
	r.pipe = r.barrier == ascendsim::PIPE_ID_ALL ? (uint8_t)ascendsim::PIPE_ID_S : r.barrier;
	r.event_id = -1;
	if (r.barrier == ascendsim::PIPE_ID_NONE)
		ascendsim::unsupported(loc, "PipeBarrier on a cube pipe");
	ascendsim::issue(r);
}

template <HardEvent evt> ASCENDSIM_NOCOV inline void SetFlag(int32_t eventID, ascendsim::srcloc loc = {})
{
	ascendsim::flag_record(true, evt, eventID, "SetFlag", loc);
}

template <HardEvent evt> ASCENDSIM_NOCOV inline void WaitFlag(int32_t eventID, ascendsim::srcloc loc = {})
{
	ascendsim::flag_record(false, evt, eventID, "WaitFlag", loc);
}

// Inter-core flags (CrossCoreSetFlag/WaitFlag): see ascendsim::cross_core_flag.
template <uint8_t modeId, pipe_t pipe> ASCENDSIM_NOCOV inline void CrossCoreSetFlag(uint16_t flagId, ascendsim::srcloc loc = {})
{
	static_assert(pipe != PIPE_S && pipe != PIPE_ALL, "CrossCoreSetFlag: the pipe may not be PIPE_S or PIPE_ALL");
	ascendsim::cross_core_flag(modeId, flagId, true, loc);
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
ASCENDSIM_NOCOV inline void CrossCoreWaitFlag(uint16_t flagId, ascendsim::srcloc loc = {})
{
	ascendsim::cross_core_flag(modeId, flagId, false, loc);
}

template <bool isAIVOnly = true> ASCENDSIM_NOCOV inline void SyncAll(ascendsim::srcloc loc = {})
{
	ascendsim::sync_all(loc);
}

// The software form synchronises through a GM workspace of 32 bytes per core;
// the simulator checks the workspace and then synchronises directly.
template <bool isAIVOnly = true>
ASCENDSIM_NOCOV inline void SyncAll(const GlobalTensor<int32_t> &gmWorkspace, const LocalTensor<int32_t> &ubWorkspace,
		    const int32_t usedCores = 0, ascendsim::srcloc loc = {})
{
	uint32_t cores = usedCores > 0 ? (uint32_t)usedCores : ascendsim::g_core->block_num;
	gmWorkspace.check(gmWorkspace.addr_, (uint64_t)cores * 32, "SyncAll(gmWorkspace)", loc);
	ascendsim::ub_check(ubWorkspace, 8, "SyncAll", "ubWorkspace", loc);
	ascendsim::sync_all(loc);
}

template <class T, MaskMode mode = MaskMode::NORMAL>
ASCENDSIM_NOCOV inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow, ascendsim::srcloc loc = {})
{
	ascendsim::g_core->mask[0] = maskLow;
	ascendsim::g_core->mask[1] = maskHigh;
	if (mode == MaskMode::COUNTER)
		ascendsim::g_core->counter_mode = true;
	ascendsim::instr r{};
	r.name = "SetVectorMask";
	r.loc = loc;
	r.kind = ascendsim::INSTR_CONTROL;
	r.pipe = ascendsim::PIPE_ID_S;
	r.event_id = -1;
	ascendsim::issue(r);
}

// `len` lanes from lane 0 in normal mode, or a count in counter mode.
template <class T, MaskMode mode = MaskMode::NORMAL> ASCENDSIM_NOCOV inline void SetVectorMask(int32_t len, ascendsim::srcloc loc = {})
{
	ascendsim::core_state *c = ascendsim::g_core;
	if (mode == MaskMode::COUNTER || c->counter_mode) {
		c->mask[0] = (uint64_t)(uint32_t)len;
		c->mask[1] = 0;
	} else {
		uint32_t n = len < 0 ? 0u : (uint32_t)len;
		c->mask[0] = n >= 64 ? ~0ULL : ((1ULL << n) - 1);
		c->mask[1] = n >= 128 ? ~0ULL : (n <= 64 ? 0ULL : ((1ULL << (n - 64)) - 1));
	}
	if (mode == MaskMode::COUNTER)
		c->counter_mode = true;
	ascendsim::instr r{};
	r.name = "SetVectorMask";
	r.loc = loc;
	r.kind = ascendsim::INSTR_CONTROL;
	r.pipe = ascendsim::PIPE_ID_S;
	r.event_id = -1;
	ascendsim::issue(r);
}

ASCENDSIM_NOCOV inline void SetMaskCount()
{
	ascendsim::g_core->counter_mode = true;
}

ASCENDSIM_NOCOV inline void SetMaskNorm()
{
	ascendsim::g_core->counter_mode = false;
}

ASCENDSIM_NOCOV inline void ResetMask()
{
	ascendsim::g_core->mask[0] = ascendsim::g_core->mask[1] = ~0ULL;
}

template <class T> ASCENDSIM_NOCOV inline void SetAtomicAdd()
{
	static_assert(ascendsim::is_one_of<T, float, half, int16_t, int32_t, int8_t, bfloat16_t>::value,
		      "SetAtomicAdd supports float, half, bfloat16_t, int16_t, int32_t and int8_t");
	ascendsim::g_core->atomic_op = 1;
	ascendsim::g_core->atomic_dtype = ascendsim::dtype_of<T>::code;
}

template <class T> ASCENDSIM_NOCOV inline void SetAtomicMax()
{
	static_assert(ascendsim::is_one_of<T, float, half, int16_t, int32_t, int8_t, bfloat16_t>::value,
		      "SetAtomicMax supports float, half, bfloat16_t, int16_t, int32_t and int8_t");
	ascendsim::g_core->atomic_op = 2;
	ascendsim::g_core->atomic_dtype = ascendsim::dtype_of<T>::code;
}

template <class T> ASCENDSIM_NOCOV inline void SetAtomicMin()
{
	static_assert(ascendsim::is_one_of<T, float, half, int16_t, int32_t, int8_t, bfloat16_t>::value,
		      "SetAtomicMin supports float, half, bfloat16_t, int16_t, int32_t and int8_t");
	ascendsim::g_core->atomic_op = 3;
	ascendsim::g_core->atomic_dtype = ascendsim::dtype_of<T>::code;
}

ASCENDSIM_NOCOV inline void SetAtomicNone()
{
	ascendsim::g_core->atomic_op = 0;
}

ASCENDSIM_NOCOV inline GM_ADDR GetUserWorkspace(GM_ADDR workspace)
{
	return ascendsim::user_workspace(workspace);
}

} // namespace AscendC

namespace ascendsim {

// DataCacheCleanAndInvalid keeps the scalar unit's data cache coherent with
// GM or UB.  The simulator's scalar accesses go straight to memory, so it
// has no data effect; it is recorded as a control instruction on S that
// flushes one 64-byte line (SINGLE_CACHE_LINE) or the whole 32 KiB DCache
// (ENTIRE_DATA_CACHE, documented as slow): `count` carries the lines for
// the cycle model.  CACHELINE_ATOMIC is documented as not yet supported on
// Atlas A2, so it does not compile.
template <AscendC::CacheLine line, AscendC::DcciDst dst>
ASCENDSIM_NOCOV inline void dcci_record(srcloc loc)
{
	static_assert(dst != AscendC::DcciDst::CACHELINE_ATOMIC,
		      "DataCacheCleanAndInvalid: CACHELINE_ATOMIC is not supported on Atlas A2");
	instr r{};
	r.name = "DataCacheCleanAndInvalid";
	r.loc = loc;
	r.kind = INSTR_CONTROL;
	r.pipe = PIPE_ID_S;
	r.event_id = -1;
	r.count = line == AscendC::CacheLine::ENTIRE_DATA_CACHE ? 32 * 1024 / 64 : 1;
	issue(r);
}

} // namespace ascendsim

namespace AscendC {

template <class T, CacheLine entireType, DcciDst dcciDst>
ASCENDSIM_NOCOV inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst, ascendsim::srcloc loc = {})
{
	if (entireType == CacheLine::SINGLE_CACHE_LINE)
		dst.check(dst.addr_, 1, "DataCacheCleanAndInvalid", loc);
	ascendsim::dcci_record<entireType, dcciDst>(loc);
}

template <class T, CacheLine entireType, DcciDst dcciDst>
ASCENDSIM_NOCOV inline void DataCacheCleanAndInvalid(const LocalTensor<T> &dst, ascendsim::srcloc loc = {})
{
	if (entireType == CacheLine::SINGLE_CACHE_LINE)
		ascendsim::ub_check(dst, 1, "DataCacheCleanAndInvalid", "dst", loc);
	ascendsim::dcci_record<entireType, dcciDst>(loc);
}

template <class T, CacheLine entireType>
ASCENDSIM_NOCOV inline void DataCacheCleanAndInvalid(const GlobalTensor<T> &dst, ascendsim::srcloc loc = {})
{
	if (entireType == CacheLine::SINGLE_CACHE_LINE)
		dst.check(dst.addr_, 1, "DataCacheCleanAndInvalid", loc);
	ascendsim::dcci_record<entireType, DcciDst::CACHELINE_OUT>(loc);
}

} // namespace AscendC

// set_flag/wait_flag(pipe, tpipe, id): the intrinsics behind SetFlag and
// WaitFlag, naming the event by its two pipes (CCE intrinsic reference,
// "set_flag & wait_flag").  A pair with no event on a vector core (a cube
// pipe) is unsupported.
ASCENDSIM_NOCOV inline void intrinsic_flag(bool set, pipe_t pipe, pipe_t tpipe, uint64_t id, ascendsim::srcloc loc)
{
	const char *api = set ? "set_flag" : "wait_flag";
	AscendC::HardEvent evt = ascendsim::hard_event_between(pipe, tpipe);
	if (evt == AscendC::HardEvent::MAX)
		ascendsim::unsupported(loc, "%s between pipes %d and %d: no such event on a vector core", api, (int)pipe,
				       (int)tpipe);
	ascendsim::flag_record(set, evt, (int64_t)id, api, loc);
}

ASCENDSIM_NOCOV inline void set_flag(pipe_t pipe, pipe_t tpipe, event_t pipeID, ascendsim::srcloc loc = {})
{
	intrinsic_flag(true, pipe, tpipe, (uint64_t)pipeID, loc);
}

ASCENDSIM_NOCOV inline void set_flag(pipe_t pipe, pipe_t tpipe, uint64_t pipeID, ascendsim::srcloc loc = {})
{
	intrinsic_flag(true, pipe, tpipe, pipeID, loc);
}

ASCENDSIM_NOCOV inline void wait_flag(pipe_t pipe, pipe_t tpipe, event_t pipeID, ascendsim::srcloc loc = {})
{
	intrinsic_flag(false, pipe, tpipe, (uint64_t)pipeID, loc);
}

ASCENDSIM_NOCOV inline void wait_flag(pipe_t pipe, pipe_t tpipe, uint64_t pipeID, ascendsim::srcloc loc = {})
{
	intrinsic_flag(false, pipe, tpipe, pipeID, loc);
}

// The older intrinsic spellings some kernels still use.
ASCENDSIM_NOCOV inline void pipe_barrier(pipe_t p, ascendsim::srcloc loc = {})
{
	ascendsim::instr r{};
	r.name = "pipe_barrier";
	r.loc = loc;
	r.kind = ascendsim::INSTR_BARRIER;
	r.barrier = ascendsim::pipe_of(p);
	r.pipe = r.barrier == ascendsim::PIPE_ID_ALL ? (uint8_t)ascendsim::PIPE_ID_S : r.barrier;
	r.event_id = -1;
	if (r.barrier == ascendsim::PIPE_ID_NONE)
		ascendsim::unsupported(loc, "pipe_barrier on a cube pipe");
	ascendsim::issue(r);
}

#endif
