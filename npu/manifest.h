/* SPDX-License-Identifier: MIT */
/*
 * The operator and what it asks for: the dtypes, the manifest
 * (ascendopt.json: tensors, shape cases, tolerances; npu/manifest.c) and
 * the operator's layout in its repository (npu/oplayout.c), which says
 * what compiles it.  The limits on what one manifest may ask for are here.
 * Part of npu/npu.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_MANIFEST_H
#define ASCENDOPT_NPU_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

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

/* ------------------------------------------------------- dtype variants */

/*
 * The dtype combinations of an operator's OpDef beyond its manifest's own
 * (npu/dtype-variants.c), so that a candidate is checked on every one the
 * original passes (issue #26).  A variant is the manifest with the
 * combination's dtypes, its tolerances (the dtype's default where it gives
 * none) and its small cases only (the cases not marked bench, with the
 * example's inputs whose dtype the variant keeps, comparing no golden
 * output; the smallest case when all are bench cases).
 */
#define NPU_MAX_DTYPE_VARIANTS 16

struct npu_dtype_variant {
        char *label; /* "x:int32 y:int32": every input and output but ref ones */
        json_t *doc; /* the variant's manifest document, checked */
};

/* The manifest's own combination as a variant's label names one; NULL: out of memory. */
char *npu_manifest_dtype_label(const struct npu_manifest *manifest);

/*
 * The variants of manifest that description (what --describe printed:
 * {"op_defs": [{type, inputs, outputs: [{name, dtypes}]}]}) registers for
 * the OpDef of the manifest's name: each dtype column (a parameter listing
 * one dtype has it in every column) other than the manifest's own, once
 * (columns that differ only in format are one), at most max.  Those that
 * cannot be checked are appended to not_checkable as {"dtypes": label,
 * "why": reason}: a dtype the simulator lacks, columns of unequal length,
 * the ones past max, a variant the manifest checks refuse; or one entry for
 * them all when the OpDef is missing or lacks a tensor of the manifest.
 * -ENOMEM only; release the variants with npu_dtype_variants_release().
 */
int npu_manifest_dtype_variants(const struct npu_manifest *manifest, const json_t *description,
                                struct npu_dtype_variant *variants, size_t max, size_t *ret_n,
                                json_t *not_checkable);
void npu_dtype_variants_release(struct npu_dtype_variant *variants, size_t n);

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
        /* relative to repo_root: shared headers the kernel includes by a bare
         * name, which a copy in op_kernel/ would stand in for (all of them
         * together, as they include each other the same way); an episode
         * copies them there to rewrite them.  Empty when copies would not
         * build as the originals do. */
        char **kernel_headers;
        size_t n_kernel_headers;
};

/*
 * The repository root above op_dir (op_dir included): the nearest folder
 * holding .git or NPU_EXPORT_MARKER.  -ENOENT when there is none.
 */
int npu_find_repo_root(const char *op_dir, char *buf, size_t size);

/*
 * Whether dir is an operator's folder: it holds op_host/ and op_kernel/.
 * The daemon's export (watch_export_operator) and the ascend backend's
 * scratch project leave out every such folder but the candidate's.
 */
bool npu_is_operator_dir(const char *dir);

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

#endif
