/* SPDX-License-Identifier: MIT */
/*
 * Parsers for npu-smi's text output: the device list of `npu-smi info -l`
 * and the device and process tables of `npu-smi info`.  Pure functions on
 * text, written from the documented layout and tolerant of spacing and of
 * fields this code does not know.
 */
#include "ascend-smi.h"

#include "common/common.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies [s, s+n) trimmed of spaces into buf. */
static void copy_trimmed(char *buf, size_t size, const char *s, size_t n)
{
        while (n && isspace((unsigned char)*s)) {
                s++;
                n--;
        }
        while (n && isspace((unsigned char)s[n - 1]))
                n--;
        if (n >= size)
                n = size - 1;
        memcpy(buf, s, n);
        buf[n] = '\0';
}

/* Lower-cased key without spaces, so "NPU  ID" and "npu id" compare equal. */
static void squash(char *buf, size_t size, const char *s)
{
        size_t j = 0;

        for (; *s && j + 1 < size; s++)
                if (!isspace((unsigned char)*s))
                        buf[j++] = (char)tolower((unsigned char)*s);
        buf[j] = '\0';
}

/* A whole non-negative decimal integer, nothing else. */
static bool parse_int(const char *s, long *ret)
{
        char *end;
        long v;

        while (isspace((unsigned char)*s))
                s++;
        if (!isdigit((unsigned char)*s))
                return false;
        errno = 0;
        v = strtol(s, &end, 10);
        while (isspace((unsigned char)*end))
                end++;
        if (errno || *end || v > 1000000000L)
                return false;
        *ret = v;
        return true;
}

/* ------------------------------------------------------ npu-smi info -l */

int ascend_parse_device_list(const char *text, struct ascend_device_list *ret, char *err,
                             size_t err_size)
{
        struct ascend_device_list list = { 0 };
        long total = -1, npu = -1, line_no = 0;
        bool have_chip_count = true;
        const char *p = text;

        if (!text)
                return format_error(err, err_size, -EINVAL, "npu-smi info -l: no output");
        while (*p) {
                const char *eol = strchr(p, '\n');
                size_t len = eol ? (size_t)(eol - p) : strlen(p);
                const char *colon = memchr(p, ':', len);
                char key[64], squashed[64], value[128];
                long v;

                line_no++;
                if (!colon) {
                        char blank[8];
                        copy_trimmed(blank, sizeof(blank), p, len);
                        /* blank lines separate devices; anything else without a colon is noise
                         * we refuse, so that garbage is not read as "no devices" */
                        if (blank[0] && total < 0)
                                return format_error(err, err_size, -EINVAL,
                                                    "npu-smi info -l: line %ld is not \"key : "
                                                    "value\" and no \"Total Count\" came before it",
                                                    line_no);
                        goto next;
                }
                copy_trimmed(key, sizeof(key), p, (size_t)(colon - p));
                copy_trimmed(value, sizeof(value), colon + 1, len - (size_t)(colon - p) - 1);
                squash(squashed, sizeof(squashed), key);
                if (strcmp(squashed, "totalcount") == 0) {
                        if (!parse_int(value, &total))
                                return format_error(err, err_size, -EINVAL,
                                                    "npu-smi info -l: line %ld: Total Count \"%s\" "
                                                    "is not a number",
                                                    line_no, value);
                } else if (strcmp(squashed, "npuid") == 0) {
                        if (!have_chip_count)
                                return format_error(err, err_size, -EINVAL,
                                                    "npu-smi info -l: NPU ID %ld has no Chip Count",
                                                    npu);
                        if (!parse_int(value, &npu))
                                return format_error(err, err_size, -EINVAL,
                                                    "npu-smi info -l: line %ld: NPU ID \"%s\" is "
                                                    "not a number",
                                                    line_no, value);
                        have_chip_count = false;
                } else if (strcmp(squashed, "chipcount") == 0) {
                        if (npu < 0)
                                return format_error(err, err_size, -EINVAL,
                                                    "npu-smi info -l: line %ld: Chip Count before "
                                                    "any NPU ID",
                                                    line_no);
                        if (!parse_int(value, &v) || v < 1 || v > 16)
                                return format_error(
                                    err, err_size, -EINVAL,
                                    "npu-smi info -l: NPU ID %ld: Chip Count \"%s\" "
                                    "is not a number from 1 to 16",
                                    npu, value);
                        for (long c = 0; c < v; c++) {
                                if (list.n == ASCEND_MAX_DEVICES)
                                        return format_error(err, err_size, -EINVAL,
                                                            "npu-smi info -l: more than %d chips",
                                                            ASCEND_MAX_DEVICES);
                                list.devices[list.n].npu_id = (int)npu;
                                list.devices[list.n].chip_id = (int)c;
                                list.devices[list.n].logic_id = (int)list.n;
                                list.n++;
                        }
                        have_chip_count = true;
                }
                /* other keys (Product Name, Serial Number, ...) are not ours */
        next:
                p = eol ? eol + 1 : p + len;
        }
        if (total < 0)
                return format_error(err, err_size, -EINVAL,
                                    "npu-smi info -l: no \"Total Count\" line; is this npu-smi's "
                                    "output? It begins \"%.*s\"",
                                    (int)strcspn(text, "\n") > 200 ? 200 : (int)strcspn(text, "\n"),
                                    text);
        if (!have_chip_count)
                return format_error(err, err_size, -EINVAL,
                                    "npu-smi info -l: NPU ID %ld has no Chip Count", npu);
        {
                /* Total Count counts NPUs, not chips */
                long npus = 0, last = -1;
                for (size_t i = 0; i < list.n; i++)
                        if (list.devices[i].chip_id == 0 && list.devices[i].npu_id != last) {
                                npus++;
                                last = list.devices[i].npu_id;
                        }
                if (npus != total)
                        return format_error(err, err_size, -EINVAL,
                                            "npu-smi info -l: Total Count is %ld but %ld NPU IDs "
                                            "are listed",
                                            total, npus);
        }
        *ret = list;
        return 0;
}

/* ------------------------------------------------------ npu-smi info */

#define MAX_CELLS 16

struct row {
        char cells[MAX_CELLS][160];
        size_t n;
};

/* Splits "| a | b |" into trimmed cells; false for a line that is not a table row. */
static bool split_row(const char *line, size_t len, struct row *row)
{
        const char *p = line, *end = line + len;

        while (p < end && isspace((unsigned char)*p))
                p++;
        if (p == end || *p != '|')
                return false;
        row->n = 0;
        p++;
        while (p < end) {
                const char *bar = memchr(p, '|', (size_t)(end - p));
                if (!bar)
                        break; /* text after the last bar is not a cell */
                if (row->n < MAX_CELLS)
                        copy_trimmed(row->cells[row->n++], sizeof(row->cells[0]), p,
                                     (size_t)(bar - p));
                p = bar + 1;
        }
        return row->n > 0;
}

/* Whitespace-separated words of a cell, up to max. */
static size_t split_words(const char *cell, char words[][96], size_t max)
{
        size_t n = 0;
        const char *p = cell;

        while (*p && n < max) {
                size_t len;
                while (isspace((unsigned char)*p))
                        p++;
                if (!*p)
                        break;
                len = strcspn(p, " \t");
                copy_trimmed(words[n++], 96, p, len);
                p += len;
        }
        return n;
}

/* Index of the cell whose squashed text starts with prefix, or -1. */
static int find_cell(const struct row *row, const char *prefix)
{
        char s[160];

        for (size_t i = 0; i < row->n; i++) {
                squash(s, sizeof(s), row->cells[i]);
                if (strncmp(s, prefix, strlen(prefix)) == 0)
                        return (int)i;
        }
        return -1;
}

enum section {
        SECTION_NONE,
        SECTION_DEVICES,
        SECTION_PROCESSES,
};

static void set_soc(struct ascend_npu *npu, const char *name)
{
        snprintf(npu->name, sizeof(npu->name), "%.*s", (int)sizeof(npu->name) - 1, name);
        if (strncmp(name, "Ascend", 6) == 0)
                snprintf(npu->soc, sizeof(npu->soc), "%.*s", (int)sizeof(npu->soc) - 1, name);
        else
                snprintf(npu->soc, sizeof(npu->soc), "Ascend%.*s", (int)sizeof(npu->soc) - 7, name);
}

int ascend_parse_npu_info(const char *text, struct ascend_npu_info *ret, char *err, size_t err_size)
{
        struct ascend_npu_info *info = calloc(1, sizeof(*info));
        enum section section = SECTION_NONE;
        int health_col = -1, aicore_col = -1, pid_col = -1, pname_col = -1, pmem_col = -1;
        bool seen_device_header = false, expect_chip_row = false;
        const char *p = text;
        long line_no = 0;
        int r = 0;

        if (!info)
                return -ENOMEM;
        if (!text) {
                r = format_error(err, err_size, -EINVAL, "npu-smi info: no output");
                goto out;
        }
        while (*p) {
                const char *eol = strchr(p, '\n');
                size_t len = eol ? (size_t)(eol - p) : strlen(p);
                struct row row;
                char words[4][96], first[160];
                size_t n_words;

                line_no++;
                if (!split_row(p, len, &row))
                        goto next;
                squash(first, sizeof(first), row.cells[0]);
                /* Header rows switch sections. */
                if (strncmp(first, "npu", 3) == 0 && strstr(first, "name")) {
                        section = SECTION_DEVICES;
                        seen_device_header = true;
                        health_col = find_cell(&row, "health");
                        expect_chip_row = false;
                        goto next;
                }
                if (strncmp(first, "chip", 4) == 0 && section == SECTION_DEVICES) {
                        /* the second header row: AICore(%) sits in one cell with others */
                        aicore_col = find_cell(&row, "aicore");
                        goto next;
                }
                if (strncmp(first, "npu", 3) == 0 && find_cell(&row, "processid") >= 0) {
                        section = SECTION_PROCESSES;
                        pid_col = find_cell(&row, "processid");
                        pname_col = find_cell(&row, "processname");
                        pmem_col = find_cell(&row, "processmemory");
                        goto next;
                }
                if (strncmp(first, "norunningprocesses", 18) == 0 ||
                    strncmp(first, "npu-smi", 7) == 0)
                        goto next;
                n_words = split_words(row.cells[0], words, 4);
                if (n_words == 0)
                        goto next;
                if (section == SECTION_DEVICES) {
                        long a, b;
                        if (n_words >= 2 && parse_int(words[0], &a) && !parse_int(words[1], &b)) {
                                /* "NPU Name" row: a new chip */
                                struct ascend_npu *npu;
                                if (info->n_npus == ASCEND_MAX_DEVICES) {
                                        r = format_error(err, err_size, -EINVAL,
                                                         "npu-smi info: more than %d devices",
                                                         ASCEND_MAX_DEVICES);
                                        goto out;
                                }
                                npu = &info->npus[info->n_npus];
                                npu->npu_id = (int)a;
                                npu->chip_id = 0;
                                npu->logic_id = (int)info->n_npus;
                                npu->aicore_pct = -1;
                                set_soc(npu, words[1]);
                                if (health_col >= 0 && (size_t)health_col < row.n)
                                        snprintf(npu->health, sizeof(npu->health), "%.*s",
                                                 (int)sizeof(npu->health) - 1,
                                                 row.cells[health_col]);
                                info->n_npus++;
                                expect_chip_row = true;
                        } else if (parse_int(words[0], &a) && expect_chip_row) {
                                /* "Chip Bus-Id AICore ..." row of the chip above */
                                struct ascend_npu *npu = &info->npus[info->n_npus - 1];
                                char cw[4][96];
                                npu->chip_id = (int)a;
                                if (aicore_col >= 0 && (size_t)aicore_col < row.n &&
                                    split_words(row.cells[aicore_col], cw, 4) > 0 &&
                                    parse_int(cw[0], &b))
                                        npu->aicore_pct = (double)b;
                                expect_chip_row = false;
                        } else {
                                r = format_error(err, err_size, -EINVAL,
                                                 "npu-smi info: line %ld: cannot read the device "
                                                 "row \"%s\"",
                                                 line_no, row.cells[0]);
                                goto out;
                        }
                } else if (section == SECTION_PROCESSES) {
                        struct ascend_npu_process *proc;
                        long npu_id, chip = 0, pid, mem;
                        if (!parse_int(words[0], &npu_id) ||
                            (n_words > 1 && !parse_int(words[1], &chip)) || pid_col < 0 ||
                            (size_t)pid_col >= row.n || !parse_int(row.cells[pid_col], &pid)) {
                                r = format_error(err, err_size, -EINVAL,
                                                 "npu-smi info: line %ld: cannot read the process "
                                                 "row \"%.*s\"",
                                                 line_no, (int)(len > 200 ? 200 : len), p);
                                goto out;
                        }
                        if (info->n_processes == ASCEND_MAX_PROCESSES)
                                goto next; /* the busy check needs only one */
                        proc = &info->processes[info->n_processes++];
                        proc->npu_id = (int)npu_id;
                        proc->chip_id = (int)chip;
                        proc->pid = pid;
                        proc->memory_mb = -1;
                        if (pname_col >= 0 && (size_t)pname_col < row.n)
                                snprintf(proc->name, sizeof(proc->name), "%.*s",
                                         (int)sizeof(proc->name) - 1, row.cells[pname_col]);
                        if (pmem_col >= 0 && (size_t)pmem_col < row.n &&
                            parse_int(row.cells[pmem_col], &mem))
                                proc->memory_mb = mem;
                }
        next:
                p = eol ? eol + 1 : p + len;
        }
        if (!seen_device_header) {
                r = format_error(err, err_size, -EINVAL,
                                 "npu-smi info: no device table (a row starting \"| NPU  Name\"); "
                                 "is this npu-smi's output?");
                goto out;
        }
        if (info->n_npus == 0) {
                r = format_error(err, err_size, -EINVAL,
                                 "npu-smi info: the device table lists no NPU");
                goto out;
        }
        *ret = *info;
out:
        free(info);
        return r;
}

const struct ascend_npu *ascend_npu_by_logic_id(const struct ascend_npu_info *info, int logic_id)
{
        for (size_t i = 0; info && i < info->n_npus; i++)
                if (info->npus[i].logic_id == logic_id)
                        return &info->npus[i];
        return NULL;
}

const struct ascend_npu_process *ascend_npu_foreign_process(const struct ascend_npu_info *info,
                                                            int npu_id, int chip_id,
                                                            const pid_t *ours, size_t n_ours)
{
        for (size_t i = 0; info && i < info->n_processes; i++) {
                const struct ascend_npu_process *proc = &info->processes[i];
                bool mine = false;
                if (proc->npu_id != npu_id || (chip_id >= 0 && proc->chip_id != chip_id))
                        continue;
                for (size_t j = 0; j < n_ours; j++)
                        mine |= (long)ours[j] == proc->pid;
                if (!mine)
                        return proc;
        }
        return NULL;
}
