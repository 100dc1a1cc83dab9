/* SPDX-License-Identifier: MIT */
/*
 * Parsing npu-smi's text output (npu/ascend-smi.c): the device list of
 * `npu-smi info -l`, and the device and process tables of `npu-smi info`
 * that tell a chip's SoC and whether someone else is using it.
 * Part of npu/ascend.h, which includes every one of these.
 */
#ifndef ASCENDOPT_NPU_ASCEND_SMI_H
#define ASCENDOPT_NPU_ASCEND_SMI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ASCEND_MAX_DEVICES   64
#define ASCEND_MAX_PROCESSES 256

/* ------------------------------------------------------------ npu-smi */

/* One chip from `npu-smi info -l`. */
struct ascend_device {
        int npu_id;   /* "NPU ID" */
        int chip_id;  /* 0 .. Chip Count - 1 */
        int logic_id; /* what aclrtSetDevice takes; see below */
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

#endif
