/* SPDX-License-Identifier: MIT */
/*
 * The memoizing evaluator (npu/evaluator.c) in front of the backends of
 * npu/backend.h: its options, requests and jobs, the platform facts for
 * prompts, and the trim of its object cache (npu/cache-trim.c).
 * Part of npu/npu.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_EVALUATOR_H
#define ASCENDOPT_NPU_EVALUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "manifest.h"
#include "sim-run.h"
#include "backend.h"

struct event_base;

/* ------------------------------------------------------------ the evaluator */

/*
 * Turns a candidate (an operator with some files replaced) into a trusted,
 * memoized result: computes its identity (docs/design.md, "Inputs, tolerance and identity"),
 * serves it from the store when it was measured before, and otherwise
 * materialises it in a scratch directory, builds and runs it on the
 * evaluator's backend, judges its outputs against a reference result, and
 * stores the result and the candidate's source texts.  infra_error results
 * are never stored.
 *
 * A case whose golden is an example (npu/golden.h) runs on the inputs the
 * example's gen_data.py writes, as 'ascendopt eval' runs it, instead of
 * seeded ones: gen_data.py runs once per operator (its manifest and the
 * golden's Python) and evaluator, on the loop, in a folder below
 * scratch_dir that npu_evaluator_free removes; requests that come while
 * it runs wait for it, and every candidate gets copies.  A case whose
 * example inputs cannot be made (gen_data.py fails, python is missing)
 * runs on seeded inputs, with the reason logged once.  Where each example
 * case's inputs came from is part of the identity.
 */
struct store;
struct npu_evaluator;
struct npu_job;
struct ascend_env;

/*
 * Part of every identity: raise it when a result's meaning changes, so that
 * memoized results made before are measured again.  2: outputs say which
 * elements the kernel wrote, and one left unwritten that the reference
 * writes is a wrong answer.
 */
#define NPU_EVALUATOR_VERSION 2

struct npu_evaluator_options {
        struct event_base *base; /* the loop the runner is on (borrowed) */
        enum npu_backend backend;
        /* sim: the platform profile, NULL: Ascend910B2.  ascend: the SoC the
         * devices are (e.g. Ascend910B4), required: it is part of the identity */
        const char *platform;
        const char *scratch_dir; /* created; candidates are built below it */
        const char *cache_dir;   /* compiled units by content; NULL: no cache */
        double timeout_s;
        struct child_limits limits;
        bool sandbox;
        const char *const *permissive;
        /* sim only: seeded noise of this many percent on every latency (samples,
         * median and IQR), seeded by the candidate and its seed, to exercise
         * the noise policy; part of the identity */
        double jitter_pct;
        /* ascend only */
        const char *toolkit;                 /* the config's; NULL: ASCEND_HOME_PATH, defaults */
        const char *third_lib_path;          /* build.sh --third_lib_path; NULL: none */
        const struct ascend_env *ascend_env; /* set_env.sh loaded once (borrowed, must outlive the
                                                evaluator); NULL: each evaluation loads it */
        unsigned launch_count;               /* timed launches per case; 0: 5 */
        unsigned warmup;                     /* warm-up launches before them; 0: 1 */
};

/* What npu_cache_trim() did. */
struct npu_cache_trim {
        uint64_t bytes_before, bytes_after; /* of the objects it counted */
        size_t removed;                     /* objects and preludes removed */
};

/*
 * Removes the least recently used objects of the cache in dir (an
 * evaluator's cache_dir) until it holds at most max_bytes; a precompiled
 * prelude used within the last hour stays, so the cache can stay over.
 * A missing dir is an empty cache.  Blocks on the file system: the daemon
 * calls it from a worker thread.
 */
int npu_cache_trim(const char *dir, uint64_t max_bytes, struct npu_cache_trim *ret);

/*
 * Creates an evaluator.  runner, paths and store are borrowed.  For the
 * sim, reads the platform file, the simulator's headers and library, and
 * asks the compiler for its version (once, briefly blocking) to form the
 * context part of every identity.  For ascend (paths may be NULL), the
 * context holds the backend, the SoC, the toolkit's version files and the
 * launch counts, so that a sim result is never served for a real NPU, nor
 * one toolkit's for another.  Errors name what is missing.
 */
int npu_evaluator_new(struct child_runner *runner, const struct npu_sim_paths *paths,
                      struct store *store, const struct npu_evaluator_options *options,
                      struct npu_evaluator **ret_evaluator, char *err, size_t err_size);
struct npu_evaluator *npu_evaluator_free(struct npu_evaluator *evaluator);

/*
 * The platform's key numbers in words (cores, UB size, alignment,
 * bandwidth), read from platforms_dir/<platform>.json: a new string for
 * prompts, or NULL when the file cannot be read.
 */
char *npu_platform_facts(const char *platforms_dir, const char *platform);
/* The same for the evaluator's platform. */
char *npu_evaluator_platform_facts(const struct npu_evaluator *evaluator);
/* The evaluator's platform name, e.g. "Ascend910B2". */
const char *npu_evaluator_platform(const struct npu_evaluator *evaluator);

/* The digest of everything but the operator's own files that a result depends on. */
const char *npu_evaluator_context(const struct npu_evaluator *evaluator);

/*
 * What the operator of manifest registers (npu_sim_describe_start,
 * sim-run.h), asked with the evaluator's runner in a scratch directory of
 * its own, or served from the store: the description is memoized by the
 * operator's identity, as results are.  The callback runs once, from the
 * event loop.  -EOPNOTSUPP for a backend other than the sim.
 */
struct npu_describe_job;
int npu_evaluator_describe(struct npu_evaluator *evaluator, const struct npu_manifest *manifest,
                           npu_describe_done_fn done, void *userdata,
                           struct npu_describe_job **ret_job);
/* Kills a describe in flight; the callback still runs, soon ("cancelled", or the memo's). */
void npu_describe_job_cancel(struct npu_describe_job *job);

/* One file of a candidate that differs from the base operator. */
struct npu_override {
        const char *path; /* relative to the operator directory, e.g. op_host/add_tiling.h */
        const char *text;
};

struct npu_request {
        /* the base operator (borrowed: it must outlive the evaluation, which may
         * wait for the example inputs after npu_evaluate returns) */
        const struct npu_manifest *manifest;
        const struct npu_override *overrides;
        size_t n_overrides;
        uint64_t seed;
        /* a result kept with keep_outputs whose outputs judge this one; NULL: not judged */
        const json_t *reference;
        /* keep the candidate's scratch dir; the result's "scratch_dir" names it
         * and the caller removes it (rm_rf) when done with the outputs */
        bool keep_outputs;
        bool bypass_memo; /* run even when memoized (the reference's outputs are needed) */
        bool skip_bench;  /* leave out bench cases: a quick check, never memoized */
        /*
         * Stop the run once the bench case passes this many microseconds (the
         * sim stops in simulated time; status slow).  A slow result is
         * memoized with its limit and served only to requests whose limit is
         * no higher.  0: no limit.
         */
        double slow_after_us;
        /* only build it (does it compile?): costs no device time, never memoized */
        bool build_only;
        /*
         * The launch memo (sim only): when a measured candidate had the same
         * kernel-side files, probe this one's host code first (each case up
         * to its tiling function, no kernel) and, when every case's launch
         * comes out as that candidate's did, serve its result as a memo hit:
         * the same kernel object on the same launch measures the same.  The
         * served result names the measured one as "launch_of", and when
         * this probe served it (not a later exact hit on it) it also has
         * "launch_probe": true.  See
         * docs/design.md, "The launch memo".
         */
        bool launch_memo;
        int device; /* the slot's logic id the caller leased (ascend); the sim ignores it */
};

/*
 * Receives the result (ownership passes) and whether it came from the memo.
 * Called once, from the event loop, never from inside npu_evaluate().
 */
typedef void (*npu_evaluated_fn)(json_t *result, bool memo_hit, void *userdata);

/*
 * Computes the identity of a request's candidate into hex; -errno when a
 * file is unreadable.  For an operator with example cases whose inputs
 * this evaluator has not prepared yet, the identity they get when the
 * preparation works.
 */
int npu_candidate_identity(const struct npu_evaluator *evaluator, const struct npu_request *request,
                           char hex[SHA256_HEX_SIZE]);

int npu_evaluate(struct npu_evaluator *evaluator, const struct npu_request *request,
                 npu_evaluated_fn done, void *userdata, struct npu_job **ret_job);

/*
 * Which lines of the operator's own files its host code runs over the
 * manifest's cases, on the simulator (npu_sim_coverage_start()), in a
 * directory of the evaluator's scratch that is removed after.  The
 * result: {"status": "ok", "coverage": {"op_host/x.cpp": {"ran": [...],
 * "not_ran": [...]}}}, or status "infra_error" with an error that says
 * why.  Never memoized; with the ascend backend it runs on the simulator
 * when the evaluator has its paths, else -ENOTSUP.  npu_job_cancel()
 * stops it.
 */
int npu_host_coverage(struct npu_evaluator *evaluator, const struct npu_manifest *manifest,
                      npu_evaluated_fn done, void *userdata, struct npu_job **ret_job);

/*
 * Kills the children of an evaluation in flight; its callback still runs,
 * soon, with status infra_error (never stored).  The handle is valid until
 * the callback returns.
 */
void npu_job_cancel(struct npu_job *evaluation);

#endif
