/* SPDX-License-Identifier: MIT */
/*
 * Shared by the optimizer's unit tests that rewrite real operators: reading
 * an operator's op_kernel and op_host files from the source tree, and a
 * simulator fixture (a store, a runner and an evaluator in a temporary
 * directory) that evaluates a rewritten file set synchronously.
 */
#ifndef ASCENDOPT_TESTS_OP_FIXTURE_H
#define ASCENDOPT_TESTS_OP_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

/* $ASCENDOPT_SOURCE_DIR, else the current directory. */
const char *source_dir(void);
/* A file of the source tree, whole (at most 1 MiB); fails the test when unreadable. */
char *slurp(const char *rel);

/* An operator's op_kernel and op_host files (from dir, relative to the source tree). */
struct op_files {
        struct motif_file files[16];
        size_t n;
};

void op_load(const char *dir, struct op_files *op);
void op_release(struct op_files *op);
/* Replaces the texts of the changed files (ownership of the texts passes). */
void op_update(struct op_files *op, struct motif_file *changed, size_t n);

/* The simulator, for tests that build and run what they rewrote. */
struct fixture {
        char root[64];
        struct event_base *base;
        struct child_runner *runner;
        struct npu_sim_paths paths;
        struct store *store;
        struct npu_evaluator *evaluator;
};

extern struct fixture *fx;

/* cmocka setup and teardown: a store, scratch and object cache under a temporary root. */
int sim_setup(void **state);
int sim_teardown(void **state);

/*
 * Evaluates op's files over manifest's operator with seed 7: with no
 * reference, a baseline whose outputs are kept; otherwise judged against
 * reference.  The result (owned by the caller).
 */
json_t *evaluate(const struct npu_manifest *manifest, const struct op_files *op,
                 const json_t *reference);
double latency(const json_t *result);

#endif
