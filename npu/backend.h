/* SPDX-License-Identifier: MIT */
/*
 * The evaluator's backends, one table of entries chosen by enum
 * npu_backend or by name (npu/backend.c): the simulated NPU
 * (npu/sim-backend.c) and a real one through CANN and msprof
 * (npu/ascend-backend.c).  An entry says what its backend needs, forms
 * the context part of every identity, and builds and measures a candidate
 * the evaluator has materialised; npu/evaluator.c knows the backends only
 * through their entries.
 * Part of npu/npu.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_BACKEND_H
#define ASCENDOPT_NPU_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct npu_evaluator_options;
struct npu_manifest;
struct npu_op_layout;
struct npu_request;
struct npu_sim_paths;

enum npu_backend {
        NPU_BACKEND_SIM,    /* the simulated NPU (npu/sim) */
        NPU_BACKEND_ASCEND, /* a real NPU through CANN and msprof (npu/ascend.h) */
};

/* "sim" or "ascend". */
const char *npu_backend_name(enum npu_backend backend);
/* The backend of that name; -EINVAL for none. */
int npu_backend_from_name(const char *name, enum npu_backend *ret);

/*
 * One candidate the evaluator hands its backend, materialised in its
 * scratch directory.  The struct and request live only for the start
 * call; everything else the pointers reach outlives the run.
 */
struct npu_backend_candidate {
        struct child_runner *runner;
        const struct npu_sim_paths *paths;           /* NULL unless the backend needs them */
        const struct npu_evaluator_options *options; /* the evaluator's, with its own strings */
        const char *context;                         /* the evaluator's context digest */
        unsigned long long runs; /* how many the evaluator has handed it, this one too */
        const char *identity;    /* the candidate's, hex */
        const struct npu_request *request;
        const struct npu_manifest *manifest; /* of the materialised copy */
        const struct npu_op_layout *layout;  /* the same */
        const char *dir;                     /* the candidate's scratch directory */
        const char *work_dir;                /* the backend's, below dir */
        /*
         * The cases that run on their example's inputs instead of seeded
         * ones (npu/golden.h): {case: {input: [path, one per list element]}},
         * copies below work_dir the backend may read; NULL: none.
         */
        const json_t *input_files;
};

/*
 * Receives the result JSON (ownership passes), once, from the event loop;
 * the backend has let go of the run by then.
 */
typedef void (*npu_backend_done_fn)(json_t *result, void *userdata);

/*
 * A backend, by enum npu_backend and by name: what it needs, the context
 * part of every identity, and how a candidate is measured.
 */
struct npu_backend_ops {
        const char *name;
        bool needs_sim_paths; /* the simulator's headers and runtime */
        bool needs_platform;  /* the SoC must be given: it cannot be defaulted */
        /* The digest of everything but the operator's own files that a result depends on. */
        int (*context)(const struct npu_sim_paths *paths,
                       const struct npu_evaluator_options *options,
                       char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size);
        /*
         * Builds and measures the candidate; done is called once, from the
         * event loop, and *ret_run is the run in flight until then.  Returns
         * -errno when nothing was started (done is then never called).
         */
        int (*start)(const struct npu_backend_candidate *candidate, npu_backend_done_fn done,
                     void *userdata, void **ret_run);
        /* Kills the run's children; done still runs, with status infra_error. */
        void (*cancel)(void *run);
};

extern const struct npu_backend_ops npu_backend_sim;    /* npu/sim-backend.c */
extern const struct npu_backend_ops npu_backend_ascend; /* npu/ascend-backend.c */

/* The entry of a backend (an unknown one gets the sim's). */
const struct npu_backend_ops *npu_backend_get(enum npu_backend backend);

/* Hashes the file at path into s; nothing when it cannot be read.  For the contexts. */
void npu_backend_hash_file(struct sha256 *s, const char *path);

/*
 * The sim's evaluation context: a digest of everything a result depends
 * on besides the operator's files (compiler and flags, the simulator's
 * headers and library, the platform file, the evaluator's version, the
 * jitter).  It is the salt of the object cache, so 'ascendopt eval' shares
 * objects with episodes.  -ENOENT (and err) for an unknown platform.
 */
int npu_sim_context(const struct npu_sim_paths *paths, const char *platform, double jitter_pct,
                    char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size);

#endif
