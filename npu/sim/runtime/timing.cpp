// SPDX-License-Identifier: MIT
//
// The deterministic cycle model of a 910B vector core.  Every instruction the
// kernel issues is priced here, in program order per core: S issues in order
// and charges scalar cycles (API calls, GetValue/SetValue, and the basic
// blocks the kernel's own code executes, counted by
// -fsanitize-coverage=trace-pc); V, MTE2 and MTE3 each keep a timeline, and
// an instruction starts when its pipe is free, its flags are set and S has
// issued it.  Copies share the core's GM port with the other MTE pipe; the
// port's capacity is the platform's GM bandwidth divided statically among
// the cores of the launch.  Every constant comes from the platform profile's
// "timing" object.  Nothing here depends on host timing or thread order.
#include <jansson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "internal.h"

// Executed basic blocks of the kernel translation unit, when it is compiled
// with -fsanitize-coverage=trace-pc.  The shim headers mark themselves
// no_sanitize_coverage, so only the operator's own code is counted.
static uint64_t bb_count;

extern "C" __attribute__((visibility("default"))) void __sanitizer_cov_trace_pc(void)
{
	bb_count++;
}

namespace ascendsim {

namespace {

enum stall_cause : uint8_t {
	ST_MTE2_V,       /* V waited for data MTE2 was bringing in */
	ST_V_MTE3,       /* MTE3 waited for V to produce what it writes out */
	ST_BUFFER_FREE,  /* a producer waited for a consumer to release a buffer */
	ST_PIPE_ALL,     /* PipeBarrier<PIPE_ALL> drained every pipe */
	ST_SYNC_ALL,     /* waiting for the other cores at SyncAll */
	ST_SCALAR_ISSUE, /* a pipe idled because S had not issued its next instruction */
	ST_V_DEP,        /* V waited for its own earlier result (PIPE_V barrier, auto-sync) */
	ST_AUTO_SYNC,    /* other waits auto-sync inserted for UB hazards */
	ST_FLAG,         /* other explicit SetFlag/WaitFlag pairs */
	ST_QUEUE_FULL,   /* S waited for room in a pipe's instruction queue */
	ST_COUNT
};

const char *const stall_names[ST_COUNT] = {"mte2_v",       "v_mte3",    "buffer_free", "pipe_all",
					   "sync_all",     "scalar_issue", "v_dependency", "auto_sync",
					   "other_flag",   "issue_queue"};

enum { QDEPTH_MAX = 64, FLAG_FIFO = 16 };

struct op_cost {
	std::string name;
	double repeat_factor = 1; /* multiplies the cycles per repeat */
	double issue_factor = 1;  /* multiplies the head latency (library calls built of several) */
};

struct params {
	double clock_mhz = 1850;
	uint32_t cores = 48;
	/* scalar */
	double s_issue = 4, s_queue = 12, s_flag = 2, s_barrier = 2, s_ub_read = 12, s_ub_write = 10;
	double s_gm_read = 60, s_gm_write = 40, s_bb = 1, s_tiling_per_byte = 0.5, s_dcache_line = 4;
	uint32_t queue_depth = 32;
	/* vector */
	double v_head = 22, v_gap = 4, v_cpr = 1, v_beat = 1, v_half_reduce = 1;
	uint32_t v_max_repeat = 255;
	std::vector<op_cost> ops;
	/* UB banks */
	uint32_t ub_block = 32, bank_groups = 16, banks = 48, bank_bytes = 4096;
	/* MTE */
	double copy_latency = 110, pipe_bpc = 34, misaligned_eff = 0.7, row_cycles = 2, pad_fixed = 40, pad_row = 8;
	double gm_normal_bpc = 0, gm_bypass_bpc = 0, l2_hit_bpc = 0, atomic_factor = 2, ub_local_bpc = 128;
	uint32_t fast_align = 512;
	std::vector<uint32_t> bursts{128, 256, 512};
	double l2_usable = 0;
	/* cores, launch */
	double sync_all_cycles = 500;
	double launch_base_us = 0.5, launch_per_block_us = 0.14, launch_wave_block_us = 0.05, aiv_only_factor = 0.6;
	double hbm_peak = 0; /* bytes/s, the roofline's */
};

params P;

struct pipe_tl {
	double free = 0;      /* when the pipe accepts its next instruction */
	double tail = 0;      /* when everything issued to it has completed */
	double gate = 0;      /* no instruction starts before this (flags, barriers) */
	uint8_t gate_cause = ST_FLAG;
	double busy = 0;      /* union of [start, complete] */
	double busy_end = 0;
	double ring[QDEPTH_MAX]; /* start times of the last queue_depth instructions */
	uint64_t issued = 0;
};

struct flag_fifo {
	double t[FLAG_FIFO];
	uint8_t head, count;
};

struct ub_time {
	double w_done;
	double r_done[PIPE_ID_COUNT];
	uint8_t w_pipe;
};

struct port_seg {
	double t0, t1, used;
};

struct trace_span {
	uint32_t core;
	uint8_t pipe;
	double t0, t1;
	const char *name;
};

} // namespace

struct core_timing {
	uint32_t block = 0, slot = 0;
	double start = 0;
	double s = 0;
	pipe_tl p[PIPE_ID_COUNT];
	double stall[ST_COUNT];
	double s_busy = 0;
	uint64_t bb_mark = 0, bbs = 0;
	flag_fifo flags[EVENT_TYPES][EVENT_IDS];
	std::vector<ub_time> ub;
	uint32_t ub_lo = UINT32_MAX, ub_hi = 0; /* blocks written since the reset */
	std::vector<port_seg> port;
	double s_span0 = -1, s_span1 = -1; /* the S trace span being extended */
	uint64_t bytes_in = 0, bytes_out = 0, copies = 0, copy_bytes = 0, gm_bytes = 0, aligned_bytes = 0;
	uint64_t v_repeats = 0, v_instrs = 0;
	double v_conflict = 0; /* V cycles lost to UB bank conflicts */
};

namespace {

struct block_result {
	uint32_t slot;
	double start, end;
	double busy[PIPE_ID_COUNT];
	double stall[ST_COUNT];
	uint64_t bytes_in, bytes_out, copies, copy_bytes, gm_bytes, aligned_bytes, v_repeats, v_instrs, bbs;
	double v_conflict;
	uint32_t ub_peak;
};

struct l2_region {
	uint32_t shift = 9;
	std::vector<uint64_t> stamp;
};

struct launch_state {
	uint32_t block_dim = 0, active = 1;
	std::vector<double> slot_end;
	std::vector<block_result> blocks;
	std::vector<core_timing *> pool;
	int task_type = -1; /* -1: KERNEL_TASK_TYPE_DEFAULT never called */
	bool task_type_mixed = false;
	/* L2: a clock of bytes allocated, and per-chunk allocation stamps */
	uint64_t l2_clock = 1;
	std::unordered_map<const gm_region *, l2_region> l2;
	/* trace */
	std::string trace_path;
	uint64_t trace_max = 0;
	bool trace_truncated = false;
	std::vector<trace_span> trace;
	/* jitter */
	double jitter_pct = 0;
	double slow_us = 0;     /* stop a launch whose time passes this; 0: never */
	double slow_cycles = 0; /* the same in cycles, set at launch */
	uint64_t jitter_seed = 0;
	uint32_t samples = 1;
	std::unordered_map<const char *, const op_cost *> op_cache;
};

launch_state L;
const op_cost default_op{};

// ---- configuration ----------------------------------------------------------------

[[noreturn]] void config_error(const std::string &what)
{
	std::fprintf(stderr, "ascendsim: spec: platform timing: %s\n", what.c_str());
	std::exit(65);
}

double jnum(json_t *o, const char *key, bool required = true, double dflt = 0)
{
	json_t *v = json_object_get(o, key);
	if (!v) {
		if (required)
			config_error(std::string("'") + key + "' is missing");
		return dflt;
	}
	if (!json_is_number(v))
		config_error(std::string("'") + key + "' must be a number");
	return json_number_value(v);
}

json_t *jobj(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_object(v))
		config_error(std::string("'") + key + "' must be an object");
	return v;
}

} // namespace

void timing_configure(json_t *platform)
{
	params p;
	p.clock_mhz = jnum(platform, "clock_mhz");
	p.cores = (uint32_t)jnum(jobj(platform, "cores"), "aiv");
	json_t *mem = jobj(platform, "memory");
	p.ub_block = (uint32_t)jnum(mem, "ub_block_bytes");
	p.bank_groups = (uint32_t)jnum(mem, "ub_bank_groups");
	p.banks = p.bank_groups * (uint32_t)jnum(mem, "ub_banks_per_group");
	p.bank_bytes = (uint32_t)jnum(mem, "ub_bank_bytes");
	double l2_bytes = jnum(mem, "l2_bytes");
	json_t *bw = jobj(platform, "bandwidth");
	p.hbm_peak = jnum(bw, "hbm_peak_bytes_per_s");
	double hz = p.clock_mhz * 1e6;
	json_t *t = jobj(platform, "timing");
	json_t *s = jobj(t, "scalar");
	p.s_issue = jnum(s, "issue_cycles");
	p.s_queue = jnum(s, "queue_op_cycles");
	p.s_flag = jnum(s, "flag_cycles");
	p.s_barrier = jnum(s, "barrier_cycles");
	p.s_ub_read = jnum(s, "ub_read_cycles");
	p.s_ub_write = jnum(s, "ub_write_cycles");
	p.s_gm_read = jnum(s, "gm_read_cycles");
	p.s_gm_write = jnum(s, "gm_write_cycles");
	p.s_bb = jnum(s, "basic_block_cycles");
	p.s_tiling_per_byte = jnum(s, "tiling_load_cycles_per_byte");
	p.s_dcache_line = jnum(s, "dcache_line_cycles", false, p.s_dcache_line);
	p.queue_depth = (uint32_t)jnum(s, "issue_queue_depth");
	if (p.queue_depth < 1 || p.queue_depth > QDEPTH_MAX)
		config_error("scalar.issue_queue_depth must be 1..64");
	json_t *v = jobj(t, "vector");
	p.v_head = jnum(v, "head_cycles");
	p.v_gap = jnum(v, "issue_gap_cycles");
	p.v_cpr = jnum(v, "cycles_per_repeat");
	p.v_beat = jnum(v, "bank_conflict_beat_cycles");
	p.v_max_repeat = (uint32_t)jnum(v, "max_repeat");
	p.v_half_reduce = jnum(v, "half_reduce_factor");
	json_t *ops = json_object_get(v, "op_classes");
	if (ops) {
		if (!json_is_object(ops))
			config_error("vector.op_classes must be an object");
		const char *k;
		json_t *e;
		json_object_foreach(ops, k, e)
		{
			if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_number(json_array_get(e, 0)) ||
			    !json_is_number(json_array_get(e, 1)))
				config_error(std::string("vector.op_classes.") + k + " must be [repeat_factor, issue_factor]");
			op_cost c;
			c.name = k;
			c.repeat_factor = json_number_value(json_array_get(e, 0));
			c.issue_factor = json_number_value(json_array_get(e, 1));
			p.ops.push_back(c);
		}
	}
	json_t *m = jobj(t, "mte");
	p.copy_latency = jnum(m, "copy_latency_cycles");
	p.pipe_bpc = jnum(m, "pipe_peak_bytes_per_cycle");
	p.gm_normal_bpc = jnum(m, "gm_bytes_per_s") / hz;
	p.gm_bypass_bpc = jnum(m, "gm_l2_bypass_bytes_per_s") / hz;
	p.l2_hit_bpc = jnum(m, "l2_hit_bytes_per_s") / hz;
	p.misaligned_eff = jnum(m, "misaligned_efficiency");
	p.fast_align = (uint32_t)jnum(m, "fast_alignment_bytes");
	p.row_cycles = jnum(m, "row_cycles");
	p.pad_fixed = jnum(m, "pad_fixed_cycles");
	p.pad_row = jnum(m, "pad_row_cycles");
	p.atomic_factor = jnum(m, "atomic_factor");
	p.ub_local_bpc = jnum(m, "ub_to_ub_bytes_per_cycle");
	p.l2_usable = l2_bytes * jnum(m, "l2_usable_fraction");
	json_t *bursts = json_object_get(bw, "gm_burst_bytes");
	if (json_is_array(bursts) && json_array_size(bursts)) {
		p.bursts.clear();
		size_t i;
		json_t *b;
		json_array_foreach(bursts, i, b) p.bursts.push_back((uint32_t)json_integer_value(b));
		std::sort(p.bursts.begin(), p.bursts.end());
	}
	json_t *c = jobj(t, "cores");
	p.sync_all_cycles = jnum(c, "sync_all_cycles");
	p.launch_base_us = jnum(c, "launch_base_us");
	p.launch_per_block_us = jnum(c, "launch_per_block_us");
	p.launch_wave_block_us = jnum(c, "launch_extra_wave_block_us");
	p.aiv_only_factor = jnum(c, "aiv_only_launch_factor");
	if (p.clock_mhz <= 0 || p.pipe_bpc <= 0 || p.gm_normal_bpc <= 0 || p.gm_bypass_bpc <= 0 || p.l2_hit_bpc <= 0 ||
	    p.misaligned_eff <= 0 || p.misaligned_eff > 1 || p.fast_align == 0 || p.bank_groups == 0 || p.banks == 0 ||
	    p.bank_bytes == 0 || p.ub_block == 0)
		config_error("figures must be positive (clock, bandwidths, alignment, UB banks)");
	if (p.gm_normal_bpc * hz > p.hbm_peak * 1.000001 || p.gm_bypass_bpc * hz > p.hbm_peak * 1.000001)
		config_error("the achievable GM bandwidths exceed bandwidth.hbm_peak_bytes_per_s, which would let a result "
			     "beat its roofline");
	P = p;
}

void timing_set_trace(const char *path, uint64_t max_events)
{
	L.trace_path = path ? path : "";
	L.trace_max = max_events;
}

void timing_set_jitter(double pct, uint64_t seed, uint32_t samples)
{
	L.jitter_pct = pct;
	L.jitter_seed = seed;
	L.samples = samples ? samples : 1;
}

void timing_set_slow_limit(double us)
{
	L.slow_us = us > 0 ? us : 0;
}

void timing_task_type(int type)
{
	L.task_type = type;
}

double timing_launch_us(uint32_t blocks, bool aiv_only)
{
	uint32_t n = blocks < P.cores ? blocks : P.cores;
	if (n == 0)
		n = 1;
	double us = P.launch_base_us + P.launch_per_block_us * (n - 1);
	if (blocks > P.cores)
		us += P.launch_wave_block_us * (blocks - P.cores);
	return aiv_only ? us * P.aiv_only_factor : us;
}

double timing_hbm_peak_bytes_per_s()
{
	return P.hbm_peak;
}

double timing_vector_peak_bytes_per_s()
{
	return 256.0 / P.v_cpr * P.clock_mhz * 1e6 * P.cores;
}

namespace {

// ---- the instruction observer ---------------------------------------------------------

inline core_timing *cur()
{
	return g_core && g_core->priv ? g_core->priv->tm : nullptr;
}

void trace_add(core_timing *c, uint8_t pipe, double t0, double t1, const char *name)
{
	if (L.trace_path.empty() || t1 <= t0)
		return;
	if (L.trace.size() >= L.trace_max) {
		L.trace_truncated = true;
		return;
	}
	L.trace.push_back(trace_span{c->block, pipe, t0, t1, name});
}

// S spans are merged while contiguous, so a scalar loop is one long span.
void trace_s(core_timing *c, double t0, double t1)
{
	if (L.trace_path.empty())
		return;
	if (t0 <= c->s_span1 + 1e-9 && c->s_span0 >= 0) {
		c->s_span1 = t1;
		return;
	}
	if (c->s_span0 >= 0)
		trace_add(c, PIPE_ID_S, c->s_span0, c->s_span1, "scalar");
	c->s_span0 = t0;
	c->s_span1 = t1;
}

void s_charge(core_timing *c, double cycles)
{
	if (cycles <= 0)
		return;
	trace_s(c, c->s, c->s + cycles);
	c->s += cycles;
	c->s_busy += cycles;
}

void s_wait(core_timing *c, double t, uint8_t cause)
{
	if (t > c->s) {
		c->stall[cause] += t - c->s;
		c->s = t;
	}
}

void flush_bb(core_timing *c)
{
	uint64_t n = bb_count - c->bb_mark;
	if (n) {
		c->bb_mark = bb_count;
		c->bbs += n;
		s_charge(c, (double)n * P.s_bb);
	}
}

// The cause a wait on `event` is reported under.
uint8_t cause_of_event(uint8_t event)
{
	using AscendC::HardEvent;
	switch ((HardEvent)event) {
	case HardEvent::MTE2_V: return ST_MTE2_V;
	case HardEvent::V_MTE3: return ST_V_MTE3;
	case HardEvent::V_MTE2:
	case HardEvent::MTE3_V:
	case HardEvent::MTE3_MTE2: return ST_BUFFER_FREE;
	default: return ST_FLAG;
	}
}

// When a flag set on `pipe` fires: once everything issued before it to that
// pipe has completed (for S, at once).
double flag_time(core_timing *c, uint8_t pipe)
{
	if (pipe >= PIPE_ID_COUNT || pipe == PIPE_ID_S)
		return c->s;
	return std::max(c->s, c->p[pipe].tail);
}

void flag_push(core_timing *c, int event, int id, double t)
{
	if (event < 0 || event >= EVENT_TYPES || id < 0 || id >= EVENT_IDS)
		return;
	flag_fifo &f = c->flags[event][id];
	if (f.count == FLAG_FIFO) { /* keep the newest time in the last slot */
		double &last = f.t[(f.head + f.count - 1) % FLAG_FIFO];
		last = std::max(last, t);
		return;
	}
	f.t[(f.head + f.count) % FLAG_FIFO] = t;
	f.count++;
}

double flag_pop(core_timing *c, int event, int id)
{
	if (event < 0 || event >= EVENT_TYPES || id < 0 || id >= EVENT_IDS)
		return 0;
	flag_fifo &f = c->flags[event][id];
	if (!f.count)
		return 0;
	double t = f.t[f.head];
	f.head = (uint8_t)((f.head + 1) % FLAG_FIFO);
	f.count--;
	return t;
}

void gate_raise(core_timing *c, uint8_t pipe, double t, uint8_t cause)
{
	if (pipe == PIPE_ID_S) {
		s_wait(c, t, cause);
		return;
	}
	if (pipe >= PIPE_ID_COUNT)
		return;
	pipe_tl &pl = c->p[pipe];
	if (t > pl.gate) {
		pl.gate = t;
		pl.gate_cause = cause;
	}
}

// ---- UB hazards (auto-sync) --------------------------------------------------------------

struct hazard {
	double t = 0;
	uint8_t cause = ST_AUTO_SYNC;
	void raise(double x, uint8_t why)
	{
		if (x > t) {
			t = x;
			cause = why;
		}
	}
};

inline bool span_ok(const ub_span &s)
{
	return s.end > s.begin;
}

uint8_t raw_cause(uint8_t pipe, uint8_t writer)
{
	if (pipe == PIPE_ID_V && writer == PIPE_ID_V)
		return ST_V_DEP;
	if (pipe == PIPE_ID_V && writer == PIPE_ID_MTE2)
		return ST_MTE2_V;
	if (pipe == PIPE_ID_MTE3 && writer == PIPE_ID_V)
		return ST_V_MTE3;
	return ST_AUTO_SYNC;
}

// The waits the compiler inserts with auto-sync on: a read waits for the
// last writer of each 32-byte block on another pipe (or on V, whose
// instructions pipeline), a write waits for earlier readers and writers on
// other pipes.  In-order MTE pipes need nothing against themselves.
hazard ub_hazards(core_timing *c, const instr &r, uint8_t pipe)
{
	hazard h;
	if (!g_run.auto_sync || c->ub.empty())
		return h;
	uint32_t nb = (uint32_t)c->ub.size();
	for (int i = 0; i < 3; i++) {
		const ub_span &sp = r.src[i];
		if (!span_ok(sp))
			continue;
		uint32_t b1 = std::min((sp.end - 1) / 32, nb - 1);
		for (uint32_t b = sp.begin / 32; b <= b1; b++) {
			const ub_time &u = c->ub[b];
			if (u.w_pipe != PIPE_ID_NONE && (u.w_pipe != pipe || pipe == PIPE_ID_V || pipe == PIPE_ID_S))
				h.raise(u.w_done, raw_cause(pipe, u.w_pipe));
		}
	}
	for (const ub_span *w : {&r.dst, r.scratch ? &r.src[2] : nullptr}) {
		if (!w || !span_ok(*w))
			continue;
		uint32_t b1 = std::min((w->end - 1) / 32, nb - 1);
		for (uint32_t b = w->begin / 32; b <= b1; b++) {
			const ub_time &u = c->ub[b];
			if (u.w_pipe != PIPE_ID_NONE && u.w_pipe != pipe)
				h.raise(u.w_done, ST_BUFFER_FREE);
			for (uint8_t q = 0; q < PIPE_ID_COUNT; q++)
				if (q != pipe)
					h.raise(u.r_done[q], ST_BUFFER_FREE);
		}
	}
	return h;
}

void ub_record(core_timing *c, const instr &r, uint8_t pipe, double done)
{
	if (c->ub.empty())
		return;
	uint32_t nb = (uint32_t)c->ub.size();
	for (int i = 0; i < 3; i++) {
		const ub_span &sp = r.src[i];
		if (!span_ok(sp))
			continue;
		uint32_t b1 = std::min((sp.end - 1) / 32, nb - 1);
		for (uint32_t b = sp.begin / 32; b <= b1; b++)
			if (c->ub[b].r_done[pipe] < done)
				c->ub[b].r_done[pipe] = done;
	}
	for (const ub_span *w : {&r.dst, r.scratch ? &r.src[2] : nullptr}) {
		if (!w || !span_ok(*w))
			continue;
		uint32_t b1 = std::min((w->end - 1) / 32, nb - 1);
		for (uint32_t b = w->begin / 32; b <= b1; b++) {
			c->ub[b].w_done = done;
			c->ub[b].w_pipe = pipe;
		}
		c->ub_lo = std::min(c->ub_lo, w->begin / 32);
		c->ub_hi = std::max(c->ub_hi, b1 + 1);
	}
	for (int i = 0; i < 3; i++)
		if (span_ok(r.src[i])) {
			c->ub_lo = std::min(c->ub_lo, r.src[i].begin / 32);
			c->ub_hi = std::max(c->ub_hi, std::min((r.src[i].end - 1) / 32, nb - 1) + 1);
		}
}

// ---- dispatch to a pipe ------------------------------------------------------------------

// S issues the instruction (after waiting for room in the pipe's queue);
// returns the earliest start and the cause of the constraint that set it.
double dispatch(core_timing *c, uint8_t pipe, double s_cost, const hazard &hz, uint8_t *ret_cause)
{
	pipe_tl &pl = c->p[pipe];
	if (pl.issued >= P.queue_depth)
		s_wait(c, pl.ring[pl.issued % P.queue_depth], ST_QUEUE_FULL);
	s_charge(c, s_cost);
	double start = c->s;
	uint8_t cause = ST_SCALAR_ISSUE;
	if (pl.gate > start) {
		start = pl.gate;
		cause = pl.gate_cause;
	}
	if (hz.t > start) {
		start = hz.t;
		cause = hz.cause;
	}
	if (start > pl.free) {
		c->stall[cause] += start - pl.free;
	} else {
		start = pl.free;
	}
	*ret_cause = cause;
	return start;
}

void retire(core_timing *c, uint8_t pipe, double start, double free, double done, const char *name)
{
	pipe_tl &pl = c->p[pipe];
	pl.ring[pl.issued % P.queue_depth] = start;
	pl.issued++;
	pl.free = free;
	if (done > pl.tail)
		pl.tail = done;
	double from = std::max(start, pl.busy_end);
	if (done > from)
		pl.busy += done - from;
	if (done > pl.busy_end)
		pl.busy_end = done;
	trace_add(c, pipe, start, done, name);
}

// ---- vector cost ---------------------------------------------------------------------------

const op_cost &op_of(const char *name)
{
	auto it = L.op_cache.find(name);
	if (it != L.op_cache.end())
		return *it->second;
	const op_cost *found = &default_op;
	for (const op_cost &o : P.ops)
		if (o.name == name)
			found = &o;
	L.op_cache.emplace(name, found);
	return *found;
}

// Beats per repeat from UB bank conflicts.  UB is `banks` banks of
// bank_bytes each, interleaved by ub_block-byte rows: row r lives in bank
// r mod banks, and bank b in group b mod groups (so row r is in group
// r mod groups).  Per beat a group serves one read and one write: two reads
// (or two writes) in one group, or a read and a write in one bank, take
// another beat.  With 16 groups, sources 256 B apart never share a group.
double bank_beats(const instr &r)
{
	uint32_t groups = P.bank_groups, banks = P.banks;
	uint8_t rd_g[64] = {0}, wr_g[64] = {0}, rd_b[256] = {0}, wr_b[256] = {0};
	if (groups > 64 || banks > 256)
		return 1;
	auto walk = [&](const ub_span &sp, uint16_t blk, bool write) {
		if (!span_ok(sp))
			return;
		uint32_t stride = blk ? blk : 1;
		uint32_t rows = (sp.end - sp.begin + P.ub_block - 1) / P.ub_block;
		if (rows > 8)
			rows = 8;
		for (uint32_t k = 0; k < rows; k++) {
			uint32_t row = sp.begin / P.ub_block + k * stride;
			uint32_t b = row % banks, g = row % groups;
			if (write) {
				wr_g[g]++;
				wr_b[b]++;
			} else {
				rd_g[g]++;
				rd_b[b]++;
			}
		}
	};
	walk(r.dst, r.blk_stride[0], true);
	for (int i = 0; i < 3; i++)
		walk(r.src[i], i < 2 ? r.blk_stride[i + 1] : 0, false);
	uint32_t beats = 1;
	for (uint32_t g = 0; g < groups; g++)
		beats = std::max<uint32_t>(beats, std::max(rd_g[g], wr_g[g]));
	for (uint32_t b = 0; b < banks; b++)
		if (rd_b[b] && wr_b[b])
			beats = std::max<uint32_t>(beats, (uint32_t)rd_b[b] + wr_b[b]);
	return (double)beats;
}

bool is_reduce(const char *name)
{
	return std::strstr(name, "Reduce") != nullptr || std::strcmp(name, "vcadd") == 0;
}

void do_vector(core_timing *c, const instr &r)
{
	uint64_t reps = r.repeat;
	double factor = 1, issue = 1;
	double beats = 1;
	if (r.kind == INSTR_COPY_LOCAL) {
		reps = (r.bytes + 255) / 256;
		factor = 256.0 / P.ub_local_bpc;
	} else {
		const op_cost &o = op_of(r.name);
		factor = o.repeat_factor;
		issue = o.issue_factor;
		if (r.dtype == DTYPE_F16 && is_reduce(r.name))
			factor *= P.v_half_reduce;
		beats = bank_beats(r);
	}
	uint64_t instrs = reps ? (reps + P.v_max_repeat - 1) / P.v_max_repeat : 1;
	double body = (double)reps * P.v_cpr * factor * (1 + (beats - 1) * P.v_beat);
	hazard hz = ub_hazards(c, r, PIPE_ID_V);
	uint8_t cause;
	double start = dispatch(c, PIPE_ID_V, P.s_issue, hz, &cause);
	double free = start + P.v_gap * issue * (double)instrs + body;
	double done = start + P.v_head * issue + P.v_gap * (double)(instrs - 1) + body;
	retire(c, PIPE_ID_V, start, free, done, r.name);
	ub_record(c, r, PIPE_ID_V, done);
	c->v_repeats += reps;
	c->v_instrs += instrs;
	c->v_conflict += (double)reps * P.v_cpr * factor * (beats - 1) * P.v_beat;
}

// ---- GM copies ------------------------------------------------------------------------------

uint64_t burst_round(uint64_t len)
{
	uint32_t big = P.bursts.back();
	uint64_t full = len / big * big, rest = len - full;
	if (!rest)
		return full;
	for (uint32_t b : P.bursts)
		if (rest <= b)
			return full + b;
	return full + big;
}

// Splits a copy's bytes into L2 hits and misses and updates the L2 state:
// normal-mode accesses allocate, bypassed writes invalidate.
void l2_access(const instr &r, bool write, bool bypass, uint64_t rows, uint64_t len, uint64_t pitch, double *ret_hit,
	       double *ret_miss)
{
	double hit = 0, miss = 0;
	const gm_region *reg = gm_find(r.gm);
	if (!reg || P.l2_usable <= 0) {
		*ret_hit = 0;
		*ret_miss = (double)(rows * len);
		return;
	}
	l2_region &lr = L.l2[reg];
	if (lr.stamp.empty()) {
		uint64_t size = (uint64_t)(reg->end - reg->begin);
		while ((size >> lr.shift) > (1u << 22))
			lr.shift++;
		lr.stamp.assign((size >> lr.shift) + 1, 0);
	}
	uint64_t chunk = 1ull << lr.shift;
	uint64_t base = (uint64_t)((const uint8_t *)r.gm - reg->begin);
	for (uint64_t i = 0; i < rows; i++) {
		uint64_t a = base + i * pitch;
		if (!len)
			continue;
		uint64_t c0 = a >> lr.shift, c1 = (a + len - 1) >> lr.shift;
		if (c1 >= lr.stamp.size())
			c1 = lr.stamp.size() - 1;
		double per = (double)len / (double)(c1 - c0 + 1);
		for (uint64_t k = c0; k <= c1; k++) {
			uint64_t &st = lr.stamp[k];
			bool resident = st && (double)(L.l2_clock - st) < P.l2_usable;
			if (resident && !write)
				hit += per;
			else
				miss += per;
			if (resident && !write && !bypass) {
				st = L.l2_clock; /* a hit refreshes recency */
				continue;
			}
			if (bypass) {
				if (write)
					st = 0;
			} else if (!resident || write) {
				L.l2_clock += chunk;
				st = L.l2_clock;
			}
		}
	}
	*ret_hit = hit;
	*ret_miss = miss;
}

// Pushes `work` port-cycles through the core's GM port from `t`, taking at
// most `share` of the port at any moment and what earlier copies left.
double port_transfer(core_timing *c, double t, double work, double share)
{
	std::vector<port_seg> &v = c->port;
	/* forget what no later copy can overlap */
	double horizon = std::min(c->p[PIPE_ID_MTE2].free, c->p[PIPE_ID_MTE3].free);
	size_t keep = 0;
	while (keep < v.size() && v[keep].t1 <= horizon)
		keep++;
	if (keep)
		v.erase(v.begin(), v.begin() + (long)keep);
	std::vector<port_seg> out;
	out.reserve(v.size() + 4);
	size_t i = 0;
	while (i < v.size() && v[i].t1 <= t)
		out.push_back(v[i++]);
	const double eps = 1e-9;
	if (i < v.size() && v[i].t0 < t) { /* split the segment that straddles t */
		out.push_back(port_seg{v[i].t0, t, v[i].used});
		v[i].t0 = t;
	}
	while (work > eps) {
		double seg_end, used;
		bool in_seg = i < v.size() && v[i].t0 <= t + eps;
		if (in_seg) {
			seg_end = v[i].t1;
			used = v[i].used;
		} else {
			seg_end = i < v.size() ? v[i].t0 : INFINITY;
			used = 0;
		}
		double rate = std::min(share, 1.0 - used);
		if (rate <= eps) {
			if (in_seg) {
				port_seg s = v[i++];
				if (s.t0 < t)
					s.t0 = t;
				out.push_back(s);
			}
			t = seg_end;
			continue;
		}
		double end = std::min(seg_end, t + work / rate);
		work -= rate * (end - t);
		if (end >= seg_end - eps && std::isfinite(seg_end))
			end = seg_end;
		out.push_back(port_seg{t, end, used + rate});
		if (in_seg) {
			if (end < seg_end) {
				v[i].t0 = end; /* the rest of this segment stays as it was */
			} else {
				i++;
			}
		}
		t = end;
		if (work <= eps * 10)
			break;
	}
	while (i < v.size())
		out.push_back(v[i++]);
	std::sort(out.begin(), out.end(), [](const port_seg &a, const port_seg &b) { return a.t0 < b.t0; });
	c->port.swap(out);
	return t;
}

void do_copy(core_timing *c, const instr &r)
{
	bool in = r.kind == INSTR_COPY_IN;
	uint8_t pipe = in ? PIPE_ID_MTE2 : PIPE_ID_MTE3;
	uint64_t rows = r.block_count ? r.block_count : 1;
	uint64_t len = r.block_len ? r.block_len : r.bytes / rows;
	uint64_t pitch = r.gm_pitch ? r.gm_pitch : len;
	uint64_t bytes = rows * len;
	/* bursts and alignment, row by row (large row counts repeat the pattern of the first 4096) */
	double eff_bytes = 0;
	uint64_t aligned = 0;
	uint64_t base = (uint64_t)(uintptr_t)r.gm;
	uint64_t sample = rows < 4096 ? rows : 4096;
	for (uint64_t i = 0; i < sample; i++) {
		uint64_t a = base + i * pitch;
		bool ok = a % P.fast_align == 0;
		eff_bytes += (double)burst_round(len) / (ok ? 1.0 : P.misaligned_eff);
		aligned += ok ? len : 0;
	}
	if (sample < rows) {
		eff_bytes *= (double)rows / (double)sample;
		aligned = (uint64_t)((double)aligned * (double)rows / (double)sample);
	}
	bool bypass = r.cache_mode == (uint8_t)AscendC::CacheMode::CACHE_MODE_DISABLE;
	double hit, miss;
	l2_access(r, !in, bypass, rows, len, pitch, &hit, &miss);
	double total = hit + miss > 0 ? hit + miss : 1;
	double n = (double)L.active;
	double miss_cap = (bypass ? P.gm_bypass_bpc : P.gm_normal_bpc) / n;
	double hit_cap = P.l2_hit_bpc / n;
	double work = eff_bytes * (hit / total / hit_cap + miss / total / miss_cap);
	if (!in && g_core->atomic_op)
		work *= P.atomic_factor;
	double share = work > 0 ? std::min(1.0, P.pipe_bpc * work / eff_bytes) : 1;
	double fixed = P.copy_latency;
	if (r.copy_flags & COPY_PAD)
		fixed += P.pad_fixed + P.pad_row * (double)rows;
	else if (rows > 1)
		fixed += P.row_cycles * (double)(rows - 1);
	hazard hz = ub_hazards(c, r, pipe);
	uint8_t cause;
	double start = dispatch(c, pipe, P.s_issue, hz, &cause);
	double done = work > 0 ? port_transfer(c, start + fixed, work, share) : start + fixed;
	retire(c, pipe, start, done, done, r.copy_flags & COPY_PAD ? "DataCopyPad" : r.name);
	ub_record(c, r, pipe, done);
	(in ? c->bytes_in : c->bytes_out) += bytes;
	c->copies++;
	c->copy_bytes += bytes;
	c->gm_bytes += bytes;
	c->aligned_bytes += aligned;
}

// ---- scalar access -----------------------------------------------------------------------

void do_scalar(core_timing *c, const instr &r, bool write)
{
	if (r.gm) {
		s_charge(c, P.s_issue + (write ? P.s_gm_write : P.s_gm_read));
		return;
	}
	hazard hz = ub_hazards(c, r, PIPE_ID_S);
	s_wait(c, hz.t, hz.cause);
	s_charge(c, P.s_issue + (write ? P.s_ub_write : P.s_ub_read));
	ub_record(c, r, PIPE_ID_S, c->s);
}

void observe(const instr &r, void *)
{
	core_timing *c = cur();
	if (!c)
		return;
	flush_bb(c);
	switch (r.kind) {
	case INSTR_VECTOR:
	case INSTR_COPY_LOCAL:
		do_vector(c, r);
		break;
	case INSTR_COPY_IN:
	case INSTR_COPY_OUT:
		do_copy(c, r);
		break;
	case INSTR_SCALAR_READ:
		do_scalar(c, r, false);
		break;
	case INSTR_SCALAR_WRITE:
		do_scalar(c, r, true);
		break;
	case INSTR_BARRIER:
		s_charge(c, P.s_barrier);
		if (r.barrier == PIPE_ID_ALL) {
			double t = c->s;
			for (int q = PIPE_ID_V; q < PIPE_ID_COUNT; q++)
				t = std::max(t, c->p[q].tail);
			s_wait(c, t, ST_PIPE_ALL);
			for (int q = PIPE_ID_V; q < PIPE_ID_COUNT; q++)
				gate_raise(c, (uint8_t)q, t, ST_PIPE_ALL);
		} else if (r.barrier < PIPE_ID_COUNT && r.barrier != PIPE_ID_S) {
			gate_raise(c, r.barrier, c->p[r.barrier].tail,
				   r.barrier == PIPE_ID_V ? (uint8_t)ST_V_DEP : (uint8_t)ST_FLAG);
		}
		break;
	case INSTR_SET_FLAG:
	case INSTR_QUEUE_ENQUE:
	case INSTR_QUEUE_FREE:
		s_charge(c, r.kind == INSTR_SET_FLAG ? P.s_flag : P.s_queue);
		if (r.event != 0xff && r.event_id >= 0)
			flag_push(c, r.event, r.event_id, flag_time(c, r.pipe));
		break;
	case INSTR_WAIT_FLAG:
	case INSTR_QUEUE_ALLOC:
	case INSTR_QUEUE_DEQUE:
		s_charge(c, r.kind == INSTR_WAIT_FLAG ? P.s_flag : P.s_queue);
		if (r.event != 0xff && r.event_id >= 0)
			gate_raise(c, r.pipe, flag_pop(c, r.event, r.event_id),
				   r.kind == INSTR_QUEUE_ALLOC ? (uint8_t)ST_BUFFER_FREE : cause_of_event(r.event));
		break;
	case INSTR_SYNC_ALL:
		s_charge(c, P.s_issue);
		break;
	case INSTR_CONTROL:
		/* `count` is the DCache lines DataCacheCleanAndInvalid cleans (0 for the rest) */
		s_charge(c, P.s_issue + (r.gm ? P.s_tiling_per_byte * (double)r.bytes : 0) +
				(double)r.count * P.s_dcache_line);
		break;
	default:
		s_charge(c, P.s_issue);
		break;
	}
	// Early stop: a core's scalar clock past the limit means the launch is slower
	// still, so the rest need not be simulated.  Deterministic: simulated time.
	if (__builtin_expect(L.slow_cycles > 0 && c->s > L.slow_cycles, 0))
		finish_error("slow", "slow", r.loc.file, r.loc.line,
			     strprintf("stopped early at %.2f us of simulated time, past the limit of %.2f us",
				       c->s / P.clock_mhz, L.slow_us));
}

double drained(core_timing *c)
{
	double t = c->s;
	for (int q = PIPE_ID_V; q < PIPE_ID_COUNT; q++)
		t = std::max(t, c->p[q].tail);
	return t;
}

} // namespace

// ---- launch, cores, SyncAll -------------------------------------------------------------------

void timing_launch_begin(uint32_t block_dim, uint32_t cores)
{
	L.block_dim = block_dim;
	L.slow_cycles = L.slow_us * P.clock_mhz;
	L.active = block_dim < cores ? block_dim : cores;
	if (L.active == 0)
		L.active = 1;
	L.slot_end.assign(L.active, 0.0);
	L.blocks.assign(block_dim, block_result{});
	L.l2.clear();
	L.l2_clock = 1;
	L.trace.clear();
	L.op_cache.clear();
	set_instr_observer(observe, nullptr);
}

void timing_core_begin(core_state *cs, uint32_t slot)
{
	core_private *p = cs->priv;
	if (slot >= L.pool.size())
		L.pool.resize(slot + 1, nullptr);
	if (!L.pool[slot])
		L.pool[slot] = new core_timing();
	core_timing *c = L.pool[slot];
	/* keep the big tables; clear only the UB blocks the last block touched */
	std::vector<ub_time> ub;
	ub.swap(c->ub);
	std::vector<port_seg> port;
	port.swap(c->port);
	uint32_t lo = c->ub_lo, hi = c->ub_hi;
	*c = core_timing();
	c->port.swap(port);
	c->port.clear();
	ub_time fresh{};
	fresh.w_pipe = PIPE_ID_NONE;
	if (!g_run.auto_sync) {
		ub.clear();
	} else if (ub.size() != cs->ub_bytes / 32) {
		ub.assign(cs->ub_bytes / 32, fresh);
	} else if (lo < hi) {
		std::fill(ub.begin() + lo, ub.begin() + hi, fresh);
	}
	c->ub.swap(ub);
	c->block = cs->block_idx;
	c->slot = slot;
	c->start = slot < L.slot_end.size() ? L.slot_end[slot] : 0;
	c->s = c->start;
	for (int q = 0; q < PIPE_ID_COUNT; q++) {
		c->p[q].free = c->p[q].tail = c->p[q].gate = c->p[q].busy_end = c->start;
	}
	c->bb_mark = bb_count;
	p->tm = c;
}

void timing_core_end(core_state *cs, uint32_t slot)
{
	core_timing *c = cs->priv->tm;
	if (!c)
		return;
	flush_bb(c);
	if (c->s_span0 >= 0)
		trace_add(c, PIPE_ID_S, c->s_span0, c->s_span1, "scalar");
	double end = drained(c);
	block_result &b = L.blocks[c->block];
	b.slot = slot;
	b.start = c->start;
	b.end = end;
	b.busy[PIPE_ID_S] = c->s_busy;
	for (int q = PIPE_ID_V; q < PIPE_ID_COUNT; q++)
		b.busy[q] = c->p[q].busy;
	std::memcpy(b.stall, c->stall, sizeof b.stall);
	b.bytes_in = c->bytes_in;
	b.bytes_out = c->bytes_out;
	b.copies = c->copies;
	b.copy_bytes = c->copy_bytes;
	b.gm_bytes = c->gm_bytes;
	b.aligned_bytes = c->aligned_bytes;
	b.v_repeats = c->v_repeats;
	b.v_instrs = c->v_instrs;
	b.v_conflict = c->v_conflict;
	b.bbs = c->bbs;
	b.ub_peak = cs->priv->ub_peak;
	if (slot < L.slot_end.size())
		L.slot_end[slot] = end;
	cs->priv->tm = nullptr;
}

// Basic blocks count into one global counter; a core owns what runs between
// its resumption and its next instruction.
void timing_core_resume(core_state *cs)
{
	core_timing *c = cs->priv->tm;
	if (c)
		c->bb_mark = bb_count;
}

void timing_sync_arrive(core_state *cs)
{
	core_timing *c = cs->priv->tm;
	if (c)
		flush_bb(c);
}

void timing_sync_open(core_state *const *cs, uint32_t n)
{
	double t = 0;
	for (uint32_t i = 0; i < n; i++)
		if (cs[i]->priv->tm)
			t = std::max(t, drained(cs[i]->priv->tm));
	t += P.sync_all_cycles;
	for (uint32_t i = 0; i < n; i++) {
		core_timing *c = cs[i]->priv->tm;
		if (!c)
			continue;
		double mine = drained(c);
		c->stall[ST_SYNC_ALL] += t - mine;
		if (c->s_span0 >= 0)
			trace_add(c, PIPE_ID_S, c->s_span0, c->s_span1, "scalar");
		c->s_span0 = c->s_span1 = -1;
		trace_add(c, PIPE_ID_S, mine, t, "SyncAll");
		c->s = t;
		for (int q = PIPE_ID_V; q < PIPE_ID_COUNT; q++) {
			pipe_tl &pl = c->p[q];
			pl.free = std::max(pl.free, t);
			pl.tail = std::max(pl.tail, t);
			pl.busy_end = std::max(pl.busy_end, t);
			if (t > pl.gate) {
				pl.gate = t;
				pl.gate_cause = ST_SYNC_ALL;
			}
		}
	}
}

void timing_flag_drop(int event, int id)
{
	core_timing *c = cur();
	if (c)
		flag_pop(c, event, id);
}

// ---- results ----------------------------------------------------------------------------------

namespace {

uint64_t splitmix(uint64_t &s)
{
	uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

double quantile(std::vector<double> v, double q)
{
	std::sort(v.begin(), v.end());
	if (v.empty())
		return 0;
	double pos = q * (double)(v.size() - 1);
	size_t i = (size_t)pos;
	double f = pos - (double)i;
	return i + 1 < v.size() ? v[i] * (1 - f) + v[i + 1] * f : v[i];
}

json_t *rounded(double x, double unit = 1e-4)
{
	return json_real(std::round(x / unit) * unit);
}

void write_trace(double launch_us)
{
	FILE *f = std::fopen(L.trace_path.c_str(), "w");
	if (!f) {
		warn(srcloc(loc_tag(), "", 0), "cannot write the trace to %s", L.trace_path.c_str());
		return;
	}
	static const char *const pipe_label[PIPE_ID_COUNT] = {"S", "V", "MTE2", "MTE3"};
	double mhz = P.clock_mhz;
	std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
	bool first = true;
	auto emit = [&](json_t *e) {
		if (!first)
			std::fputs(",\n", f);
		first = false;
		json_dumpf(e, f, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(e);
	};
	int launch_pid = (int)L.block_dim; /* a process after the blocks */
	emit(json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid", launch_pid, "args", "name",
		       "launch"));
	if (launch_us > 0)
		emit(json_pack("{s:s, s:s, s:i, s:i, s:f, s:f}", "name", "launch overhead", "ph", "X", "pid", launch_pid,
			       "tid", 0, "ts", 0.0, "dur", launch_us));
	for (uint32_t b = 0; b < L.block_dim; b++) {
		emit(json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid", (int)b, "args",
			       "name", strprintf("block %u (core %u)", b, L.blocks[b].slot).c_str()));
		emit(json_pack("{s:s, s:s, s:i, s:{s:i}}", "name", "process_sort_index", "ph", "M", "pid", (int)b, "args",
			       "sort_index", (int)b));
		for (int q = 0; q < PIPE_ID_COUNT; q++)
			emit(json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M", "pid", (int)b, "tid",
				       q, "args", "name", pipe_label[q]));
	}
	for (const trace_span &s : L.trace)
		emit(json_pack("{s:s, s:s, s:i, s:i, s:f, s:f}", "name", s.name ? s.name : "?", "ph", "X", "pid",
			       (int)s.core, "tid", (int)s.pipe, "ts", launch_us + s.t0 / mhz, "dur", (s.t1 - s.t0) / mhz));
	std::fputs("\n]}\n", f);
	if (std::fclose(f) != 0)
		warn(srcloc(loc_tag(), "", 0), "cannot write the trace to %s", L.trace_path.c_str());
}

} // namespace

void timing_result(json_t *o, double roofline_us)
{
	uint32_t nb = L.block_dim;
	double mhz = P.clock_mhz;
	double kernel = 0;
	for (double e : L.slot_end)
		kernel = std::max(kernel, e);
	bool aiv_only = L.task_type == KERNEL_TYPE_AIV_ONLY;
	double launch_us = timing_launch_us(nb, aiv_only);
	double model_us = launch_us + kernel / mhz;

	/* per-core means; utilisation per block against the block's own span */
	double busy[PIPE_ID_COUNT] = {0}, util[PIPE_ID_COUNT] = {0}, stall[ST_COUNT] = {0}, conflict = 0;
	uint64_t bytes_in = 0, bytes_out = 0, copies = 0, copy_bytes = 0, gm_bytes = 0, aligned = 0, reps = 0, vins = 0,
		 bbs = 0;
	for (const block_result &b : L.blocks) {
		double span = b.end - b.start;
		for (int q = 0; q < PIPE_ID_COUNT; q++) {
			busy[q] += b.busy[q];
			util[q] += span > 0 ? std::min(1.0, b.busy[q] / span) : 0;
		}
		for (int k = 0; k < ST_COUNT; k++)
			stall[k] += b.stall[k];
		bytes_in += b.bytes_in;
		bytes_out += b.bytes_out;
		copies += b.copies;
		copy_bytes += b.copy_bytes;
		gm_bytes += b.gm_bytes;
		aligned += b.aligned_bytes;
		reps += b.v_repeats;
		vins += b.v_instrs;
		conflict += b.v_conflict;
		bbs += b.bbs;
	}
	double inv = nb ? 1.0 / nb : 0;
	double sum = 0, mx = 0;
	for (double e : L.slot_end) {
		sum += e;
		mx = std::max(mx, e);
	}
	double imbalance = sum > 0 ? mx / (sum / (double)L.slot_end.size()) : 1;

	std::vector<double> samples;
	uint64_t js = L.jitter_seed ^ 0x6A09E667F3BCC909ULL;
	for (uint32_t k = 0; k < L.samples; k++) {
		double u = L.jitter_pct > 0 ? (double)(splitmix(js) >> 11) * 0x1p-53 * 2 - 1 : 0;
		samples.push_back(model_us * (1 + L.jitter_pct / 100 * u));
	}
	double latency_us = quantile(samples, 0.5);
	double iqr = quantile(samples, 0.75) - quantile(samples, 0.25);

	json_object_set_new(o, "cycles", json_integer((json_int_t)std::llround(kernel)));
	json_object_set_new(o, "latency_us", rounded(latency_us));
	json_object_set_new(o, "launch_us", rounded(launch_us));
	json_t *sa = json_array();
	for (double s : samples)
		json_array_append_new(sa, rounded(s));
	json_object_set_new(o, "samples_us", sa);
	json_object_set_new(o, "iqr_us", rounded(iqr));
	json_object_set_new(o, "roofline_us", rounded(roofline_us));
	json_object_set_new(o, "roofline_fraction", rounded(latency_us > 0 ? roofline_us / latency_us : 0, 1e-6));

	json_t *pr = json_object();
	json_object_set_new(pr, "cycles", json_integer((json_int_t)std::llround(kernel)));
	json_object_set_new(pr, "latency_us", rounded(latency_us));
	json_object_set_new(pr, "model_latency_us", rounded(model_us));
	json_object_set_new(pr, "launch_us", rounded(launch_us));
	json_object_set_new(pr, "kernel_us", rounded(kernel / mhz));
	json_object_set_new(pr, "clock_mhz", json_real(mhz));
	json_object_set_new(pr, "kernel_type", json_string(aiv_only ? "aiv_only" : "mix"));
	json_object_set_new(pr, "block_dim", json_integer(nb));
	json_object_set_new(pr, "cores", json_integer(L.active));
	json_object_set_new(pr, "waves", json_integer(L.active ? (nb + L.active - 1) / L.active : 0));
	static const char *const pname[PIPE_ID_COUNT] = {"s", "v", "mte2", "mte3"};
	json_t *pipes = json_object();
	for (int q = 0; q < PIPE_ID_COUNT; q++)
		json_object_set_new(pipes, pname[q],
				    json_pack("{s:o, s:o}", "busy_us", rounded(busy[q] * inv / mhz), "utilisation",
					      rounded(util[q] * inv, 1e-6)));
	json_object_set_new(pr, "pipes", pipes);
	json_t *st = json_object();
	for (int k = 0; k < ST_COUNT; k++)
		json_object_set_new(st, stall_names[k], rounded(stall[k] * inv / mhz));
	json_object_set_new(pr, "stalls_us", st);
	uint32_t ub_peak = 0;
	for (const block_result &b : L.blocks)
		ub_peak = std::max(ub_peak, b.ub_peak);
	json_object_set_new(pr, "ub_peak_bytes", json_integer(ub_peak));
	json_object_set_new(pr, "ub_capacity_bytes", json_integer(g_run.ub_limit));
	json_object_set_new(pr, "bytes_in", json_integer((json_int_t)bytes_in));
	json_object_set_new(pr, "bytes_out", json_integer((json_int_t)bytes_out));
	json_object_set_new(pr, "copies", json_integer((json_int_t)copies));
	json_object_set_new(pr, "mean_copy_bytes", rounded(copies ? (double)copy_bytes / (double)copies : 0, 0.01));
	json_object_set_new(pr, "gm_aligned_fraction", rounded(gm_bytes ? (double)aligned / (double)gm_bytes : 1, 1e-6));
	json_object_set_new(pr, "vector_repeats", json_integer((json_int_t)reps));
	json_object_set_new(pr, "vector_instructions", json_integer((json_int_t)vins));
	json_object_set_new(pr, "bank_conflict_us", rounded(conflict * inv / mhz));
	json_object_set_new(pr, "scalar_basic_blocks", json_integer((json_int_t)bbs));
	json_object_set_new(pr, "basic_block_counting", json_boolean(bb_count > 0));
	json_object_set_new(pr, "core_imbalance", rounded(imbalance, 1e-6));
	json_object_set_new(pr, "roofline_us", rounded(roofline_us));
	json_object_set_new(pr, "roofline_fraction", rounded(latency_us > 0 ? roofline_us / latency_us : 0, 1e-6));
	if (L.jitter_pct > 0)
		json_object_set_new(pr, "jitter_pct", json_real(L.jitter_pct));
	if (!L.trace_path.empty()) {
		write_trace(launch_us);
		json_object_set_new(pr, "trace_path", json_string(L.trace_path.c_str()));
		json_object_set_new(pr, "trace_events", json_integer((json_int_t)L.trace.size()));
		json_object_set_new(pr, "trace_truncated", json_boolean(L.trace_truncated));
	}
	json_object_set_new(o, "profile", pr);
}

} // namespace ascendsim
