/* SPDX-License-Identifier: MIT */
/*
 * Goldens (npu/golden.c): checking the simulator's outputs against the
 * operator authors' own oracle, an msOpSt expectation function or an
 * example's gen_data.py, run with python3 in the sandbox.
 * Part of npu/npu.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_GOLDEN_H
#define ASCENDOPT_NPU_GOLDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

#include "manifest.h"

/* ------------------------------------------------------------- goldens */

/*
 * A case's golden (the manifest's .cases[].golden, docs/manifest.md "Goldens"): the
 * operator authors' own oracle, run by 'ascendopt eval'.
 *   {"function": "tests/st/test_x.py:calc_expect_func", "names": {...}}:
 *     an msOpSt expectation function, called (as msOpSt does) with one
 *     keyword argument per input ({"value": array, "dtype", "shape",
 *     "format", ...}), per output (the same without a value) and per
 *     attribute, on the inputs the simulator ran (its seeded inputs);
 *     "names" maps a tensor or attribute to the name the msOpSt file uses
 *     where the two differ.  It returns the outputs in order.
 *   {"example": "examples/X", "inputs": {x: {"file": "input/x.bin"} |
 *     {"files": [...]} | {"values": [...]}}, "outputs": {y: "output/golden.bin"}}:
 *     the example's gen_data.py runs in a scratch directory; the simulator
 *     reads the input files it wrote (instead of its seeded inputs) and its
 *     outputs are compared with the golden files.
 * Both run with python3 in the sandbox.  A golden that imports a module
 * that is not installed, or fails, is "unavailable" with the reason.
 */
struct npu_golden;

struct npu_golden_options {
        const char *work_dir; /* the evaluation's work directory (exists; kept until the check) */
        int only_case;        /* as npu_sim_run_options */
        bool skip_bench;
        bool sandbox;
        double timeout_s; /* per Python run; 0: 300 s */
};

typedef void (*npu_golden_done_fn)(void *userdata);

/* Whether any case of the manifest has a golden. */
bool npu_manifest_has_golden(const struct npu_manifest *manifest);

/* A checker for the manifest's selected cases; runner and manifest are borrowed. */
int npu_golden_new(struct child_runner *runner, const struct npu_manifest *manifest,
                   const struct npu_golden_options *options, struct npu_golden **ret_golden);
struct npu_golden *npu_golden_free(struct npu_golden *golden);

/*
 * Runs gen_data.py for the example cases, on the runner's loop; done is
 * called once, after which npu_golden_input_files() is the
 * npu_sim_run_options.input_files to evaluate with (borrowed from golden).
 */
void npu_golden_prepare(struct npu_golden *golden, npu_golden_done_fn done, void *userdata);
const json_t *npu_golden_input_files(const struct npu_golden *golden);

/*
 * After npu_golden_prepare: why case_index (of the manifest), an example
 * case, has no input files (gen_data.py failed, python is missing, a file
 * is missing or has another size); NULL when it has them or is no example
 * case.  Borrowed from golden.
 */
const char *npu_golden_unprepared(const struct npu_golden *golden, size_t case_index);

/*
 * Kills the Python job in flight and starts no other: the phase under way
 * still ends, soon, through its done callback, with the cases it had left
 * "unavailable" ("cancelled").  Accepts NULL.
 */
void npu_golden_cancel(struct npu_golden *golden);

/*
 * Computes the msOpSt goldens on the simulator's inputs and compares every
 * golden case's outputs within the manifest's tolerance; then sets
 * result["golden"] = {"verdict": "match" | "mismatch" | "unavailable",
 * matched, mismatched, unavailable, why?, cases: [{case, verdict, golden,
 * outputs: [{name, elements, max_abs_err, max_rel_err, mismatches, passed,
 * first_mismatch?: {index, got, want}}], why?}]} and calls done.  result
 * (borrowed) must keep its work_dir's files until then.
 */
void npu_golden_check(struct npu_golden *golden, json_t *result, npu_golden_done_fn done,
                      void *userdata);

/*
 * Runs one job of the golden runner (the Python npu/golden.c carries) in
 * dir (created), sandboxed with opdir readable, on the runner's loop:
 * {"mode": "example", "example": DIR, "values": {}} runs DIR/gen_data.py and
 * answers {"status": "ok", "files": {path: bytes}} of what it wrote;
 * {"mode": "fuzz", "file": PY, "function": F} calls an msOpSt fuzz_impl and
 * answers {"status": "ok", "drawn": {input_desc: {name: {shape}},
 * output_desc: {...}, attr: {name: value}}}.  Any other outcome answers
 * {"status": "unavailable", "why": ...}.  done owns the answer, which is
 * NULL when out of memory.
 */
typedef void (*npu_golden_job_done_fn)(json_t *answer, void *userdata);
int npu_golden_run_job(struct child_runner *runner, const char *opdir, const char *dir,
                       const json_t *job, bool sandbox, double timeout_s,
                       npu_golden_job_done_fn done, void *userdata);

#endif
