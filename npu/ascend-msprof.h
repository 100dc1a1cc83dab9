/* SPDX-License-Identifier: MIT */
/*
 * Reading what `msprof op` writes (npu/ascend-msprof.c): CSV tables,
 * OpBasicInfo.csv and PipeUtilization.csv, and the result JSON's timing
 * fields made from them.
 * Part of npu/ascend.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_ASCEND_MSPROF_H
#define ASCENDOPT_NPU_ASCEND_MSPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define ASCEND_MAX_LAUNCHES 1024 /* samples read from one msprof output */

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
 * row matches when its Op Name starts with one of match (NULL matches every
 * row), as msprof op's --kernel-name does: an installed custom kernel is
 * named <OpType>_<hash>_<tiling key>, so "AddCustom_" picks AddCustom's
 * launches and not AddCustomV2's.  "Op Type" is not read for matching: it
 * says "vector" or "mix", not the operator.  Required columns: Op Name, Task
 * Duration(us), Block Dim; a missing one is -EINVAL naming the file and the
 * column.  pipes (may be NULL) is attached to every row appended.
 */
int ascend_parse_op_basic_info(const char *text, size_t len, const char *source,
                               const char *const *match, const struct ascend_pipe_summary *pipes,
                               struct ascend_profile *profile, char *err, size_t err_size);

/*
 * Reads an msprof op output directory: every OpBasicInfo*.csv under dir (at
 * most 8 levels deep; OPPROF_<ts>_XXX/, and for several launches
 * OPPROF_.../device<N>/<kernel>/<launch>/OpBasicInfo_<ts>.csv) in natural path
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

#endif
