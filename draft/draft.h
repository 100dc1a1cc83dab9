/* SPDX-License-Identifier: MIT */
/*
 * Manifest drafting: an operator's ascendopt.json from what its own files
 * say, for 'ascendopt init'.  The OpDef in op_host gives the name, the
 * inputs and outputs with their dtypes and the attributes with their
 * defaults; op_kernel gives the kernel entry; msOpSt cases (the JSON files
 * in tests/st), else the examples (examples/<dir>/main.cpp and
 * gen_data.py), else the caller's cases give the shapes.  The OpDef is read
 * by running the host code on the simulator (npu_sim_describe_start), so
 * loops and helpers that build it are followed.  The check runs the draft
 * once on the simulator, so that a draft that does not match the operator
 * need never be written.
 */
#ifndef ASCENDOPT_DRAFT_H
#define ASCENDOPT_DRAFT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define DRAFT_MAX_VARIANTS   32 /* dtype combinations an OpDef lists */
#define DRAFT_MAX_FLAG_CASES 16
#define DRAFT_MAX_FLAG_ATTRS 64

/* What to draft, and what the caller says instead of the operator's files. */
struct draft_options {
        const char *opdir;
        const char *op_type;     /* which OpDef when op_host has several; NULL: the only one */
        const char *kernel;      /* the entry expression; NULL: found in op_kernel */
        const char *bench_shape; /* the timed case, in a case's form; NULL: chosen or grown */
        /* cases "[NAME:]x=8x2048,y=8x2048" or "[NAME:]8x2048"; a dynamic input "x=100;2x50" */
        const char *flag_cases[DRAFT_MAX_FLAG_CASES];
        size_t n_flag_cases;
        /* attribute values "NAME=VALUE", VALUE as JSON, else a string */
        const char *flag_attrs[DRAFT_MAX_FLAG_ATTRS];
        size_t n_flag_attrs;
        long variant; /* the OpDef's dtype column; -1: the first the simulator has */
        int level;    /* the manifest's level, 1 to 3 */
};

/* What the draft was made from, to be said to the user. */
struct draft_notes {
        char lines[32][512];
        size_t n;
        char grown_bench[129]; /* the bench case the draft grew, which the check runs too */
        json_t *alt_bench;     /* the same grown along the other axis (owned), or NULL */
};

/* Frees what notes own; they may be reused after. */
void draft_notes_release(struct draft_notes *notes);

/* The simulator and an event loop to run its children on, shared by drafts. */
struct draft_session;

/*
 * Finds the simulator runtime (npu_sim_paths_find) and starts a child
 * runner.  -errno and why in err.
 */
int draft_session_new(struct draft_session **ret, char *err, size_t err_size);
/* Accepts NULL; returns NULL. */
struct draft_session *draft_session_free(struct draft_session *s);

/*
 * Drafts o->opdir's manifest: *ret_doc (a new reference) holds name,
 * kernel, description, inputs, outputs, attrs, cases (exactly one of them
 * with "bench": true), input_ranges, tolerance, level and auto_sync; lines
 * appended to notes (zeroed by the caller) say where each came from.
 * Runs the host code on the simulator and, in the sandbox, an msOpSt
 * case's fuzz_impl and an example's gen_data.py, but not the kernel (see
 * draft_check).  -ENOMEM (err may then be empty), or another -errno with
 * what is missing and what to give in err, naming the directory, file,
 * flag or field.  Release notes with draft_notes_release whatever it
 * returns.
 */
int draft_manifest(const struct draft_options *o, struct draft_session *s, json_t **ret_doc,
                   struct draft_notes *notes, char *err, size_t err_size);

/*
 * Checks a draft of opdir as any manifest (npu_manifest_from_json) and,
 * when run is true, runs its smallest case on the simulator (an example's
 * case on the example's inputs, with its golden) and then the bench case
 * the draft grew: one that does not run is grown along the other axis or
 * dropped, the largest other case timed instead, and doc changed so
 * (notes say so).  summary gets "case NAME ran on the simulator: ok, ..."
 * when it ran, else "".  s may be NULL when run is false.  -errno and why
 * in err.
 */
int draft_check(struct draft_session *s, const char *opdir, json_t *doc, bool run,
                struct draft_notes *notes, char *summary, size_t summary_size, char *err,
                size_t err_size);

#endif
