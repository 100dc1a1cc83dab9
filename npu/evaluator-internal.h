/* SPDX-License-Identifier: MIT */
/*
 * Private to npu/: the example inputs the memoizing evaluator prepares
 * once per operator (npu/evaluator-examples.c).  A case whose golden is an
 * example (npu/golden.h) runs on the inputs the example's gen_data.py
 * writes, as 'ascendopt eval' runs it, not on seeded ones: a tiling
 * function that reads a value-carrying input (paddings, strides, axes,
 * indices) needs the example's values.  gen_data.py runs once per
 * operator and evaluator, in a folder below the evaluator's scratch
 * directory, and every candidate gets copies of what it wrote.
 */
#ifndef ASCENDOPT_NPU_EVALUATOR_INTERNAL_H
#define ASCENDOPT_NPU_EVALUATOR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/common.h"

#include "manifest.h"

struct event_base;

struct npu_examples;     /* the preparations of one evaluator */
struct npu_example_set;  /* one operator's prepared inputs */
struct npu_example_wait; /* a request waiting for them */

struct npu_examples_options {
        struct event_base *base;     /* the runner's loop */
        struct child_runner *runner; /* borrowed */
        const char *scratch_dir;     /* absolute; a folder is made below it on first use */
        bool sandbox;                /* gen_data.py runs sandboxed */
};

int npu_examples_new(const struct npu_examples_options *options, struct npu_examples **ret);
/* Removes the folder with every preparation; one in flight is cancelled. */
struct npu_examples *npu_examples_free(struct npu_examples *examples);

/* Whether any case of the manifest takes its golden (and so its inputs) from an example. */
bool npu_manifest_has_examples(const struct npu_manifest *manifest);

/* Writes the operator's own files (ascendopt.json, op_kernel/, the golden's Python) into dir. */
typedef int (*npu_examples_write_fn)(const char *dir, void *ctx);
/*
 * The preparation ended (set is ready), or, set NULL, the request was
 * cancelled (npu_examples_cancel returned 1); called from the loop.
 */
typedef void (*npu_examples_ready_fn)(const struct npu_example_set *set, void *userdata);

/*
 * The example inputs for key, a digest of everything they come from (the
 * manifest and the golden's Python).  Returns 1 with *ret_set when they are
 * ready; 0 when ready(set, userdata) will be called from the loop, once,
 * unless npu_examples_cancel(*ret_wait) comes first; -errno when no
 * preparation could start.  Requests for a key in preparation wait for
 * that one.  A new preparation first has write() lay out the operator in
 * its own folder, then runs gen_data.py there.  A preparation that fails
 * for a case is ready all the same: that case is left out of the set's
 * files (it runs on seeded inputs) and the reason is logged, once.
 */
int npu_examples_get(struct npu_examples *examples, const char *key, npu_examples_write_fn write,
                     void *ctx, npu_examples_ready_fn ready, void *userdata,
                     const struct npu_example_set **ret_set, struct npu_example_wait **ret_wait);

/*
 * Drops a waiting request.  Returns 0 when it is gone (its ready is never
 * called); 1 when it was the last one waiting: the preparation is then
 * cancelled (its Python killed) and ready(NULL, userdata) comes once that
 * has ended, so that no preparation outlives the requests.  The next
 * request starts anew.  Accepts NULL (0).
 */
int npu_examples_cancel(struct npu_example_wait *wait);

/* The set for key when it is ready, else NULL; starts nothing. */
const struct npu_example_set *npu_examples_peek(struct npu_examples *examples, const char *key);

/*
 * What the identity of a candidate whose cases run on these inputs says
 * of them: "example inputs: CASE example|seeded, ..." (borrowed).
 */
const char *npu_example_set_origin(const struct npu_example_set *set);

/*
 * The same line for a manifest whose example cases all prepare (the
 * identity before a preparation has ended); a new string, NULL when out
 * of memory.
 */
char *npu_examples_expected_origin(const struct npu_manifest *manifest);

/*
 * Copies the prepared inputs of the cases of manifest (the candidate's)
 * into dir (created, fresh) as case_<k>/<input>[_<j>].bin and returns
 * {case: {input: [path, one per list element]}} in *ret_files, which the
 * backends read (an empty object when no case runs on example inputs).
 * The files gen_data.py wrote are opened without following links and must
 * be regular files.  Errors name the file.
 */
int npu_example_set_copy(const struct npu_example_set *set, const struct npu_manifest *manifest,
                         const char *dir, json_t **ret_files, char *err, size_t err_size);

#endif
