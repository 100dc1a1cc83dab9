/* SPDX-License-Identifier: MIT */
/*
 * NPU side of ascendopt: the operator manifest (ascendopt.json), the output
 * comparison that judges correctness, the seeded inputs, and evaluation of
 * an operator on a backend.  Backends (sim, and ascend on real NPUs) sit
 * behind the memoizing evaluator's one interface and all report one
 * result JSON (docs/design.md).  Library code: it does not log; errors come back as -errno
 * plus a message.
 */
#ifndef ASCENDOPT_NPU_H
#define ASCENDOPT_NPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/common.h"

struct event_base;

/* Limits on what one manifest may ask for. */
#define NPU_MAX_TENSORS       64
#define NPU_MAX_CASES         64
#define NPU_MAX_DIMS          8
#define NPU_MAX_LIST_ITEMS    64
#define NPU_MAX_CASE_ELEMENTS (1ull << 31)
/* Bytes one case's tensors may hold in all: its inputs and outputs on disk
 * and in simulated GM, with the workspace its tiling asks for (each counted
 * once; the scratch an evaluation writes is about twice this). */
#define NPU_MAX_CASE_BYTES (4ull << 30)

/* ----------------------------------------------------------------- dtypes */

enum npu_dtype {
        NPU_FLOAT16,
        NPU_FLOAT32,
        NPU_BFLOAT16,
        NPU_INT8,
        NPU_INT16,
        NPU_INT32,
        NPU_INT64,
        NPU_UINT8,
        NPU_UINT16,
        NPU_UINT32,
        NPU_BOOL,
        NPU_UINT64,
        NPU_FLOAT64,
        NPU_COMPLEX64, /* a float32 real and imaginary part, compared part by part */
        NPU_DTYPE_COUNT,
};

/* "float16" and friends; -EINVAL for an unknown name. */
int npu_dtype_from_name(const char *name, enum npu_dtype *ret);
const char *npu_dtype_name(enum npu_dtype dtype);
/* The C++ type the kernel sees, for DTYPE_<NAME> macros: "half", "float"... */
const char *npu_dtype_kernel_type(enum npu_dtype dtype);
/* Its ge::DataType value, for ORIG_DTYPE_<NAME> macros: DT_FLOAT is 0, DT_FLOAT16 1... */
int npu_dtype_ge_value(enum npu_dtype dtype);
size_t npu_dtype_size(enum npu_dtype dtype);
/* float16, float32, bfloat16, float64 and complex64 (whose parts are float32) */
bool npu_dtype_is_float(enum npu_dtype dtype);

/* --------------------------------------------------------------- manifest */

struct npu_tolerance {
        double atol;
        double rtol;
        double max_mismatch_fraction;
};

struct npu_tensor {
        char *name;
        enum npu_dtype dtype;
        bool is_list; /* a dynamic input or output: its shape is a list of shapes */
        /*
         * An output marked "ref": the input of the same name, which the
         * kernel updates in place (CANN's ref tensor: an OpDef input and
         * output of one name, one GM buffer).  It has the input's dtype and
         * shape and no shape of its own; the output is that buffer after
         * the run.  When the OpDef declares no output of that name (an
         * operator with no outputs at all, such as an in-place scale), the
         * output takes no kernel argument and only says which input to
         * read back.
         */
        bool ref;
};

struct npu_case {
        char *name;
        /* {tensor: [dims], [[dims], ...] for a dynamic list, or null for an optional
         * input the case leaves out (the kernel gets a null address)} */
        json_t *shapes;
        json_t *attrs;        /* the manifest's attrs with the case's overrides applied */
        json_t *golden;       /* the case's "golden" (npu/golden.c), or NULL */
        json_t *input_ranges; /* the manifest's input_ranges with the case's overrides applied */
        bool bench;
};

struct npu_manifest {
        char *dir;           /* the operator directory, absolute */
        char *source;        /* path of ascendopt.json, for messages */
        char *name;          /* OpDef type name, e.g. AddCustom */
        char *kernel;        /* entry expression, e.g. add_custom or is_finite<1, 2> */
        char *kernel_source; /* op_kernel/<op>.cpp, relative to dir; all of op_host is built */
        struct npu_tensor *inputs, *outputs;
        size_t n_inputs, n_outputs;
        struct npu_case *cases;
        size_t n_cases;
        json_t *input_ranges; /* {input: [lo, hi]} */
        struct npu_tolerance tolerance[NPU_DTYPE_COUNT];
        int level;
        bool auto_sync;
        uint64_t max_instructions; /* 0: the simulator's default */
        json_t *doc;               /* the whole manifest */
};

/*
 * Loads OPDIR/ascendopt.json and checks it against the operator's files:
 * the op_host and op_kernel sources must exist, every case must give a shape
 * (or null) to every input, tensor names are unique but for ref outputs,
 * and shapes stay under the limits above.  Errors name the
 * file and field: "add/ascendopt.json: .cases[1].shapes.y: missing shape".
 */
int npu_manifest_load(const char *opdir, struct npu_manifest **ret_manifest, char *err,
                      size_t err_size);
struct npu_manifest *npu_manifest_free(struct npu_manifest *manifest);

/*
 * The same checks on a document that is not on disk yet (doc is borrowed;
 * the manifest keeps a copy): 'ascendopt init' tries its draft this way.
 * source_name, relative to opdir, is what errors call the document.
 */
int npu_manifest_from_json(const char *opdir, const json_t *doc, const char *source_name,
                           struct npu_manifest **ret_manifest, char *err, size_t err_size);

/* The tolerance a manifest gets for dtype when it gives none; NULL past the last dtype. */
const struct npu_tolerance *npu_default_tolerance(enum npu_dtype dtype);

/* The default kernel entry for an OpDef name: AddCustom -> add_custom. */
char *npu_snake_case(const char *name);

/* ------------------------------------------------------- operator layout */

/*
 * An operator is a folder inside its repository: the top of the git work
 * tree, or of a tree ascendopt exported (marked by this file at its root).
 */
#define NPU_EXPORT_MARKER ".ascendopt-export"

/* Limits on what one operator's build may name. */
#define NPU_LAYOUT_MAX_UNITS 64   /* host C++ units */
#define NPU_LAYOUT_MAX_DIRS  32   /* include folders of each kind */
#define NPU_LAYOUT_MAX_FILES 2048 /* files its #include lines reach */

/*
 * What compiles an operator, read from the repository around it
 * (npu/oplayout.c): the host units that define the OpDef, the tiling
 * function and InferShape, with the aclnn and opdev wrappers left out; the
 * include folders the repository's CMake declares for them (or, without
 * CMake, every inc or include folder under a folder named common); and the
 * repository files outside the operator's folder that its sources include,
 * which are part of a candidate's identity and travel with it.
 */
struct npu_op_layout {
        char *repo_root;   /* absolute; the operator's folder itself when it has no repository */
        char *op_dir;      /* absolute */
        char *op_relpath;  /* op_dir below repo_root; "" when they are the same */
        bool from_cmake;   /* the repository's CMake named the host units */
        char **host_units; /* absolute paths, in build order */
        size_t n_host_units;
        char **host_includes; /* absolute folders searched after op_host/, op_kernel/ and op_dir */
        size_t n_host_includes;
        char **kernel_includes; /* absolute folders the kernel's compile options add */
        size_t n_kernel_includes;
        char **kernel_defines; /* -DNAME[=VALUE] from the kernel's compile options */
        size_t n_kernel_defines;
        char **tiling_headers; /* absolute: headers defining tiling data, forced into the kernel */
        size_t n_tiling_headers;
        char *
            *shared_files; /* relative to repo_root, sorted: files outside op_dir the build reads */
        size_t n_shared_files;
};

/*
 * The repository root above op_dir (op_dir included): the nearest folder
 * holding .git or NPU_EXPORT_MARKER.  -ENOENT when there is none.
 */
int npu_find_repo_root(const char *op_dir, char *buf, size_t size);

/*
 * Reads the layout of the operator in op_dir.  repo_root NULL: found with
 * npu_find_repo_root, else the operator stands alone.  Only paths inside
 * the repository are ever used.  Errors name the operator and what is
 * wrong (no host source, a limit passed).
 */
int npu_op_layout_read(const char *op_dir, const char *repo_root, struct npu_op_layout **ret,
                       char *err, size_t err_size);
struct npu_op_layout *npu_op_layout_free(struct npu_op_layout *layout);

/* Whether the build reads anything of the repository outside the operator's folder. */
bool npu_op_layout_uses_repo(const struct npu_op_layout *layout);

/*
 * The same layout for a copy of the operator at new_root: of the whole
 * repository's files it reads (the operator then lies at new_root/op_relpath)
 * when it uses the repository, else of the operator's folder alone (which
 * is then new_root).
 */
int npu_op_layout_rebase(const struct npu_op_layout *layout, const char *new_root,
                         struct npu_op_layout **ret);

/* ------------------------------------------------------------- comparison */

struct npu_comparison {
        double max_abs_err;
        double max_rel_err;
        double mismatch_fraction;
        size_t elements;
        size_t mismatches;
        size_t first_mismatch; /* the first failing element, when mismatches > 0 */
        double first_got, first_want;
        bool passed;
};

/*
 * Compares two buffers of n elements of one dtype: an element passes when
 * |got - want| <= atol + rtol * |want|, and NaN and Inf must sit at the same
 * positions.  The comparison passes when the failing fraction is at most
 * max_mismatch_fraction.  A complex64 element is two float32 parts, each
 * judged on its own: the comparison counts 2n elements.
 */
void npu_compare(enum npu_dtype dtype, const void *got, const void *want, size_t n,
                 const struct npu_tolerance *tolerance, struct npu_comparison *ret);

/* half and bfloat16 bit patterns to float, exactly. */
float npu_half_to_float(uint16_t bits);
float npu_bfloat16_to_float(uint16_t bits);

/* ----------------------------------------------------------------- inputs */

/*
 * The seeded inputs (docs/design.md), bit for bit as the simulator's runtime makes them
 * (npu/sim/runtime/harness.cpp, "---- inputs"): input instance k (manifest
 * order, each element of a list counting as one) is splitmix64 seeded with
 * seed XOR (0xD1B54A32D192ED03 * (k + 1)), one draw per element; floats
 * are lo + (hi - lo) * u in double, rounded to float and then to half or
 * bfloat16 (nearest even), kept as a double for float64, default [-1, 1);
 * a complex64 element takes two draws, its real then its imaginary part,
 * each made as a float32; integers are lo + x mod (hi - lo + 1), default
 * [-100, 100] clipped to the type (uint64 to [0, 2^63)), bool [0, 1].
 */
struct npu_input_generator {
        enum npu_dtype dtype;
        uint64_t state;
        double lo, hi;  /* floats */
        int64_t int_lo; /* integers */
        uint64_t span;
};

/* range: {lo, hi} from input_ranges, or NULL for the default. */
void npu_input_generator_init(struct npu_input_generator *generator, enum npu_dtype dtype,
                              uint64_t seed, uint32_t k, const double *range);
/* The next n elements, little-endian, into buf (n * the dtype's size bytes). */
void npu_input_generate(struct npu_input_generator *generator, void *buf, size_t n);

/*
 * Writes the inputs of one case for seed into dir (created) as raw
 * little-endian files in_<name>.bin (in_<name>_<j>.bin for the elements of
 * a list input), and returns their records [{name, dtype, shape, file}] in
 * *ret_inputs (owned).  The sim derives the case's seed as the evaluation's
 * seed plus the case index; pass that.  Errors name the file or field.
 */
int npu_inputs_write(const struct npu_manifest *manifest, size_t case_index, uint64_t seed,
                     const char *dir, json_t **ret_inputs, char *err, size_t err_size);

/* ------------------------------------------------------------- signatures */

/*
 * The categorical bottleneck signature of a profile (docs/design.md,
 * "An episode"), such as "bound=mte2 v_util=low ... launch=mix";
 * a new string, or NULL when the profile has no timing.  Every token is one
 * of npu_signature_vocabulary (NULL-terminated).
 */
char *npu_bottleneck_signature(const json_t *profile);
extern const char *const npu_signature_vocabulary[];

/* ------------------------------------------------------------- evaluation */

/* The compiler and flags of every simulator compile (argv[0] is the compiler). */
#define NPU_SIM_COMPILE_FLAGS 8
extern const char *const npu_sim_compile_flags[NPU_SIM_COMPILE_FLAGS];
/* The same for op_host units, which also get ascendsim/host_prelude.h forced in. */
extern const char *const npu_sim_host_compile_flags[NPU_SIM_COMPILE_FLAGS];
/*
 * Compiles and links run at this added niceness, as children with
 * child_spec.throttled: a runner made with max_throttled caps how many run
 * at once (the daemon's max_parallel_compiles).
 */
#define NPU_COMPILE_NICE 10

/* The kernel unit's extra flag: basic-block counting, so scalar code costs time. */
extern const char *const npu_sim_kernel_flag;

/* Where the simulator's headers, platform files and runtime library live. */
struct npu_sim_paths {
        char *root; /* holds include/, platforms/ and libascendsim.a */
        char *include_dir;
        char *platforms_dir;
        char *library;
};

/*
 * Finds the simulator: $ASCENDOPT_SIM_DIR, else "sim" next to the running
 * program (the build tree), else the installed data directory.  -ENOENT
 * when none holds a runtime library.
 */
int npu_sim_paths_find(struct npu_sim_paths *ret);
void npu_sim_paths_release(struct npu_sim_paths *paths);

struct npu_sim_run_options {
        const char *platform; /* NULL: Ascend910B2 */
        uint64_t seed;
        int only_case;   /* index into the manifest's cases; -1 runs every case */
        bool skip_bench; /* leave out cases marked bench (quick checks) */
        bool build_only; /* compile and link, run nothing: status ok with no cases */
        /* a Chrome trace of the selected case (with only_case) or of the first
         * bench case (else the first case); NULL: none */
        const char *trace_path;
        double jitter_pct; /* seeded noise on reported latencies, to test noise handling */
        uint64_t jitter_seed;
        /* a bench case whose simulated time passes this stops with status slow; 0: never */
        double slow_after_us;
        double timeout_s; /* per compile and per run; 0: 120 s */
        struct child_limits limits;
        const char *work_dir;          /* created if missing; NULL: a temporary directory */
        bool keep_work_dir;            /* a temporary directory is removed unless this is set */
        bool sandbox;                  /* run candidates under bubblewrap when it works */
        const char *const *permissive; /* simulator rules downgraded to warnings */
        uint64_t max_instructions;     /* 0: the runtime's default */
        /*
         * Compiled units are cached here by content (NULL: no cache), so a
         * candidate that changes only op_host reuses the kernel's object.
         * cache_salt must change whenever anything outside the operator
         * that a compile depends on does (the evaluator's context digest).
         */
        const char *cache_dir;
        const char *cache_salt;
        /* build the precompiled host prelude in cache_dir when it is not there
         * (an evaluation always uses one that is) */
        bool build_prelude;
        /* where the sources are (borrowed); NULL: read from the manifest's folder */
        const struct npu_op_layout *layout;
        /*
         * Inputs read from files instead of the seeded generator (the
         * operator's example data, npu/golden.h): {case name: {input name:
         * [path, one per list element]}}, paths inside work_dir.  NULL: none.
         */
        const json_t *input_files;
};

/*
 * Receives what the operator's host code registers, as the simulator
 * runtime's --describe prints it: {"op_defs": [{type, inputs, outputs
 * (each {name, param_type: required|optional|dynamic, dtypes: [names]}),
 * attrs ({name, type, required, default?}), ...}], "op_impls": [...]}
 * (owned by the callback), or NULL and a one-line error.
 */
typedef void (*npu_describe_done_fn)(json_t *description, const char *error, void *userdata);

/*
 * Compiles opdir's op_host units for the simulator in work_dir (which must
 * exist and is left as it is), links them with the runtime and runs
 * --describe, on the runner's loop.  -ENOENT when op_host has no C++
 * source; the callback is then never called.
 */
int npu_sim_describe_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                           const char *opdir, const char *work_dir, double timeout_s,
                           npu_describe_done_fn done, void *userdata);

struct npu_sim_run;

/*
 * Receives the result JSON (docs/design.md, "The result of an evaluation"); ownership passes
 * to the callback.  Called once, from the event loop.
 */
typedef void (*npu_sim_run_done_fn)(json_t *result, void *userdata);

/*
 * Builds the operator for the simulator and runs its cases, asynchronously
 * on the runner's event loop.  The manifest and paths are borrowed and must
 * outlive the evaluation.  Returns -errno when nothing could be started
 * (the callback is then never called).
 */
int npu_sim_run_start(struct child_runner *runner, const struct npu_sim_paths *paths,
                   const struct npu_manifest *manifest, const struct npu_sim_run_options *options,
                   npu_sim_run_done_fn done, void *userdata, struct npu_sim_run **ret_eval);

/* Cancels a running evaluation; its callback still runs, with status infra_error. */
void npu_sim_run_cancel(struct npu_sim_run *eval);

/*
 * Compares the outputs recorded in two results of the same manifest and
 * seed, case by case.  Adds "correctness" to candidate and sets its status
 * to wrong_answer when a case fails.  Returns -EINVAL when the results
 * cannot be compared (different cases, missing files).
 */
int npu_compare_results(const struct npu_manifest *manifest, json_t *candidate,
                        const json_t *reference, char *err, size_t err_size);

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
 * {"status": "unavailable", "why": ...}.  done owns the answer.
 */
typedef void (*npu_golden_job_done_fn)(json_t *answer, void *userdata);
int npu_golden_run_job(struct child_runner *runner, const char *opdir, const char *dir,
                       const json_t *job, bool sandbox, double timeout_s,
                       npu_golden_job_done_fn done, void *userdata);

/* ------------------------------------------------------------ the evaluator */

/*
 * Turns a candidate (an operator with some files replaced) into a trusted,
 * memoized result: computes its identity (docs/design.md, "Inputs, tolerance and identity"),
 * serves it from the store when it was measured before, and otherwise
 * materialises it in a scratch directory, builds and runs it on the
 * evaluator's backend, judges its outputs against a reference result, and
 * stores the result and the candidate's source texts.  infra_error results
 * are never stored.
 */
struct store;
struct npu_evaluator;
struct npu_job;
struct ascend_env;

#define NPU_EVALUATOR_VERSION 1

enum npu_backend {
        NPU_BACKEND_SIM,    /* the simulated NPU (npu/sim) */
        NPU_BACKEND_ASCEND, /* a real NPU through CANN and msprof (npu/ascend.h) */
};

/* "sim" or "ascend". */
const char *npu_backend_name(enum npu_backend backend);
/* The backend of that name; -EINVAL for none. */
int npu_backend_from_name(const char *name, enum npu_backend *ret);

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
 * The sim's evaluation context: a digest of everything a result depends
 * on besides the operator's files (compiler and flags, the simulator's
 * headers and library, the platform file, the evaluator's version, the
 * jitter).  It is the salt of the object cache, so 'ascendopt eval' shares
 * objects with episodes.  -ENOENT (and err) for an unknown platform.
 */
int npu_sim_context(const struct npu_sim_paths *paths, const char *platform, double jitter_pct,
                    char ret_context[SHA256_HEX_SIZE], char *err, size_t err_size);

/* One file of a candidate that differs from the base operator. */
struct npu_override {
        const char *path; /* relative to the operator directory, e.g. op_host/add_tiling.h */
        const char *text;
};

struct npu_request {
        const struct npu_manifest *manifest; /* the base operator (borrowed) */
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
        int device; /* the slot's logic id the caller leased (ascend); the sim ignores it */
};

/*
 * Receives the result (ownership passes) and whether it came from the memo.
 * Called once, from the event loop, never from inside npu_evaluate().
 */
typedef void (*npu_evaluated_fn)(json_t *result, bool memo_hit, void *userdata);

/* Computes the identity of a request's candidate into hex; -errno when a file is unreadable. */
int npu_candidate_identity(const struct npu_evaluator *evaluator, const struct npu_request *request,
                           char hex[SHA256_HEX_SIZE]);

int npu_evaluate(struct npu_evaluator *evaluator, const struct npu_request *request,
                 npu_evaluated_fn done, void *userdata, struct npu_job **ret_job);

/*
 * Kills the children of an evaluation in flight; its callback still runs,
 * soon, with status infra_error (never stored).  The handle is valid until
 * the callback returns.
 */
void npu_job_cancel(struct npu_job *evaluation);

#include "environment.h"

#endif
