/* SPDX-License-Identifier: MIT */
/*
 * Renders an episode report for the integration tests:
 *
 *   report-render RECORD.json OUTDIR [--store DIR] [--op-path PATH]
 *
 * writes OUTDIR/ascendopt-report.{md,json,svg} and OUTDIR/commit-message.txt
 * with report_render(), the way the daemon publishes them.  Exits 0, 64 on
 * a usage error, 65 when the record cannot be rendered, 1 otherwise.
 */
#include "publish/publish.h"
#include "report/report.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_file(const char *dir, const char *name, const char *text)
{
        char path[4096];
        FILE *f;
        int r = 0;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        if (!f) {
                fprintf(stderr, "report-render: %s: %s\n", path, strerror(errno));
                return -errno;
        }
        if (fputs(text, f) == EOF)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -EIO;
        if (r < 0)
                fprintf(stderr, "report-render: cannot write %s\n", path);
        return r;
}

int main(int argc, char **argv)
{
        struct report_context ctx = {
                .source_commit = "0123456789abcdef0123456789abcdef01234567",
                .branch = "main",
                .op_path = "examples/ops/level1/relu",
                .backend = "sim",
                .platform = "Ascend910B2",
                .date = 1795373288,
        };
        struct report report = { 0 };
        struct store *store = NULL;
        const char *store_dir = NULL;
        json_t *record = NULL;
        json_error_t jerr;
        char err[512];
        int r, status = 1;

        if (argc < 3)
                goto usage;
        for (int i = 3; i < argc; i++) {
                if (strcmp(argv[i], "--store") == 0 && i + 1 < argc)
                        store_dir = argv[++i];
                else if (strcmp(argv[i], "--op-path") == 0 && i + 1 < argc)
                        ctx.op_path = argv[++i];
                else
                        goto usage;
        }
        record = json_load_file(argv[1], 0, &jerr);
        if (!record) {
                fprintf(stderr, "report-render: %s:%d: %s\n", argv[1], jerr.line, jerr.text);
                status = 65;
                goto out;
        }
        if (store_dir && store_open(store_dir, &store, err, sizeof(err)) < 0) {
                fprintf(stderr, "report-render: %s\n", err);
                goto out;
        }
        r = report_render(store, record, &ctx, &report, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "report-render: %s\n", err);
                status = r == -EINVAL ? 65 : 1;
                goto out;
        }
        if (write_file(argv[2], REPORT_MARKDOWN_NAME, report.markdown) < 0 ||
            write_file(argv[2], REPORT_JSON_NAME, report.json) < 0 ||
            write_file(argv[2], REPORT_SVG_NAME, report.svg) < 0 ||
            write_file(argv[2], "commit-message.txt", report.commit_message) < 0)
                goto out;
        status = 0;
out:
        report_free(&report);
        store_close(store);
        json_decref(record);
        return status;
usage:
        fprintf(stderr, "usage: report-render RECORD.json OUTDIR [--store DIR] [--op-path PATH]\n");
        return 64;
}
