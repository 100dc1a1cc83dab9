/* SPDX-License-Identifier: MIT */
/*
 * The real-hardware backend's building blocks, private to npu/ and its
 * tests: npu-smi parsing, the CANN environment from set_env.sh, msprof op
 * output parsing, the custom-op project and its tool command lines, the
 * aclnn harness generator, and an asynchronous driver that chains them.
 *
 * Nothing here has run on an NPU.  It is written from the documented
 * behaviour of npu-smi, set_env.sh, build.sh, the .run installer, aclnn and
 * msprof op (ASCENDC-FACTS §5) and tested against recorded outputs and a
 * fake toolchain (tests/fixtures/fake-cann).  Comments marked "UNTESTED ON
 * HARDWARE" name each assumption a real machine has to confirm.
 */
#ifndef ASCENDOPT_NPU_ASCEND_H
#define ASCENDOPT_NPU_ASCEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include "npu/npu.h"

#define ASCEND_MAX_DEVICES   64
#define ASCEND_MAX_PROCESSES 256
#define ASCEND_MAX_LAUNCHES  1024 /* samples read from one msprof output */

/* ------------------------------------------------------------ npu-smi */

/* One chip from `npu-smi info -l`. */
struct ascend_device {
        int npu_id;   /* "NPU ID" */
        int chip_id;  /* 0 .. Chip Count - 1 */
        int logic_id; /* what ASCEND_RT_VISIBLE_DEVICES takes; see below */
};

struct ascend_device_list {
        struct ascend_device devices[ASCEND_MAX_DEVICES];
        size_t n;
};

/*
 * Parses `npu-smi info -l`: "Total Count : N", then per device "NPU ID : n"
 * and "Chip Count : c" among other "key : value" lines, which are ignored.
 * Every chip becomes one entry; logic ids are given in order of appearance.
 * UNTESTED ON HARDWARE: that order is the runtime's logical numbering on
 * multi-chip cards (`npu-smi info -m` states it; 910B has one chip per NPU).
 * Errors (-EINVAL, message in err): no Total Count, a count that disagrees
 * with the devices listed, a device without a valid Chip Count, garbage.
 */
int ascend_parse_device_list(const char *text, struct ascend_device_list *ret, char *err,
                             size_t err_size);

struct ascend_npu {
        int npu_id;
        int chip_id;
        int logic_id;      /* order of appearance, as above */
        char name[32];     /* the Name column, e.g. "910B4" */
        char soc[48];      /* "Ascend910B4": what CANN calls the SoC version */
        char health[16];   /* "OK", "Warning", ... */
        double aicore_pct; /* AICore(%), or -1 when absent */
};

struct ascend_npu_process {
        int npu_id;
        int chip_id;
        long pid;
        char name[64];
        long memory_mb; /* -1 when absent */
};

struct ascend_npu_info {
        struct ascend_npu npus[ASCEND_MAX_DEVICES];
        size_t n_npus;
        struct ascend_npu_process processes[ASCEND_MAX_PROCESSES];
        size_t n_processes;
};

/*
 * Parses the tables of plain `npu-smi info`: the device table (two rows per
 * chip: "NPU Name | Health | ..." then "Chip | Bus-Id | AICore(%) ...") and
 * the process table ("NPU Chip | Process id | Process name | Process
 * memory(MB)", or "No running processes found in NPU n").  Columns are found
 * by their header names; spacing and extra columns do not matter.  -EINVAL
 * with a message when no device table is found or a row cannot be read.
 */
int ascend_parse_npu_info(const char *text, struct ascend_npu_info *ret, char *err,
                          size_t err_size);

/* The NPU row of a logic id, or NULL. */
const struct ascend_npu *ascend_npu_by_logic_id(const struct ascend_npu_info *info, int logic_id);

/*
 * The first process running on (npu_id, chip_id) whose pid is not one of
 * ours (our own pid and children are not "someone else"), or NULL when the
 * chip is free.  chip_id -1 matches every chip of the NPU.  UNTESTED ON
 * HARDWARE: inside a container npu-smi may print host pids, which never
 * match ours; such a process then counts as foreign, which is the safe side.
 */
const struct ascend_npu_process *ascend_npu_foreign_process(const struct ascend_npu_info *info,
                                                            int npu_id, int chip_id,
                                                            const pid_t *ours, size_t n_ours);

/* ------------------------------------------------------------ environment */

/* Where the CANN toolkit is. */
struct ascend_toolkit {
        char *root;    /* e.g. /usr/local/Ascend/ascend-toolkit/latest */
        char *set_env; /* the set_env.sh that was found */
};

/* Toolkit roots tried when neither the config nor ASCEND_HOME_PATH names one. */
#define ASCEND_DEFAULT_TOOLKITS                                            \
        ((const char *const[]){ "/usr/local/Ascend/ascend-toolkit/latest", \
                                "/usr/local/Ascend/cann", NULL })

/*
 * Finds the toolkit: the configured path when given (a directory or the
 * set_env.sh itself), else home_path (the value of $ASCEND_HOME_PATH), else
 * each of defaults (NULL: ASCEND_DEFAULT_TOOLKITS).  In a root R the script
 * is looked for as R/set_env.sh, R/../set_env.sh (ascend-toolkit/latest ->
 * ascend-toolkit/set_env.sh) and R/cann/set_env.sh (CANN 9's layout).  Only
 * the first of configured / home_path / defaults that is given is searched,
 * so a wrong config is never silently replaced.  -ENOENT with a message
 * listing every path looked at.  *ret owns its strings.
 */
int ascend_toolkit_find(const char *configured, const char *home_path, const char *const *defaults,
                        struct ascend_toolkit *ret, char *err, size_t err_size);
void ascend_toolkit_release(struct ascend_toolkit *toolkit);

/* An environment as an envp array; envp is NULL-terminated and owned. */
struct ascend_env {
        char **envp;
        size_t n;
        size_t capacity;
};

/*
 * Parses `env -0` output: NAME=value records separated by NUL.  Drops the
 * variables the capturing shell itself set (_, SHLVL, PWD, OLDPWD) and
 * records without '='.  -EINVAL when nothing valid is found.
 */
int ascend_env_parse(const char *data, size_t len, struct ascend_env **ret_env, char *err,
                     size_t err_size);
/* From a NULL-terminated envp (NULL: this process's environ). */
int ascend_env_from_envp(const char *const *envp, struct ascend_env **ret_env);
int ascend_env_copy(const struct ascend_env *env, struct ascend_env **ret_env);
struct ascend_env *ascend_env_free(struct ascend_env *env);
/* Borrowed value, or NULL. */
const char *ascend_env_get(const struct ascend_env *env, const char *name);
int ascend_env_set(struct ascend_env *env, const char *name, const char *value);
/* Prepends dir to a ':'-separated list such as LD_LIBRARY_PATH. */
int ascend_env_prepend(struct ascend_env *env, const char *name, const char *dir);

/*
 * Looks a program up in the environment's PATH (the toolkit's, not ours),
 * then in extra_dirs (NULL-terminated, may be NULL).  Writes the absolute
 * path into buf.  -ENOENT with "NAME not found in PATH (dirs...)" in err.
 */
int ascend_env_which(const struct ascend_env *env, const char *name, const char *const *extra_dirs,
                     char *buf, size_t size, char *err, size_t err_size);

struct ascend_env_load;

/*
 * Receives the outcome of ascend_env_load_start: r == 0 and env (ownership
 * passes to the callback), or r < 0, env NULL and a message.
 */
typedef void (*ascend_env_done_fn)(int r, struct ascend_env *env, const char *message,
                                   void *userdata);

/*
 * Sources the toolkit's set_env.sh once in a child shell on the runner,
 * `bash -c '. "$1" >/dev/null 2>&1 </dev/null; exec env -0' ascendopt-set-env
 * SET_ENV`, and
 * captures the resulting environment.  base_envp is the environment the
 * shell starts from (NULL: ours).  The captured environment must define
 * ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME or ASCEND_OPP_PATH, else the load
 * fails (a set_env.sh that did nothing).  The toolkit is borrowed only for
 * this call.  Returns -errno when the child could not be started (the
 * callback is then never called).
 */
int ascend_env_load_start(struct child_runner *runner, const struct ascend_toolkit *toolkit,
                          const char *const *base_envp, double timeout_s, ascend_env_done_fn done,
                          void *userdata, struct ascend_env_load **ret_load);
/* Cancels a load; its callback still runs, with -ECANCELED. */
void ascend_env_load_cancel(struct ascend_env_load *load);

/* ------------------------------------------------------------ msprof op */

/* A parsed CSV table: a header row and data rows, all cells owned. */
struct ascend_csv {
        char **header;
        size_t n_cols;
        char ***rows; /* rows[i] has n_cols cells; missing trailing cells are "" */
        size_t n_rows;
};

/*
 * Parses CSV text (RFC 4180 quoting with "" escapes, a UTF-8 BOM, CRLF or
 * LF line ends, blank lines skipped).  Cells are trimmed of spaces.  Extra
 * cells beyond the header are dropped.  source names the file in errors.
 */
int ascend_csv_parse(const char *text, size_t len, const char *source, struct ascend_csv **ret,
                     char *err, size_t err_size);
struct ascend_csv *ascend_csv_free(struct ascend_csv *csv);
/* Column index by header name, ignoring case and spaces; -1 when absent. */
int ascend_csv_column(const struct ascend_csv *csv, const char *name);

enum ascend_pipe {
        ASCEND_PIPE_S,
        ASCEND_PIPE_V,
        ASCEND_PIPE_MTE2,
        ASCEND_PIPE_MTE3,
        ASCEND_PIPE_COUNT,
};

/* "S", "V", "MTE2", "MTE3": the profile's pipe names, as the sim reports them. */
const char *ascend_pipe_name(enum ascend_pipe pipe);

/* Per-core figures of one launch from PipeUtilization.csv; NAN when absent. */
struct ascend_pipe_summary {
        size_t cores;       /* rows with an aiv_time (all rows without that column) */
        double aiv_time_us; /* mean over cores */
        double aiv_time_max_us;
        double aiv_cycles_max;
        double busy_us[ASCEND_PIPE_COUNT]; /* mean over cores */
        double ratio[ASCEND_PIPE_COUNT];   /* mean over cores, 0..1 */
};

/*
 * Parses PipeUtilization.csv by header name: aiv_time(us), aiv_total_cycles,
 * aiv_{scalar,vec,mte2,mte3}_{time(us),ratio}; whatever of these exists is
 * read, the rest stays NAN.  A busy time missing where its ratio and
 * aiv_time exist is derived from them, and the other way round.
 */
int ascend_parse_pipe_utilization(const char *text, size_t len, const char *source,
                                  struct ascend_pipe_summary *ret, char *err, size_t err_size);

/* One kernel launch: one matching OpBasicInfo.csv row. */
struct ascend_launch {
        char op_name[160];
        char op_type[96];
        double task_duration_us;
        long block_dim;
        long mix_block_dim;                      /* -1 when absent */
        long device_id;                          /* -1 when absent */
        long pid;                                /* -1 when absent */
        double current_freq_mhz, rated_freq_mhz; /* NAN when absent */
        struct ascend_pipe_summary pipes;        /* from the same directory; cores 0 when none */
        char source[512];                        /* the OpBasicInfo file, for messages */
};

struct ascend_profile {
        struct ascend_launch *launches;
        size_t n;
};

/*
 * Appends the rows of one OpBasicInfo.csv text that match to *profile.  A
 * row matches when its Op Name or Op Type contains one of match (NULL
 * matches every row), ignoring case.  Required columns: Op Name, Task
 * Duration(us), Block Dim; a missing one is -EINVAL naming the file and the
 * column.  pipes (may be NULL) is attached to every row appended.
 */
int ascend_parse_op_basic_info(const char *text, size_t len, const char *source,
                               const char *const *match, const struct ascend_pipe_summary *pipes,
                               struct ascend_profile *profile, char *err, size_t err_size);

/*
 * Reads an msprof op output directory: every OpBasicInfo*.csv under dir (at
 * most 8 levels deep; OPPROF_<ts>_XXX/, and for several launches
 * OPPROF_.../device<N>/<Op>/<launch>/OpBasicInfo_<ts>.csv) in natural path
 * order, each with the PipeUtilization*.csv beside it.  -ENOENT when no
 * OpBasicInfo file exists, -ESRCH when no row matches (the message lists the
 * Op Names seen), -EINVAL on a bad file.  On success *ret owns launches.
 */
int ascend_msprof_collect(const char *dir, const char *const *match, struct ascend_profile *ret,
                          char *err, size_t err_size);
void ascend_profile_release(struct ascend_profile *profile);

/*
 * Adds the result JSON's timing fields to result: samples_us[] (Task
 * Duration of each launch, in order), latency_us (their median), iqr_us,
 * block_dim, cycles (when PipeUtilization gave aiv_total_cycles), and
 * profile {task_duration_us, aiv_time_us, clock_mhz, rated_clock_mhz,
 * cores, core_imbalance, mix_block_dim, pipes {S, V, MTE2, MTE3: {busy_us,
 * utilization}}, source: "msprof op"}, the profile being that of the median
 * launch.  Absent figures are left out.  -EINVAL when profile is empty.
 */
int ascend_profile_to_json(const struct ascend_profile *profile, json_t *result);

/* Median and interquartile range (linear interpolation) of n samples. */
void ascend_median_iqr(const double *samples, size_t n, double *ret_median, double *ret_iqr);

/* ------------------------------------------------- project and commands */

/* An argv list: owned strings, NULL-terminated. */
struct ascend_argv {
        char *argv[64];
        size_t n;
};

int ascend_argv_add(struct ascend_argv *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ascend_argv_release(struct ascend_argv *a);
/* Borrowed view for child_spec.argv. */
const char *const *ascend_argv_view(const struct ascend_argv *a);

/*
 * The compute unit CMakePresets.json and ASCEND_COMPUTE_UNIT take, from a
 * SoC version: Ascend910B4 -> ascend910b, Ascend910_9392 -> ascend910_93,
 * Ascend310P3 -> ascend310p.  -EINVAL for a name that is not Ascend<...>.
 */
int ascend_compute_unit(const char *soc, char *buf, size_t size);

/*
 * How a candidate is built.  Decided by ascend_project_materialise:
 *  - ASCEND_PROJECT_OWN: the operator sits in a cann-ops style repository
 *    (an ancestor directory holds build.sh, CMakePresets.json and cmake/).
 *    The repository root's files and directories (not .git, build,
 *    build_out, output), the files of each directory on the way down to
 *    the operator (its CMakeLists.txt chain, not the other operators), and
 *    the candidate's operator directory are copied into the scratch
 *    project, and the project's own `bash build.sh -n <op dir name>`
 *    builds it.
 *  - ASCEND_PROJECT_MSOPGEN: no such repository.  An msopgen operator
 *    description (op.json) is written and `msopgen gen` makes a project
 *    skeleton in the scratch dir; ascend_project_overlay then copies the
 *    operator's op_host/ and op_kernel/ over the skeleton's, and `bash
 *    build.sh` builds it.  We never write CMake files of our own: the
 *    toolkit's templates know its build far better than we could.
 * Either way CMakePresets.json gets ASCEND_COMPUTE_UNIT and
 * ASCEND_CANN_PACKAGE_PATH set for the configured SoC and toolkit.
 */
enum ascend_project_kind {
        ASCEND_PROJECT_OWN,
        ASCEND_PROJECT_MSOPGEN,
};

struct ascend_project {
        enum ascend_project_kind kind;
        char root[4096];       /* where build.sh runs */
        char op_dir[4096];     /* the operator's directory inside root */
        char op_dir_name[256]; /* e.g. add_custom, for build.sh -n */
        char compute_unit[64];
        char soc[64];
        char toolkit_root[4096];
};

/*
 * Writes the custom-op project for manifest's operator into scratch/project
 * (scratch is created; an existing project/ is replaced).  The operator's
 * files always come from manifest->dir (the candidate).  The repository
 * around it is repo_root with the operator at op_relpath inside it; when
 * repo_root is NULL it is searched for above manifest->dir, and when
 * op_relpath is NULL manifest->dir must lie under repo_root.  No repository
 * found means ASCEND_PROJECT_MSOPGEN.  Synchronous copies of one operator
 * and the repository's build files: small.  Errors name the path.
 */
int ascend_project_materialise(const struct npu_manifest *manifest, const char *repo_root,
                               const char *op_relpath, const char *scratch, const char *soc,
                               const char *toolkit_root, struct ascend_project *ret, char *err,
                               size_t err_size);

/* After msopgen: copies op_host/ and op_kernel/ over the skeleton and sets the presets. */
int ascend_project_overlay(const struct npu_manifest *manifest, struct ascend_project *project,
                           char *err, size_t err_size);

/* `msopgen gen -i project/op.json -c ai_core-<soc> -lan cpp -out project/CustomOp`. */
int ascend_msopgen_argv(const struct ascend_project *project, const char *msopgen,
                        struct ascend_argv *ret);

/* `bash build.sh -n <op dir name>` (own) or `bash build.sh` (msopgen); run in project->root. */
int ascend_build_argv(const struct ascend_project *project, const char *bash,
                      struct ascend_argv *ret);

/*
 * The .run package build.sh left in root/build_out (the newest when there
 * are several).  -ENOENT with a message when there is none.
 */
int ascend_find_package(const struct ascend_project *project, char *buf, size_t size, char *err,
                        size_t err_size);

/* `PACKAGE --quiet --install-path=VENDOR_ROOT`. */
int ascend_install_argv(const char *package, const char *install_path, struct ascend_argv *ret);

/*
 * The vendor directory an install created: the one install_path/vendors/<v>
 * holding op_api/lib.  UNTESTED ON HARDWARE: that the installer lays out
 * --install-path this way (vendors/<vendor_name>/op_api/lib).
 */
int ascend_find_vendor(const char *install_path, char *buf, size_t size, char *err,
                       size_t err_size);

/*
 * `msprof op --output=OUT --kernel-name=KERNEL --launch-count=N
 * --launch-skip-before-match=WARMUP HARNESS ARGS...`.  The harness makes
 * WARMUP + N launches; msprof skips the warm-up ones.  UNTESTED ON
 * HARDWARE: that the kernel name msprof matches starts with the entry name.
 */
int ascend_msprof_argv(const char *msprof, const char *out_dir, const char *kernel,
                       unsigned launch_count, unsigned warmup, const char *const *harness_argv,
                       struct ascend_argv *ret);

/*
 * The harness's environment: a copy of base with ASCEND_RT_VISIBLE_DEVICES
 * pinned to the device's logic id, LD_LIBRARY_PATH and ASCEND_CUSTOM_OPP_PATH
 * led by the candidate's vendor directory, so that aclnn loads exactly this
 * candidate's package.
 */
int ascend_run_env(const struct ascend_env *base, int logic_id, const char *vendor_dir,
                   struct ascend_env **ret_env);

/* ------------------------------------------------------------ harness */

/*
 * The attribute names of the OpDef in op_host/ (`.Attr("name")` in order of
 * appearance), which is the order aclnn takes them in.  *ret_names is a
 * NULL-terminated array the caller frees with ascend_strv_free; it is empty
 * when the OpDef has no attributes or could not be read.
 */
int ascend_opdef_attr_order(const struct npu_manifest *manifest, char ***ret_names);
char **ascend_strv_free(char **strv);

struct ascend_harness {
        char *main_cpp;
        char *cmakelists;
        char *target; /* executable name, e.g. ascendopt_harness_add_custom */
};

/*
 * Generates an aclnn harness for the manifest: main.cpp and CMakeLists.txt.
 * The harness is run as `harness CASE LAUNCHES IN.bin... OUT.bin...`: it
 * reads every input (raw little-endian, exactly the case's size), calls
 * aclnn<Name>GetWorkspaceSize(inputs..., attrs..., outputs..., &ws, &exec)
 * then aclnn<Name>(ws, size, exec, stream) LAUNCHES times on device 0 (the
 * runner pins the device with ASCEND_RT_VISIBLE_DEVICES), zeroing outputs
 * before each launch, and writes the outputs of the first launch.  attr
 * order: attr_order (NULL: the manifest's order).  Deterministic: the same
 * manifest gives the same bytes.  An output without a shape in a case takes
 * the first input's, as in the sim.  Unsupported, -ENOTSUP with a message
 * naming the field: dynamic list inputs (aclTensorList) and attributes that
 * are lists of strings or nested lists.  -EINVAL when a case has no value
 * for an attribute or its type changes between cases.
 */
int ascend_harness_generate(const struct npu_manifest *manifest, const char *const *attr_order,
                            struct ascend_harness *ret, char *err, size_t err_size);
void ascend_harness_release(struct ascend_harness *harness);

/* Writes main.cpp and CMakeLists.txt into dir (created). */
int ascend_harness_write(const struct ascend_harness *harness, const char *dir, char *err,
                         size_t err_size);

/*
 * `cmake -S DIR -B DIR/build -DCMAKE_BUILD_TYPE=Release -DASCEND_HOME=...
 * -DCUST_PKG_PATH=VENDOR` (configure), or `cmake --build DIR/build` when
 * build_step is set.  The executable is DIR/build/<harness->target>.
 */
int ascend_harness_cmake_argv(const char *cmake, const char *dir, const char *ascend_home,
                              const char *vendor_dir, bool build_step, struct ascend_argv *ret);

/* ------------------------------------------------------------ driver */

/* One case of a multi-case evaluation: which case, its input files, its seed. */
struct ascend_case_run {
        size_t case_index;         /* into the manifest's cases */
        const char *const *inputs; /* one .bin per manifest input (borrowed) */
        uint64_t seed;             /* recorded in the case's result */
};

#define ASCEND_MAX_CASE_RUNS NPU_MAX_CASES

struct ascend_eval_options {
        const char *toolkit;                 /* the config's; NULL: ASCEND_HOME_PATH, defaults */
        const char *const *toolkit_defaults; /* NULL: ASCEND_DEFAULT_TOOLKITS */
        const struct ascend_env *env;        /* a loaded environment to reuse; NULL loads one */
        const char *soc;                     /* NULL: from npu-smi's Name of the device */
        const char *repo_root;               /* see ascend_project_materialise */
        const char *op_relpath;
        int device; /* logic id of the slot */
        /*
         * The cases to run, in order, on one build of the candidate (at most
         * ASCEND_MAX_CASE_RUNS); n_cases 0 runs the single case_index with
         * inputs and seed.
         */
        const struct ascend_case_run *cases;
        size_t n_cases;
        size_t case_index;         /* which manifest case to run when n_cases is 0 */
        const char *const *inputs; /* one .bin per manifest input, from the evaluator */
        unsigned launch_count;     /* timed launches; 0: 5 */
        unsigned warmup;           /* warm-up launches; 0 means 1 */
        uint64_t seed;             /* recorded in the result */
        double timeout_s;          /* per child; 0: 600 s */
        const char *work_dir;      /* created; NULL: a temporary directory */
        bool keep_work_dir;
        bool build_only;       /* stop after build.sh: status ok, nothing installed or run */
        const pid_t *own_pids; /* pids that are not "someone else" besides ours */
        size_t n_own_pids;
};

struct ascend_eval;

/*
 * Builds, installs and measures one candidate on one device, as a state
 * machine of children on the runner: [set_env.sh] -> [msopgen] -> build.sh
 * -> install -> harness cmake configure and build, once, then for every
 * case npu-smi info (busy check) -> msprof op running the harness ->
 * parse.  done receives the result JSON (docs/design.md) with backend "ascend": status
 * ok with cases[] (each with samples_us, latency_us, iqr_us, block_dim,
 * profile, bottleneck and its outputs), and the summary the sim gives:
 * latency_us the geometric mean over the bench cases (every case when none
 * is marked), samples_us, iqr_us, block_dim and profile of the first bench
 * case, outputs_sha256 over every case; or
 * infra_error (toolchain missing, naming what and where; device busy;
 * install failed), compile_error (the build's first error lines),
 * runtime_error (harness or msprof failure, with the tool's message),
 * unsupported (harness generation).  The manifest and options' pointers are
 * borrowed until done runs.  Returns -errno when nothing was started.
 */
int ascend_eval_start(struct child_runner *runner, const struct npu_manifest *manifest,
                      const struct ascend_eval_options *options, npu_sim_run_done_fn done,
                      void *userdata, struct ascend_eval **ret_eval);
/* Cancels; done still runs, with status infra_error. */
void ascend_eval_cancel(struct ascend_eval *eval);

#endif
