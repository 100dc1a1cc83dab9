// SPDX-License-Identifier: MIT
//
// The bridge between the kernel-side headers and libascendsim: source
// locations, the per-core state the scheduler switches, the instruction
// record and the one hook every instruction goes through, error reporting,
// GM bounds, queue bookkeeping and SyncAll.  Nothing here is AscendC API.
#ifndef ASCENDSIM_RUNTIME_H
#define ASCENDSIM_RUNTIME_H

#include <cstdint>
#include <cstddef>

#include "ascendsim/types.h"

namespace ascendsim {

// The caller's file and line, captured by a defaulted last parameter of every
// API so that errors point at the kernel source.  The tag keeps a stray
// string argument from converting into a location.
struct loc_tag {};
struct srcloc {
	const char *file;
	int line;
	ASCENDSIM_NOCOV constexpr srcloc(loc_tag = loc_tag(), const char *f = __builtin_FILE(), int l = __builtin_LINE())
	    : file(f), line(l) {}
};

// The location an API reports when it was reached through a function
// pointer (real kernels pass library APIs as template arguments, which
// needs the documented signature, without the location parameter): the
// location of the instruction this core issued last, which is usually the
// line just before the call (a PipeBarrier, a Cast), or a placeholder
// before the first one.
srcloc indirect_loc();

// The pipes of one vector core.  S issues everything in program order.
enum pipe_id : uint8_t {
	PIPE_ID_S = 0,
	PIPE_ID_V,
	PIPE_ID_MTE2,
	PIPE_ID_MTE3,
	PIPE_ID_COUNT,
	PIPE_ID_ALL = 0xfe,
	PIPE_ID_NONE = 0xff,
};

enum instr_kind : uint8_t {
	INSTR_VECTOR,       /* vector compute on V */
	INSTR_COPY_IN,      /* GM -> UB on MTE2 */
	INSTR_COPY_OUT,     /* UB -> GM on MTE3 */
	INSTR_COPY_LOCAL,   /* UB -> UB on V */
	INSTR_SCALAR_READ,  /* GetValue on S, UB or GM */
	INSTR_SCALAR_WRITE, /* SetValue on S, UB or GM */
	INSTR_BARRIER,      /* PipeBarrier; `barrier` holds the pipe or PIPE_ID_ALL */
	INSTR_SET_FLAG,     /* SetFlag, `event`/`event_id` */
	INSTR_WAIT_FLAG,    /* WaitFlag */
	INSTR_QUEUE_ALLOC,  /* AllocTensor: waits the slot's free flag, if any */
	INSTR_QUEUE_ENQUE,  /* EnQue: sets the producer->consumer flag */
	INSTR_QUEUE_DEQUE,  /* DeQue: waits it */
	INSTR_QUEUE_FREE,   /* FreeTensor: sets the consumer->producer flag */
	INSTR_SYNC_ALL,     /* SyncAll across the cores of the launch */
	INSTR_CONTROL,      /* mask, atomic mode, tiling load, event-id calls */
};

enum copy_flag : uint8_t {
	COPY_PAD = 1, /* DataCopyPad: per-row padding work on MTE */
};

// A span of UB bytes [begin, end); begin == end means "none".
struct ub_span {
	uint32_t begin, end;
};

// What one instruction does, as far as timing and sync checking care.  Built
// on the caller's stack by the API and handed to issue(); unused fields stay 0.
struct instr {
	const char *name;  /* API name, e.g. "Add" */
	srcloc loc;
	uint8_t kind;      /* instr_kind */
	uint8_t pipe;      /* pipe_id that executes it */
	uint8_t dtype;     /* dtype_code of the destination / main operand */
	uint8_t src_dtype; /* dtype_code of the source when it differs */
	uint8_t event;     /* hard_event of a flag, or of a queue's implied flag */
	int8_t event_id;   /* -1 when none */
	uint8_t barrier;   /* INSTR_BARRIER: pipe_id or PIPE_ID_ALL */
	uint8_t counter_mode;
	uint32_t count;    /* elements processed */
	uint32_t repeat;   /* repeats of the mask/repeat form, or of the count */
	uint64_t mask[2];
	uint16_t blk_stride[3]; /* dst, src0, src1 in 32-byte blocks */
	uint16_t rep_stride[3];
	uint64_t bytes;    /* bytes moved through GM or UB */
	const void *gm;    /* GM address of a copy or scalar access */
	uint32_t block_count, block_len; /* copies: rows and bytes per row */
	uint64_t gm_pitch; /* copies: GM bytes from one row's start to the next */
	uint8_t cache_mode;  /* copies: the GlobalTensor's CacheMode (1 = NORMAL) */
	uint8_t copy_flags;  /* COPY_PAD for DataCopyPad */
	uint8_t scratch;     /* vector: src[2] is temp space the instruction also writes (library APIs) */
	ub_span dst;
	ub_span src[3];
};

// Runtime-only per-core state (flags, clocks, race tables); opaque here.
struct core_private;

// What the scheduler switches when it resumes a simulated core.  Kernel-side
// code reaches it through g_core, never through thread_local.
struct core_state {
	uint8_t *ub;
	uint32_t ub_bytes;
	uint32_t block_idx;
	uint32_t block_num;
	uint64_t mask[2];
	bool counter_mode;
	uint8_t atomic_op;    /* 0 none, 1 add, 2 max, 3 min */
	uint8_t atomic_dtype; /* dtype_code */
	void *tpipe;          /* the TPipe GetTPipePtr() returns */
	uint16_t mrgsort_done[4]; /* records per list the last MrgSort gave out */
	/* The reduction registers scalar code reads after a V_S flag: ACC_VAL,
	 * which an accumulating sum (vcadd mode 1, ReduceSum's count form)
	 * leaves, and MAX_MIN_CNT, the extreme and its index a WholeReduceMax/
	 * Min or ReduceMax/Min leaves.  Bits of the value in the reduction's
	 * type; `*_dtype` is 0 until something wrote the register. */
	uint64_t acc_val;
	uint8_t acc_dtype;
	uint8_t max_min_dtype;
	uint8_t max_min_exact;   /* index exact: a WholeReduce over a continuous layout */
	uint8_t max_min_counter; /* written in counter mode */
	uint32_t max_min_val;
	uint32_t max_min_idx;
	uint16_t deq_scale;   /* DEQSCALE as SetDeqScale(half) left it (half bits) */
	bool deq_set;
	core_private *priv;
};

extern core_state *g_core;

// Launch-wide facts the kernel side reads.
struct run_state {
	uint64_t tiling_key;
	uint64_t instructions;
	uint64_t instruction_budget;
	uint32_t ub_limit;         /* InitBuffer limit in bytes */
	uint32_t event_ids;        /* flag IDs per HardEvent */
	uint32_t user_event_ids;   /* of which AllocEventID may hand out */
	uint64_t system_workspace; /* bytes before the user workspace */
	uint32_t tiling_bytes;     /* size the host saved */
	uint64_t gm_bytes;         /* GM the harness has allocated for the case */
	uint64_t gm_budget;        /* and may (the spec's max_gm_bytes) */
	bool auto_sync;
	bool track_sync;           /* race tracking on (auto_sync off) */
	const char *op_name;
	const instr *last;         /* most recent instruction, for crash reports */
};

extern run_state g_run;

// The one hook.  Counts the instruction, enforces the budget, does flag
// accounting and, with auto_sync off, race detection.  Cheap on purpose.
void issue(const instr &r);

// A strict rule was broken: write result.json with status runtime_error and
// this kind, then exit.  `kind` is one of the error kinds of docs/design.md.
[[noreturn]] void fail(const char *kind, srcloc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
// Like fail(), unless the spec's `permissive` list names `kind`: then it
// records a warning and returns so that the caller can carry on the way
// hardware would.
void violation(const char *kind, srcloc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
// A warning in result.json (deduplicated per source line).
void warn(srcloc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// The simulator cannot run this: status `unsupported`, then exit.
[[noreturn]] void unsupported(srcloc loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// GM allocations made by the harness (inputs, outputs, workspace, tiling).
// A region models what the device allocator hands out: the tensor's bytes
// plus 32, rounded up to 512 (torch_npu's caching allocator), so
// [data_end, end) is padding that kernels may touch (with a warning)
// without faulting.
struct gm_region {
	uint8_t *begin;
	uint8_t *data_end; /* end of the tensor's own bytes */
	uint8_t *end;      /* end of the allocation */
	const char *name;
	/* An output's written bytes, one bit per byte of [begin, data_end)
	 * (bit i of word i / 64); nullptr for every other region and for ref
	 * outputs, whose unwritten bytes keep their input's values. */
	uint64_t *written;
};
const gm_region *gm_find(const void *p);
void gm_check_slow(const gm_region *r, const void *view, uint64_t view_bytes, const void *addr, uint64_t bytes,
		   const char *api, srcloc loc);

// The kernel wrote `bytes` of GM at `addr` inside region `r` (written.cpp).
// Simulated GM starts zeroed but an NPU's does not: an output element no
// path wrote holds whatever was there before, so the result says which
// output elements were written.  Every GM write the shim performs records
// itself here: UB -> GM copies (DataCopy, DataCopyPad, with or without an
// atomic mode), InitGlobalMemory, GlobalTensor::SetValue and
// GlobalTensor::operator() (a reference that may be written).  A kernel
// that stores through a raw __gm__ pointer bypasses the shim and is not
// seen: its output reads as unwritten.
void gm_mark_written_slow(const gm_region *r, const void *addr, uint64_t bytes);
ASCENDSIM_NOCOV inline void gm_mark_written(const gm_region *r, const void *addr, uint64_t bytes)
{
	if (r && r->written)
		gm_mark_written_slow(r, addr, bytes);
}

// Check a GM access of `bytes` at `addr` through a GlobalTensor whose
// SetGlobalBuffer view starts at `view` and spans `view_bytes`.
ASCENDSIM_NOCOV inline void gm_check(const gm_region *r, const void *view, uint64_t view_bytes, const void *addr, uint64_t bytes,
		     const char *api, srcloc loc)
{
	const uint8_t *a = (const uint8_t *)addr;
	const uint8_t *v = (const uint8_t *)view;
	if (r && a >= v && (uint64_t)(a - v) + bytes <= view_bytes && a >= r->begin && a + bytes <= r->data_end)
		return;
	gm_check_slow(r, view, view_bytes, addr, bytes, api, loc);
}

// Queue bookkeeping shared by every TQue/TQueBind instantiation.
enum { QUEUE_MAX_SLOTS = 16 };
struct queue_state {
	uint8_t producer;   /* pipe that fills a slot, PIPE_ID_NONE for VECCALC */
	uint8_t consumer;   /* pipe that drains it */
	uint8_t position;   /* TPosition of the destination */
	uint8_t num;        /* slots given by InitBuffer */
	int32_t depth;      /* template depth */
	uint32_t len;       /* bytes per slot, 32-byte aligned */
	uint32_t base;      /* UB offset of slot 0 */
	uint8_t slot_state[QUEUE_MAX_SLOTS];
	int8_t enq_event[QUEUE_MAX_SLOTS];
	uint8_t enq_from[QUEUE_MAX_SLOTS]; /* the pipes an EnQue handed the slot between */
	uint8_t enq_to[QUEUE_MAX_SLOTS];
	uint8_t enq_pos[QUEUE_MAX_SLOTS];  /* EnQue<src, dst>'s positions (src << 4 | dst), 0 for EnQue() */
	int8_t free_event[QUEUE_MAX_SLOTS];
	uint8_t fifo[QUEUE_MAX_SLOTS];
	uint8_t fifo_head, fifo_count;
	uint8_t next_alloc; /* AllocTensor hands out buffers round-robin, as TQue does */
	int8_t free_id;     /* the event id this queue's pending FreeTensor flags share, or -1 */
	bool ready;
};
void queue_setup(queue_state *q, int pos_src, int pos_dst, int32_t depth);
uint32_t queue_alloc(queue_state *q, srcloc loc);             /* UB offset */
void queue_enque(queue_state *q, uint32_t ub_offset, srcloc loc);
uint32_t queue_deque(queue_state *q, srcloc loc);             /* UB offset */
// EnQue<src, dst> and DeQue<src, dst> of a TQueBind: the hand-off between
// the positions given (TPosition values) rather than the queue's own.
void queue_enque_at(queue_state *q, uint32_t ub_offset, int pos_src, int pos_dst, srcloc loc);
uint32_t queue_deque_at(queue_state *q, int pos_src, int pos_dst, srcloc loc);
void queue_free(queue_state *q, uint32_t ub_offset, srcloc loc);
int queue_vacant(const queue_state *q);
int queue_count(const queue_state *q);
bool queue_has_idle(const queue_state *q);
void queue_release(queue_state *q);                           /* TPipe::Reset/Destroy */

// UB allocation for TPipe::InitBuffer; checks the platform limit.
uint32_t ub_reserve(uint32_t *cursor, uint32_t bytes, const char *what, srcloc loc);

// Event IDs for explicit flags.
int8_t event_alloc(int event, srcloc loc);
void event_release(int event, int id, srcloc loc);
int8_t event_fetch(int event, srcloc loc);

void sync_all(srcloc loc);
void cross_core_flag(int mode, int flag, bool set, srcloc loc);
void set_task_type(int type, srcloc loc);
void load_tiling(void *dst, const uint8_t *tiling, size_t bytes, srcloc loc);
uint8_t *user_workspace(uint8_t *workspace);

ASCENDSIM_NOCOV inline uint32_t ub_offset(const void *p)
{
	return (uint32_t)((const uint8_t *)p - g_core->ub);
}

} // namespace ascendsim

#endif
