// SPDX-License-Identifier: MIT
//
// Runs blockDim simulated vector cores as coroutines (ucontext, one stack
// each), scheduled deterministically: each live core runs in index order
// until it finishes or reaches SyncAll; when every live core waits, the
// barrier opens and the round repeats.  blockDim above the core count runs
// in waves; SyncAll in such a launch can never complete and is a deadlock.
// Per-core state is switched through g_core, never thread_local.
#include <sys/mman.h>
#include <ucontext.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "internal.h"

namespace ascendsim {

enum core_run_state { CORE_READY, CORE_AT_SYNC, CORE_DONE };

struct sim_core {
	core_state cs;
	core_private priv;
	ucontext_t ctx;
	uint8_t *stack;
	int state;
	srcloc sync_loc;
};

static const size_t STACK_BYTES = 4u << 20;

static ucontext_t main_ctx;
static sim_core *cores;
static uint32_t ncores_alloc;
static uint8_t *ub_pool;
static uint8_t **launch_args;
static bool waves;
uint32_t g_current_core;

void core_reset(core_state *c, core_private *p, uint32_t idx, uint32_t block_dim)
{
	std::memset(p->flags, 0, sizeof p->flags);
	std::memset(p->seq, 0, sizeof p->seq);
	std::memset(p->clock, 0, sizeof p->clock);
	std::memset(p->barrier, 0, sizeof p->barrier);
	p->ub_peak = 0;
	std::memset(p->cross_pending, 0, sizeof p->cross_pending);
	if (g_run.track_sync) {
		ub_block fresh{};
		fresh.w_pipe = PIPE_ID_NONE;
		p->blocks.assign(g_platform.ub_total / 32, fresh);
	}
	c->block_idx = idx;
	c->block_num = block_dim;
	c->mask[0] = c->mask[1] = ~0ULL;
	c->counter_mode = false;
	c->atomic_op = 0;
	c->atomic_dtype = 0;
	c->tpipe = nullptr;
	std::memset(c->mrgsort_done, 0, sizeof c->mrgsort_done);
	c->acc_val = 0;
	c->acc_dtype = 0;
	c->max_min_dtype = 0;
	c->max_min_exact = 0;
	c->max_min_counter = 0;
	c->max_min_val = c->max_min_idx = 0;
	c->deq_scale = 0;
	c->deq_set = false;
	c->priv = p;
	/* UB starts as a NaN pattern so that reading unwritten UB shows up. */
	std::memset(c->ub, 0xff, c->ub_bytes);
}

// Flags set by the kernel and never waited are errors at exit.
void core_exit_checks(core_state *c)
{
	core_private *p = c->priv;
	for (int e = 0; e < EVENT_TYPES; e++)
		for (int id = 0; id < EVENT_IDS; id++) {
			flag_slot &f = p->flags[e][id];
			if (f.pending && f.owner != FLAG_QUEUE)
				violation("unpaired_flag", f.set_loc,
					  "SetFlag<%s>(%d) is still pending when core %u exits: no WaitFlag consumed it",
					  hard_event_name(e), id, c->block_idx);
		}
	for (int id = 0; id < 16; id++)
		if (p->cross_pending[id])
			violation("unpaired_flag", p->cross_loc[id],
				  "CrossCoreSetFlag(%d) on core %u has no CrossCoreWaitFlag to pair with", id, c->block_idx);
}

static void core_body(int idx)
{
	sim_core *c = &cores[idx];
	g_entry.thunk(g_entry.fn, launch_args);
	core_exit_checks(&c->cs);
	timing_core_end(&c->cs, (uint32_t)idx);
	c->state = CORE_DONE;
	swapcontext(&c->ctx, &main_ctx);
	std::abort(); /* a finished core is never resumed */
}

static uint8_t *stack_alloc(void)
{
	void *p = mmap(nullptr, STACK_BYTES + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return nullptr;
	mprotect(p, 4096, PROT_NONE); /* guard page below the stack */
	return (uint8_t *)p + 4096;
}

void sync_all(srcloc loc)
{
	instr r{};
	r.name = "SyncAll";
	r.loc = loc;
	r.kind = INSTR_SYNC_ALL;
	r.pipe = PIPE_ID_S;
	r.event_id = -1;
	issue(r);
	if (waves)
		fail("deadlock", loc,
		     "SyncAll with blockDim %u above the %u cores of %s: the cores cannot all be live at once, so the "
		     "barrier never opens",
		     g_core->block_num, g_platform.infos.aiv_cores, g_platform.infos.soc_version.c_str());
	sim_core *c = &cores[g_current_core];
	timing_sync_arrive(&c->cs);
	c->state = CORE_AT_SYNC;
	c->sync_loc = loc;
	swapcontext(&c->ctx, &main_ctx);
}

void launch_kernel(uint32_t block_dim, uint32_t ncores, uint8_t **args)
{
	launch_args = args;
	timing_launch_begin(block_dim, ncores);
	uint32_t per_wave = block_dim < ncores ? block_dim : ncores;
	waves = block_dim > ncores;
	if (ncores_alloc < per_wave) {
		cores = new sim_core[per_wave]();
		ub_pool = (uint8_t *)std::aligned_alloc(4096, (size_t)per_wave * g_platform.ub_total);
		if (!ub_pool)
			finish_error("infra_error", "infra_error", "", 0, "out of memory for the simulated UB");
		for (uint32_t i = 0; i < per_wave; i++) {
			cores[i].stack = stack_alloc();
			if (!cores[i].stack)
				finish_error("infra_error", "infra_error", "", 0, "out of memory for core stacks");
			cores[i].cs.ub = ub_pool + (size_t)i * g_platform.ub_total;
			cores[i].cs.ub_bytes = g_platform.ub_total;
		}
		ncores_alloc = per_wave;
	}
	for (uint32_t first = 0; first < block_dim; first += per_wave) {
		uint32_t n = block_dim - first < per_wave ? block_dim - first : per_wave;
		for (uint32_t i = 0; i < n; i++) {
			sim_core *c = &cores[i];
			core_reset(&c->cs, &c->priv, first + i, block_dim);
			timing_core_begin(&c->cs, i);
			c->state = CORE_READY;
			getcontext(&c->ctx);
			c->ctx.uc_stack.ss_sp = c->stack;
			c->ctx.uc_stack.ss_size = STACK_BYTES;
			c->ctx.uc_link = nullptr;
			makecontext(&c->ctx, (void (*)())core_body, 1, (int)i);
		}
		for (;;) {
			for (uint32_t i = 0; i < n; i++) {
				if (cores[i].state != CORE_READY)
					continue;
				g_current_core = i;
				g_core = &cores[i].cs;
				timing_core_resume(&cores[i].cs);
				swapcontext(&main_ctx, &cores[i].ctx);
			}
			uint32_t waiting = 0, done = 0, first_done = 0, first_wait = 0;
			for (uint32_t i = 0; i < n; i++) {
				if (cores[i].state == CORE_AT_SYNC && waiting++ == 0)
					first_wait = i;
				if (cores[i].state == CORE_DONE && done++ == 0)
					first_done = i;
			}
			if (waiting == 0)
				break;
			if (done > 0) {
				g_core = &cores[first_wait].cs;
				fail("deadlock", cores[first_wait].sync_loc,
				     "core %u waits in SyncAll but core %u finished without reaching it; the barrier never "
				     "opens",
				     first + first_wait, first + first_done);
			}
			std::vector<core_state *> live(n);
			for (uint32_t i = 0; i < n; i++)
				live[i] = &cores[i].cs;
			timing_sync_open(live.data(), n);
			for (uint32_t i = 0; i < n; i++) {
				cores[i].state = CORE_READY;
				sync_apply_all(&cores[i].priv);
			}
		}
	}
	g_core = nullptr;
}

} // namespace ascendsim
