// SPDX-License-Identifier: MIT
//
// Private state of libascendsim shared by its files: per-core flag and
// race-tracking tables, the launch description, and the result being built.
// Nothing here is visible to operator code.
#ifndef ASCENDSIM_RUNTIME_INTERNAL_H
#define ASCENDSIM_RUNTIME_INTERNAL_H

#include <string>
#include <vector>

#include "ascendsim/host.h"
#include "kernel_operator.h"

struct json_t;

namespace ascendsim {

enum { EVENT_TYPES = (int)AscendC::HardEvent::MAX, EVENT_IDS = 8 };

enum flag_owner : uint8_t { FLAG_FREE = 0, FLAG_USER = 1, FLAG_QUEUE = 2 };

struct flag_slot {
	uint16_t pending;       /* SetFlag count not yet waited */
	uint8_t owner;          /* flag_owner: who holds the id */
	uint32_t clock[PIPE_ID_COUNT]; /* source pipe's knowledge when set */
	srcloc set_loc;         /* last SetFlag, for "pending at exit" */
};

// Last access to one 32-byte UB block, for race detection.
struct ub_block {
	uint8_t w_pipe;      /* PIPE_ID_NONE when never written */
	uint32_t w_seq;
	uint32_t r_seq[PIPE_ID_COUNT];
	srcloc w_loc;
};

struct core_private {
	flag_slot flags[EVENT_TYPES][EVENT_IDS];
	/* Vector clocks: seq[p] counts instructions issued to pipe p; clock[p][q]
	 * is the newest seq of q that p is known to run after; barrier[p] is
	 * p's seq at its last PipeBarrier. */
	uint32_t seq[PIPE_ID_COUNT];
	uint32_t clock[PIPE_ID_COUNT][PIPE_ID_COUNT];
	uint32_t barrier[PIPE_ID_COUNT];
	std::vector<ub_block> blocks; /* only when race tracking is on */
	uint32_t ub_peak;
	uint8_t cross_pending[16]; /* CrossCoreSetFlag per flagId not yet waited */
	srcloc cross_loc[16];
	struct core_timing *tm; /* the cycle model's per-core state (timing.cpp) */
};

// Kernel entry from the glue file.
struct kernel_entry {
	void (*fn)() = nullptr;
	kernel_thunk thunk = nullptr;
	int arity = 0;
	const char *expr = nullptr;
	const char *file = nullptr;
};
extern kernel_entry g_entry;

// The platform numbers the runtime itself needs (the rest stay in the JSON).
struct platform_info {
	fe::PlatFormInfos infos;
	uint32_t ub_total = 0;
	uint32_t ub_init_limit = 0;
	uint32_t event_ids = 8;
	uint32_t user_event_ids = 6;
};
extern platform_info g_platform;

// Result bookkeeping shared by the error paths and the normal exit.
void result_note_launch(uint32_t block_dim, uint64_t tiling_key, uint64_t workspace);
[[noreturn]] void finish_error(const char *status, const char *kind, const char *file, int line, const std::string &msg);

// Scheduler (scheduler.cpp).
void launch_kernel(uint32_t block_dim, uint32_t cores, uint8_t **args);
void core_reset(core_state *c, core_private *p, uint32_t idx, uint32_t block_dim);
void core_exit_checks(core_state *c);
void sync_apply_all(core_private *p);
extern uint32_t g_current_core;

// Instruction observer for the timing model (null until it exists).
using instr_observer = void (*)(const instr &r, void *ctx);
void set_instr_observer(instr_observer fn, void *ctx);

// The cycle model (timing.cpp).  Configured from the platform profile's
// "timing" object before the launch; fed by the instruction observer and by
// the scheduler at core start, SyncAll and core exit; read by the harness
// when it writes an ok result.
void timing_configure(json_t *platform);
void timing_launch_begin(uint32_t block_dim, uint32_t cores);
void timing_core_begin(core_state *c, uint32_t slot);
void timing_core_end(core_state *c, uint32_t slot);
void timing_core_resume(core_state *c);              /* the scheduler switches to it */
void timing_sync_arrive(core_state *c);               /* a core reached SyncAll */
void timing_sync_open(core_state *const *cs, uint32_t n); /* every core is there */
void timing_flag_drop(int event, int id);             /* a flag consumed without an instruction */
void timing_task_type(int type);
// Launch overhead in µs for `blocks` blocks; the smallest one (1 block,
// AIV-only) is the roofline's.
double timing_launch_us(uint32_t blocks, bool aiv_only);
double timing_hbm_peak_bytes_per_s();
double timing_vector_peak_bytes_per_s(); /* all vector cores, 1 repeat per cycle */
// The case's result fields (cycles, latency_us, launch_us, samples_us,
// profile...); `roofline_us` comes from the harness, which knows the spec.
void timing_result(json_t *o, double roofline_us);
// Chrome trace-event output; set before the launch, written by timing_result.
void timing_set_trace(const char *path, uint64_t max_events);
void timing_set_jitter(double pct, uint64_t seed, uint32_t samples);
// Stops the launch with status "slow" once its simulated time passes us (0: never).
void timing_set_slow_limit(double us);

// Which output bytes the kernel wrote (written.cpp).  A bitmap of one bit
// per byte of `bytes`, zeroed, or nullptr when it cannot be mapped.
uint64_t *written_bitmap_new(uint64_t bytes);
// The framework fills an output before the launch (the OpDef's InitValue).
void gm_mark_all_written(const gm_region *r);
// One output after the launch: how many of its elements of `esize` bytes
// were written whole, the first unwritten [begin, end) element ranges and
// their number, and, when some are unwritten, `file` in `dir` holding one
// bit per element (LSB first), set when written.
struct written_summary {
	bool tracked = false;
	uint64_t written = 0;
	std::vector<std::pair<uint64_t, uint64_t>> ranges;
	uint64_t range_count = 0;
	std::string file;
};
written_summary written_summarize(const uint64_t *bits, uint64_t elems, uint32_t esize, const std::string &dir,
				  const std::string &file);
// Adds written_elements, and for an incomplete output unwritten,
// unwritten_ranges and written_file, to its entry in the result.
void written_json(json_t *o, const written_summary &s);

uint8_t hard_event_for(uint8_t src_pipe, uint8_t dst_pipe);
const char *pipe_name(uint8_t p);
std::string strprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace ascendsim

#endif
