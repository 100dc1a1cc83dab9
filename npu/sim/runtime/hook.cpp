// SPDX-License-Identifier: MIT
//
// The instruction hook and everything it checks: the instruction budget,
// flag pairing and event-id accounting (explicit flags and the flags queues
// imply), queue protocol, UB allocation, GM bounds, and - with auto_sync off
// - race detection with per-pipe vector clocks and a last-writer table per
// 32-byte UB block.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "internal.h"

namespace ascendsim {

core_state *g_core;
run_state g_run;

static instr_observer observer;
static void *observer_ctx;

void set_instr_observer(instr_observer fn, void *ctx)
{
	observer = fn;
	observer_ctx = ctx;
}

const char *pipe_name(uint8_t p)
{
	switch (p) {
	case PIPE_ID_S: return "S";
	case PIPE_ID_V: return "V";
	case PIPE_ID_MTE2: return "MTE2";
	case PIPE_ID_MTE3: return "MTE3";
	case PIPE_ID_ALL: return "ALL";
	default: return "?";
	}
}

const char *hard_event_name(int e)
{
	static const char *const names[] = {
	    "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "M_V",
	    "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX",
	    "FIX_M", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3", "MTE3_S",
	    "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1", "FIX_FIX"};
	if (e < 0 || e >= (int)(sizeof(names) / sizeof(names[0])))
		return "?";
	return names[e];
}

uint8_t hard_event_for(uint8_t src, uint8_t dst)
{
	using AscendC::HardEvent;
	for (int e = 0; e < EVENT_TYPES; e++) {
		uint8_t s, d;
		if (hard_event_pipes((HardEvent)e, &s, &d) && s == src && d == dst)
			return (uint8_t)e;
	}
	return 0xff;
}

std::string strprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[1024];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return buf;
}

// ---- vector clocks -----------------------------------------------------------

static void clock_snapshot(core_private *p, uint8_t pipe, uint32_t out[PIPE_ID_COUNT])
{
	for (int q = 0; q < PIPE_ID_COUNT; q++)
		out[q] = p->clock[pipe][q];
	out[pipe] = p->seq[pipe];
}

static void clock_join(core_private *p, uint8_t pipe, const uint32_t in[PIPE_ID_COUNT])
{
	for (int q = 0; q < PIPE_ID_COUNT; q++)
		if (in[q] > p->clock[pipe][q])
			p->clock[pipe][q] = in[q];
}

/*
 * The scalar unit dispatches every other pipe's instructions, in program
 * order, and stops dispatching while it waits on a flag (asc-devkit
 * docs/zh/guide/编程指南/高级编程/硬件实现/基本架构.md, "典型的指令流";
 * 核内同步能力概述.md, WaitFlag blocks the destination pipe's later
 * instructions).  So what pipe S knows to have completed, through a flag it
 * waited on, has completed before any instruction dispatched after that:
 * SetFlag<V_S>/WaitFlag<V_S> orders a later vector instruction after the
 * earlier ones as a PipeBarrier<PIPE_V> would.  Scalar accesses themselves
 * are not carried over: the docs still ask for S_V, S_MTE2 and S_MTE3
 * flags after SetValue.
 */
static void inherit_scalar(core_private *p, uint8_t pipe)
{
	const uint32_t *s = p->clock[PIPE_ID_S];
	for (int q = 0; q < PIPE_ID_COUNT; q++) {
		if (q == PIPE_ID_S)
			continue;
		if (q == pipe) {
			if (s[q] > p->barrier[q])
				p->barrier[q] = s[q];
		} else if (s[q] > p->clock[pipe][q]) {
			p->clock[pipe][q] = s[q];
		}
	}
}

void sync_apply_all(core_private *p)
{
	for (int a = 0; a < PIPE_ID_COUNT; a++) {
		for (int b = 0; b < PIPE_ID_COUNT; b++)
			p->clock[a][b] = p->seq[b];
		p->barrier[a] = p->seq[a];
	}
}

// ---- flags -------------------------------------------------------------------

static flag_slot &slot(int event, int id)
{
	return g_core->priv->flags[event][id];
}

static void flag_set(int event, int id, uint8_t src_pipe, srcloc loc)
{
	flag_slot &f = slot(event, id);
	f.pending++;
	f.set_loc = loc;
	clock_snapshot(g_core->priv, src_pipe, f.clock);
}

static bool flag_wait(int event, int id, uint8_t dst_pipe)
{
	flag_slot &f = slot(event, id);
	if (f.pending == 0)
		return false;
	f.pending--;
	clock_join(g_core->priv, dst_pipe, f.clock);
	return true;
}

// An id for a queue's implied flag: any id nobody holds or has pending,
// the highest first, so that the reserved ids serve the queues before the
// ones AllocEventID/FetchEventID hand out (a kernel may fetch an id while
// its queues have six copies in flight).
static int8_t queue_event_take(int event, const char *api, srcloc loc)
{
	int top = (int)g_run.event_ids < EVENT_IDS ? (int)g_run.event_ids : EVENT_IDS;
	for (int id = top - 1; id >= 0; id--) {
		flag_slot &f = slot(event, id);
		if (f.owner == FLAG_FREE && f.pending == 0) {
			f.owner = FLAG_QUEUE;
			return (int8_t)id;
		}
	}
	fail("event_ids_exhausted", loc,
	     "%s needs a %s event id but all %u are held or pending (too many queue buffers in flight at once, or "
	     "ids reserved with AllocEventID)",
	     api, hard_event_name(event), g_run.event_ids);
}

int8_t event_alloc(int event, srcloc loc)
{
	for (int id = 0; id < (int)g_run.user_event_ids; id++) {
		flag_slot &f = slot(event, id);
		if (f.owner == FLAG_FREE && f.pending == 0) {
			f.owner = FLAG_USER;
			instr r{};
			r.name = "AllocEventID";
			r.loc = loc;
			r.kind = INSTR_CONTROL;
			r.pipe = PIPE_ID_S;
			r.event = (uint8_t)event;
			r.event_id = (int8_t)id;
			issue(r);
			return (int8_t)id;
		}
	}
	fail("event_ids_exhausted", loc, "AllocEventID<%s>: all %u usable event ids are allocated (ids %u..%u are reserved)",
	     hard_event_name(event), g_run.user_event_ids, g_run.user_event_ids, g_run.event_ids - 1);
}

void event_release(int event, int id, srcloc loc)
{
	if (id < 0 || id >= EVENT_IDS || slot(event, id).owner != FLAG_USER)
		fail("invalid_argument", loc, "ReleaseEventID<%s>(%d) of an id that AllocEventID did not hand out",
		     hard_event_name(event), id);
	slot(event, id).owner = FLAG_FREE;
}

int8_t event_fetch(int event, srcloc loc)
{
	for (int id = 0; id < (int)g_run.user_event_ids; id++) {
		flag_slot &f = slot(event, id);
		if (f.owner == FLAG_FREE && f.pending == 0)
			return (int8_t)id;
	}
	fail("event_ids_exhausted", loc, "FetchEventID<%s>: no free event id among the %u usable ones",
	     hard_event_name(event), g_run.user_event_ids);
}

// ---- race tracking -------------------------------------------------------------

static void race(const instr &r, const ub_block &b, uint32_t block, const char *what, uint8_t other)
{
	if (b.w_loc.file && other == b.w_pipe)
		violation("race", r.loc,
			  "%s on pipe %s %s UB 0x%x last written by pipe %s at %s:%d with no flag or barrier between "
			  "(auto_sync is off)",
			  r.name, pipe_name(r.pipe), what, block * 32, pipe_name(b.w_pipe), b.w_loc.file, b.w_loc.line);
	else
		violation("race", r.loc,
			  "%s on pipe %s %s UB 0x%x still in use by pipe %s with no flag or barrier between (auto_sync is "
			  "off)",
			  r.name, pipe_name(r.pipe), what, block * 32, pipe_name(other));
}

static void track(const instr &r)
{
	core_private *p = g_core->priv;
	uint8_t pipe = r.pipe;
	if (pipe >= PIPE_ID_COUNT)
		return;
	uint32_t s = ++p->seq[pipe];
	std::vector<ub_block> &bl = p->blocks;
	uint32_t nblocks = (uint32_t)bl.size();
	for (int i = 0; i < 3; i++) {
		const ub_span &sp = r.src[i];
		/* a library API's temp space: it writes before it reads, with its own barriers */
		if (sp.end <= sp.begin || (i == 2 && r.scratch))
			continue;
		uint32_t b0 = sp.begin / 32, b1 = (sp.end - 1) / 32;
		if (b1 >= nblocks)
			b1 = nblocks - 1;
		for (uint32_t b = b0; b <= b1; b++) {
			ub_block &blk = bl[b];
			if (blk.w_pipe != PIPE_ID_NONE) {
				if (blk.w_pipe == pipe) {
					if (pipe == PIPE_ID_V && blk.w_seq > p->barrier[PIPE_ID_V])
						race(r, blk, b, "reads (needs PipeBarrier<PIPE_V>)", pipe);
				} else if (p->clock[pipe][blk.w_pipe] < blk.w_seq) {
					race(r, blk, b, "reads", blk.w_pipe);
				}
			}
			blk.r_seq[pipe] = s;
		}
	}
	for (const ub_span *w : {&r.dst, r.scratch ? &r.src[2] : nullptr}) {
		if (!w || w->end <= w->begin)
			continue;
		const ub_span &d = *w;
		uint32_t b0 = d.begin / 32, b1 = (d.end - 1) / 32;
		if (b1 >= nblocks)
			b1 = nblocks - 1;
		for (uint32_t b = b0; b <= b1; b++) {
			ub_block &blk = bl[b];
			if (blk.w_pipe != PIPE_ID_NONE && blk.w_pipe != pipe && p->clock[pipe][blk.w_pipe] < blk.w_seq)
				race(r, blk, b, "overwrites", blk.w_pipe);
			for (uint8_t q = 0; q < PIPE_ID_COUNT; q++)
				if (q != pipe && blk.r_seq[q] > p->clock[pipe][q])
					race(r, blk, b, "overwrites", q);
			blk.w_pipe = pipe;
			blk.w_seq = s;
			blk.w_loc = r.loc;
		}
	}
}

// ---- the hook ------------------------------------------------------------------

static const char *last_name;
static srcloc last_loc;

void last_instruction(const char **name, srcloc *loc)
{
	*name = last_name;
	*loc = last_loc;
}

srcloc indirect_loc()
{
	if (last_loc.file)
		return last_loc;
	return srcloc(loc_tag(), "(an API called through a function pointer)", 0);
}

void issue(const instr &r)
{
	last_name = r.name;
	last_loc = r.loc;
	if (__builtin_expect(++g_run.instructions > g_run.instruction_budget, 0))
		finish_error("timeout", "timeout", r.loc.file, r.loc.line,
			     strprintf("the kernel ran past its budget of %llu instructions (last: %s); it may never finish",
				       (unsigned long long)g_run.instruction_budget, r.name));
	core_private *p = g_core->priv;
	if (g_run.track_sync && r.pipe < PIPE_ID_COUNT && r.pipe != PIPE_ID_S)
		inherit_scalar(p, r.pipe);
	switch (r.kind) {
	case INSTR_SET_FLAG:
		if (r.event_id >= 0 && slot(r.event, r.event_id).owner == FLAG_QUEUE)
			violation("unpaired_flag", r.loc, "SetFlag<%s>(%d) collides with a flag a queue is using",
				  hard_event_name(r.event), r.event_id);
		if (g_run.track_sync && r.pipe < PIPE_ID_COUNT)
			p->seq[r.pipe]++;
		flag_set(r.event, r.event_id, r.pipe, r.loc);
		break;
	case INSTR_WAIT_FLAG:
		if (g_run.track_sync && r.pipe < PIPE_ID_COUNT)
			p->seq[r.pipe]++;
		if (!flag_wait(r.event, r.event_id, r.pipe))
			violation("unpaired_flag", r.loc,
				  "WaitFlag<%s>(%d) has no matching SetFlag before it; hardware would wait forever",
				  hard_event_name(r.event), r.event_id);
		break;
	case INSTR_BARRIER:
		if (r.barrier == PIPE_ID_ALL)
			sync_apply_all(p);
		else if (r.barrier < PIPE_ID_COUNT)
			p->barrier[r.barrier] = p->seq[r.barrier];
		break;
	case INSTR_SYNC_ALL:
		sync_apply_all(p);
		break;
	case INSTR_VECTOR:
	case INSTR_COPY_IN:
	case INSTR_COPY_OUT:
	case INSTR_COPY_LOCAL:
	case INSTR_SCALAR_READ:
	case INSTR_SCALAR_WRITE:
		if (g_run.track_sync)
			track(r);
		break;
	default:
		break;
	}
	if (observer)
		observer(r, observer_ctx);
}

// ---- queues --------------------------------------------------------------------

enum slot_state : uint8_t { SLOT_FREE = 0, SLOT_ALLOCATED, SLOT_ENQUEUED };

void queue_setup(queue_state *q, int pos_src, int pos_dst, int32_t depth)
{
	using AscendC::TPosition;
	std::memset(q, 0, sizeof *q);
	q->depth = depth;
	q->position = (uint8_t)pos_dst;
	q->producer = q->consumer = PIPE_ID_NONE;
	for (int i = 0; i < QUEUE_MAX_SLOTS; i++)
		q->enq_event[i] = q->free_event[i] = -1;
	q->free_id = -1;
	TPosition s = (TPosition)pos_src, d = (TPosition)pos_dst;
	auto vec = [](TPosition p) { return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC; };
	if (s == d) {
		if (d == TPosition::VECIN) {
			q->producer = PIPE_ID_MTE2;
			q->consumer = PIPE_ID_V;
		} else if (d == TPosition::VECOUT) {
			q->producer = PIPE_ID_V;
			q->consumer = PIPE_ID_MTE3;
		} else if (d != TPosition::VECCALC) {
			q->position = 0xff; /* cube-side position: refused at InitBuffer */
		}
	} else if ((s == TPosition::GM || s == TPosition::VECIN) && d == TPosition::VECOUT) {
		q->producer = PIPE_ID_MTE2;
		q->consumer = PIPE_ID_MTE3;
	} else if (s == TPosition::GM && d == TPosition::VECIN) {
		q->producer = PIPE_ID_MTE2;
		q->consumer = PIPE_ID_V;
	} else if (s == TPosition::VECOUT && d == TPosition::GM) {
		q->producer = PIPE_ID_V;
		q->consumer = PIPE_ID_MTE3;
	} else if (!(vec(s) && vec(d))) {
		q->position = 0xff;
	}
}

static void queue_ready(queue_state *q, const char *api, srcloc loc)
{
	if (q->position == 0xff)
		unsupported(loc, "%s on a queue bound to a cube-side position", api);
	if (!q->ready)
		fail("queue_misuse", loc, "%s on a queue that TPipe::InitBuffer never set up", api);
}

// A free flag was waited: the id goes back once no free is pending on it.
static void queue_free_id_release(queue_state *q, int ev, int id)
{
	if (slot(ev, id).pending)
		return;
	slot(ev, id).owner = FLAG_FREE;
	if (q->free_id == id)
		q->free_id = -1;
}

static int queue_slot_of(queue_state *q, uint32_t off, const char *api, srcloc loc)
{
	if (off >= q->base && off < q->base + (uint32_t)q->num * q->len && (off - q->base) % q->len == 0)
		return (int)((off - q->base) / q->len);
	fail("queue_misuse", loc, "%s of the tensor at UB 0x%x, which is not one of this queue's %u buffers at UB 0x%x", api,
	     off, q->num, q->base);
}

static void queue_instr(const char *name, uint8_t kind, uint8_t pipe, int event, int id, srcloc loc, uint32_t off,
			uint32_t len)
{
	instr r{};
	r.name = name;
	r.loc = loc;
	r.kind = kind;
	r.pipe = pipe;
	r.event = (uint8_t)(event < 0 ? 0xff : event);
	r.event_id = (int8_t)id;
	r.dst = ub_span{off, off + len};
	issue(r);
}

uint32_t queue_alloc(queue_state *q, srcloc loc)
{
	queue_ready(q, "AllocTensor", loc);
	/* Round-robin from the buffer after the last one handed out, so that a
	 * queue of depth 2 ping-pongs between its buffers. */
	for (int k = 0; k < q->num; k++) {
		int i = (q->next_alloc + k) % q->num;
		if (q->slot_state[i] != SLOT_FREE)
			continue;
		q->next_alloc = (uint8_t)((i + 1) % q->num);
		q->slot_state[i] = SLOT_ALLOCATED;
		int ev = -1, id = q->free_event[i];
		if (id >= 0) {
			/* Wait for the consumer to have finished with the slot. */
			ev = hard_event_for(q->consumer, q->producer);
			flag_wait(ev, id, q->producer);
			queue_free_id_release(q, ev, id);
			q->free_event[i] = -1;
		}
		uint32_t off = q->base + (uint32_t)i * q->len;
		queue_instr("AllocTensor", INSTR_QUEUE_ALLOC, q->producer == PIPE_ID_NONE ? (uint8_t)PIPE_ID_V : q->producer, ev, id,
			    loc, off, q->len);
		return off;
	}
	fail("queue_misuse", loc,
	     "AllocTensor with no free buffer: all %u buffers of the queue are allocated or enqueued; hardware would "
	     "deadlock",
	     q->num);
}

static void enque(queue_state *q, uint32_t off, uint8_t from, uint8_t to, uint8_t pos, srcloc loc)
{
	queue_ready(q, "EnQue", loc);
	int i = queue_slot_of(q, off, "EnQue", loc);
	if (q->slot_state[i] != SLOT_ALLOCATED)
		fail("queue_misuse", loc, "EnQue of buffer %d at UB 0x%x, which is %s", i, off,
		     q->slot_state[i] == SLOT_FREE ? "not allocated" : "already enqueued");
	if (q->fifo_count >= q->depth)
		fail("queue_misuse", loc, "EnQue past the queue depth of %d: %u tensors are already enqueued", q->depth,
		     q->fifo_count);
	q->slot_state[i] = SLOT_ENQUEUED;
	q->fifo[(q->fifo_head + q->fifo_count) % QUEUE_MAX_SLOTS] = (uint8_t)i;
	q->fifo_count++;
	q->enq_from[i] = from;
	q->enq_to[i] = to;
	q->enq_pos[i] = pos;
	int ev = -1, id = -1;
	if (from != PIPE_ID_NONE) {
		ev = hard_event_for(from, to);
		id = queue_event_take(ev, "EnQue", loc);
		flag_set(ev, id, from, loc);
		q->enq_event[i] = (int8_t)id;
	}
	queue_instr("EnQue", INSTR_QUEUE_ENQUE, from == PIPE_ID_NONE ? (uint8_t)PIPE_ID_V : from, ev, id, loc, off, q->len);
}

void queue_enque(queue_state *q, uint32_t off, srcloc loc)
{
	enque(q, off, q->producer, q->consumer, 0, loc);
}

/*
 * The pipes between two user positions of a bound VECIN/VECOUT queue, on
 * the one path CANN's EnQue reference allows, GM -> UB (VECIN or VECOUT)
 * -> GM: data comes into VECIN or from GM by MTE2 and into VECOUT from
 * the vector unit; it leaves VECIN for the vector unit, VECOUT or GM by
 * MTE3.  false for another pair.
 */
static bool user_pipes(int pos_src, int pos_dst, uint8_t *from, uint8_t *to)
{
	using AscendC::TPosition;
	TPosition s = (TPosition)pos_src, d = (TPosition)pos_dst;
	bool ub_s = s == TPosition::VECIN || s == TPosition::VECOUT, ub_d = d == TPosition::VECIN || d == TPosition::VECOUT;
	if (!((s == TPosition::GM && ub_d) || (ub_s && (d == TPosition::GM || ub_d)) ) || s == d)
		return false;
	*from = s == TPosition::VECOUT ? PIPE_ID_V : PIPE_ID_MTE2;
	*to = d == TPosition::VECIN ? PIPE_ID_V : PIPE_ID_MTE3;
	return true;
}

void queue_enque_at(queue_state *q, uint32_t off, int pos_src, int pos_dst, srcloc loc)
{
	uint8_t from, to;
	if (!user_pipes(pos_src, pos_dst, &from, &to))
		fail("queue_misuse", loc,
		     "EnQue<%d, %d>: a queue hands a tensor on only along GM -> VECIN or VECOUT -> GM (TPosition values)",
		     pos_src, pos_dst);
	enque(q, off, from, to, (uint8_t)(pos_src << 4 | pos_dst), loc);
}

uint32_t queue_deque(queue_state *q, srcloc loc)
{
	queue_ready(q, "DeQue", loc);
	if (q->fifo_count == 0)
		fail("queue_misuse", loc, "DeQue with nothing enqueued; hardware would wait forever");
	int i = q->fifo[q->fifo_head];
	q->fifo_head = (uint8_t)((q->fifo_head + 1) % QUEUE_MAX_SLOTS);
	q->fifo_count--;
	q->slot_state[i] = SLOT_ALLOCATED;
	int ev = -1, id = q->enq_event[i];
	uint8_t to = q->enq_to[i];
	if (id >= 0) {
		ev = hard_event_for(q->enq_from[i], to);
		flag_wait(ev, id, to);
		slot(ev, id).owner = FLAG_FREE;
		q->enq_event[i] = -1;
	}
	uint32_t off = q->base + (uint32_t)i * q->len;
	queue_instr("DeQue", INSTR_QUEUE_DEQUE, to == PIPE_ID_NONE ? (uint8_t)PIPE_ID_V : to, ev, id, loc, off, q->len);
	return off;
}

uint32_t queue_deque_at(queue_state *q, int pos_src, int pos_dst, srcloc loc)
{
	queue_ready(q, "DeQue", loc);
	if (q->fifo_count && q->enq_pos[q->fifo[q->fifo_head]] != (uint8_t)(pos_src << 4 | pos_dst))
		fail("queue_misuse", loc, "DeQue<%d, %d> of a tensor that was not enqueued between those positions",
		     pos_src, pos_dst);
	return queue_deque(q, loc);
}

void queue_free(queue_state *q, uint32_t off, srcloc loc)
{
	queue_ready(q, "FreeTensor", loc);
	int i = queue_slot_of(q, off, "FreeTensor", loc);
	if (q->slot_state[i] != SLOT_ALLOCATED)
		fail("queue_misuse", loc, "FreeTensor of buffer %d at UB 0x%x, which is %s", i, off,
		     q->slot_state[i] == SLOT_FREE ? "already free" : "still enqueued (DeQue it first)");
	q->slot_state[i] = SLOT_FREE;
	int ev = -1, id = -1;
	if (q->producer != PIPE_ID_NONE) {
		/* Frees pending on several buffers (round-robin allocation) count up
		 * one flag per queue, so a queue holds one id however deep it is. */
		ev = hard_event_for(q->consumer, q->producer);
		if (q->free_id >= 0 && slot(ev, q->free_id).owner == FLAG_QUEUE && slot(ev, q->free_id).pending > 0) {
			id = q->free_id;
		} else {
			id = queue_event_take(ev, "FreeTensor", loc);
			q->free_id = (int8_t)id;
		}
		flag_set(ev, id, q->consumer, loc);
		q->free_event[i] = (int8_t)id;
	}
	queue_instr("FreeTensor", INSTR_QUEUE_FREE, q->consumer == PIPE_ID_NONE ? (uint8_t)PIPE_ID_V : q->consumer, ev, id, loc,
		    off, q->len);
}

int queue_vacant(const queue_state *q)
{
	return q->fifo_count < q->depth;
}

int queue_count(const queue_state *q)
{
	return q->fifo_count;
}

bool queue_has_idle(const queue_state *q)
{
	for (int i = 0; i < q->num; i++)
		if (q->slot_state[i] == SLOT_FREE)
			return true;
	return false;
}

// The pipe's teardown waits any free flags still pending; so does Reset.
void queue_release(queue_state *q)
{
	if (!g_core)
		return;
	for (int i = 0; i < q->num && i < QUEUE_MAX_SLOTS; i++) {
		if (q->free_event[i] >= 0) {
			int ev = hard_event_for(q->consumer, q->producer);
			flag_wait(ev, q->free_event[i], q->producer);
			timing_flag_drop(ev, q->free_event[i]);
			queue_free_id_release(q, ev, q->free_event[i]);
			q->free_event[i] = -1;
		}
	}
	q->ready = false;
}

// ---- UB and GM -------------------------------------------------------------------

uint32_t ub_reserve(uint32_t *cursor, uint32_t bytes, const char *what, srcloc loc)
{
	uint64_t end = (uint64_t)*cursor + bytes;
	if (end > g_run.ub_limit)
		fail("ub_overflow", loc,
		     "%s of %u bytes at UB offset %u needs %llu bytes in all, over the %u bytes InitBuffer may use on %s", what,
		     bytes, *cursor, (unsigned long long)end, g_run.ub_limit, g_platform.infos.soc_version.c_str());
	uint32_t off = *cursor;
	*cursor = (uint32_t)end;
	if (g_core->priv->ub_peak < *cursor)
		g_core->priv->ub_peak = *cursor;
	return off;
}

void gm_check_slow(const gm_region *r, const void *view, uint64_t view_bytes, const void *addr, uint64_t bytes,
		   const char *api, srcloc loc)
{
	const uint8_t *a = (const uint8_t *)addr;
	if (!r)
		fail("out_of_bounds", loc,
		     "%s: the GlobalTensor's buffer %p is not inside any GM allocation (was SetGlobalBuffer called with a "
		     "kernel argument?)",
		     api, addr);
	if (a < r->begin || a + bytes > r->end)
		fail("out_of_bounds", loc,
		     "%s: %llu bytes at offset %lld of GM buffer '%s' (%llu data bytes, %llu allocated) run past the "
		     "allocation",
		     api, (unsigned long long)bytes, (long long)(a - r->begin), r->name,
		     (unsigned long long)(r->data_end - r->begin), (unsigned long long)(r->end - r->begin));
	const uint8_t *v = (const uint8_t *)view;
	if (a < v || (uint64_t)(a - v) + bytes > view_bytes)
		warn(loc,
		     "%s: %llu bytes at offset %lld of GM buffer '%s' lie outside the %llu bytes given to SetGlobalBuffer "
		     "(inside the allocation)",
		     api, (unsigned long long)bytes, (long long)(a - r->begin), r->name, (unsigned long long)view_bytes);
	if (a + bytes > r->data_end)
		warn(loc,
		     "%s: %llu bytes at offset %lld of GM buffer '%s' reach past its %llu data bytes into the allocation's "
		     "padding",
		     api, (unsigned long long)bytes, (long long)(a - r->begin), r->name,
		     (unsigned long long)(r->data_end - r->begin));
}

} // namespace ascendsim
