/* SPDX-License-Identifier: MIT */
/*
 * Shared by the files of draft/: the OpDef as the drafts read it, the
 * cases gathered so far, how an example's arguments bind to the OpDef, and
 * each file's functions the others call.
 */
#ifndef ASCENDOPT_DRAFT_INTERNAL_H
#define ASCENDOPT_DRAFT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "draft.h"
#include "common/common.h"
#include "npu/npu.h"

#define DRAFT_SOURCE_MAX_BYTES (4u << 20)
#define DRAFT_MAX_SOURCES      256 /* files read per folder: cann-ops has at most 134 */
#define DRAFT_MAX_ATTRS        64

struct event_base;

/* The loop, runner and simulator files a draft runs the operator's code with. */
struct draft_session {
        struct event_base *base;
        struct npu_environment env; /* no store, no evaluator */
};

/* ------------------------------------------------------------ the OpDef (opdef.c) */

enum param_type { PARAM_REQUIRED, PARAM_OPTIONAL, PARAM_DYNAMIC };

/* An input or output as the OpDef declares it. */
struct param {
        char name[128];
        enum param_type type;
        char dtypes[DRAFT_MAX_VARIANTS]
                   [32]; /* the runtime's names (float16...), "" for one it lacks */
        size_t n_dtypes;
        /* an output that is the input of its name, updated in place (a ref tensor);
         * undeclared: the OpDef declares no outputs and the input is read back */
        bool ref, undeclared;
};

/* An attribute as the OpDef declares it. */
struct attr {
        char name[128];
        char type[16]; /* the runtime's: int, float, bool, string, list_int, ... */
        bool required;
        json_t *default_value; /* NULL: none */
};

struct opdef {
        char type[128];
        struct param inputs[NPU_MAX_TENSORS], outputs[NPU_MAX_TENSORS];
        size_t n_inputs, n_outputs;
        size_t n_outputs_declared; /* n_outputs but for undeclared ref outputs */
        bool has_infer_shape;      /* it registers an InferShape (else outputs need shapes) */
        struct attr attrs[DRAFT_MAX_ATTRS];
        size_t n_attrs;
};

/* The one OpDef op_host registers (or o->op_type's), read by running the host code. */
int draft_find_opdef(const struct draft_options *o, struct draft_session *s, struct opdef *def,
                     char *err, size_t size);
/* Frees a calloc'ed def and what it owns; accepts NULL; returns NULL. */
struct opdef *draft_opdef_free(struct opdef *def);
/* The kernel entry: o->kernel, the only one in op_kernel, or the one named after the op. */
int draft_choose_kernel(const struct draft_options *o, const struct opdef *def, char *ret,
                        size_t ret_size, struct draft_notes *notes, char *err, size_t size);
/* The input named name, or NULL. */
const struct param *draft_find_input(const struct opdef *def, const char *name);

/* ge's DT_ names (without DT_) and msOpSt's type names as the manifest spells them, or NULL. */
const char *draft_manifest_dtype(const char *name);
/* The dtype of p in column v; a param listing one dtype has it in every column. */
const char *draft_param_dtype(const struct param *p, size_t v);
/* Whether p lists a dtype of dtype's kind: floating, or integer and bool. */
bool draft_same_kind(const struct param *p, const char *dtype);
/* Whether p lists dtype (as the manifest names it) in any column. */
bool draft_param_lists(const struct param *p, const char *dtype);

struct draft_state;
/*
 * The OpDef's dtype column: the one whose inputs have the cases' types,
 * else o->variant, else the first the simulator has.
 */
int draft_choose_variant(const struct draft_options *o, const struct opdef *def,
                         const struct draft_state *st, size_t *ret_variant,
                         struct draft_notes *notes, char *err, size_t size);

/* ------------------------------------------------------------ cases (cases.c) */

/* What the cases gathered so far say, from msOpSt files, examples or the caller. */
struct draft_state {
        json_t *cases;                        /* manifest cases */
        json_t *ranges;                       /* input_ranges */
        json_t *attrs;                        /* values of attributes the cases give, first seen */
        char dtypes[NPU_MAX_TENSORS][32];     /* per input, from the first case with types */
        char out_dtypes[NPU_MAX_TENSORS][32]; /* per output, the same */
        bool have_dtypes;
        const char *dtypes_from; /* "the msOpSt cases", "main.cpp" */
        size_t files, skipped, goldens;
        char skip_reason[512]; /* the first case left out, and why */
        struct draft_session *sim;
        const char *opdir;
};

/*
 * The cases: msOpSt's, else the examples', then o->flag_cases; -errno and
 * why (what to give) when there are none or too many.
 */
int draft_gather_cases(const struct draft_options *o, const struct opdef *def,
                       struct draft_state *st, struct draft_notes *notes, char *err, size_t size);
/*
 * One case "[NAME:]x=8x2048,y=8x2048" or "[NAME:]8x2048" (a dynamic input
 * "x=100;2x50") appended to cases as {name, shapes}; -EINVAL and why.
 */
int draft_parse_flag_case(const char *spec, const struct opdef *def, json_t *cases, char *err,
                          size_t size);
/* wanted (or "case") made unique among cases' names, into buf. */
void draft_case_name(const char *wanted, const json_t *cases, char *buf, size_t size);
/* Elements of all the tensors a case's shapes give; of the case c's shapes. */
double draft_shapes_elements(const json_t *shapes);
double draft_case_elements(const json_t *c);

/* Every msOpSt case in the JSON files of opdir/tests/st, in file order (st-cases.c). */
int draft_read_st_cases(const char *opdir, const struct opdef *def, struct draft_state *st,
                        char *err, size_t size);

/* ------------------------------------------------------------ examples */

/*
 * Cases from opdir/examples/ (each subdirectory with main.cpp and
 * gen_data.py; examples.c); -ENOENT and why (the first example's) when
 * none gives one.
 */
int draft_read_examples(const struct opdef *def, struct draft_state *st, struct draft_notes *notes,
                        char *why, size_t why_size);

/*
 * Reads an operator example's main.cpp (example-call.c): the arguments of
 * its aclnnXxxGetWorkspaceSize call, in order, as *ret = {"call": name,
 * "args": [{"kind": "tensor", "shape", "dtype", "file" | "values"} |
 * {"kind": "list", "items": [tensor...]} | {"kind": "null"} | {"kind":
 * "value", "value"} | {"kind": "unknown"}, each with its "expr"]} (the
 * workspace size and executor left out).  -ENOENT (and err) without such a
 * call.
 */
int draft_read_example_call(const char *main_cpp, json_t **ret, char *err, size_t err_size);

/*
 * Reads a hand-written aclnn wrapper in OPDIR/op_host (launcher.c): the
 * parameter names of the declaration of aclnn_call in op_host/aclnn_*.h
 * and the names the one level-0 launch of op_type
 * (ADD_TO_LAUNCHER_LIST_AICORE) gives the kernel, as *ret = {"params":
 * [name | null], "inputs", "outputs", "attrs": [name | null, one per
 * OP_INPUT, OP_OUTPUT and OP_ATTR argument, null for an expression],
 * "header", "launcher": the files, relative to OPDIR}.  -ENOENT and why in
 * err when there is no such declaration, no launch of op_type, or launches
 * that differ; -ENOMEM.
 */
int draft_read_launcher(const char *opdir, const char *op_type, const char *aclnn_call,
                        json_t **ret, char *err, size_t err_size);

/* Whether a main.cpp argument is of kind ("tensor", "list", "null", "value", "unknown"). */
bool draft_arg_is(const json_t *arg, const char *kind);
/* "float16" of a main.cpp tensor argument (a list's first element's), or NULL. */
const char *draft_arg_dtype(const json_t *arg);

/*
 * Where each OpDef input, output and attribute comes from in main.cpp's
 * call (example-bind.c): an argument index, -1, or EXAMPLE_ABSENT for an
 * optional input the call does not pass.
 */
#define EXAMPLE_ABSENT (-2)
struct example_binding {
        int input[NPU_MAX_TENSORS], output[NPU_MAX_TENSORS], attr[DRAFT_MAX_ATTRS];
        size_t values_left;     /* non-tensor arguments bound to nothing */
        size_t dropped, absent; /* tensors the kernel does not take; inputs left out */
        char dropped_names[256];
};

/* By main.cpp's variable names, then in order; -EINVAL and why when the tensors do not add up. */
int draft_bind_example(const struct opdef *def, const json_t *args, bool by_name,
                       struct example_binding *b, char *why, size_t why_size);
/* By the order of the aclnn call CANN generates for an OpDef; -ENOENT when it does not fit. */
int draft_bind_signature(const struct opdef *def, const json_t *args, struct example_binding *b);
/* Through a hand-written wrapper's launch (draft_read_launcher); -ENOENT and why. */
int draft_bind_launcher(const struct opdef *def, const json_t *args, const json_t *launch,
                        struct example_binding *b, char *why, size_t why_size);
/* Whether every tensor bound to an input has a dtype of the kind the input takes. */
bool draft_binding_kinds_agree(const struct opdef *def, const json_t *args,
                               const struct example_binding *b);
/* v as attribute a takes it (0/1 for a bool, 2.0 for a float); NULL when it cannot. */
json_t *draft_attr_value(const struct attr *a, const json_t *v);

/* ------------------------------------------------------------ the bench case (bench-case.c) */

/*
 * Marks the timed case among st->cases: o->bench_shape's, else the
 * largest grown to a realistic size (notes->grown_bench, notes->alt_bench),
 * else the largest.
 */
int draft_bench_case(const struct draft_options *o, const struct opdef *def, struct draft_state *st,
                     struct draft_notes *notes, char *err, size_t size);
/* Marks the largest case (by input elements) as the timed one. */
void draft_mark_bench_case(json_t *cases, struct draft_notes *notes);

/* ------------------------------------------------------------ helpers (draft.c) */

void draft_note(struct draft_notes *notes, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* strcmp for qsort over char *. */
int draft_compare_names(const void *a, const void *b);
/* The files in dir ending in one of the suffixes (NULL-terminated), sorted; each a new string. */
size_t draft_list_files(const char *dir, const char *const *suffixes, char **names, size_t max);
void draft_free_names(char **names, size_t n);
/* Names compared as msOpSt and OpDefs spell them: dstType, dst_type and DstType alike. */
bool draft_same_name(const char *a, const char *b);
/* name lowered, without underscores, into buf. */
void draft_plain_name(const char *name, char *buf, size_t size);

#endif
