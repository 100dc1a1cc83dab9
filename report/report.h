/* SPDX-License-Identifier: MIT */
/*
 * The report published beside an optimized operator: Markdown for people,
 * JSON with the same facts for machines, an SVG plot of the trajectory
 * (the Markdown links to it as REPORT_SVG_NAME) and the commit message,
 * rendered from an episode record (read through struct episode_summary)
 * and the stored results.  Pure rendering: no git, no logging.
 */
#ifndef ASCENDOPT_REPORT_H
#define ASCENDOPT_REPORT_H

#include <time.h>

#include <jansson.h>

struct store;

#define REPORT_MARKDOWN_NAME  "ascendopt-report.md"
#define REPORT_JSON_NAME      "ascendopt-report.json"
#define REPORT_SVG_NAME       "ascendopt-report.svg"
#define REPORT_SCHEMA_VERSION 1

/* Where the episode ran; every pointer is borrowed.  NULL strings print as "unknown". */
struct report_context {
        const char *source_commit; /* full hex id */
        const char *branch;        /* short source branch name; may be NULL */
        const char *op_path;       /* operator directory relative to the repo root */
        const char *backend;       /* "sim" or "ascend" */
        const char *platform;      /* e.g. "Ascend910B2" */
        time_t date;               /* when the report is made; 0: the episode's finish time */
};

/* Every member is a NUL-terminated string owned by the report. */
struct report {
        char *markdown;
        char *json;
        char *svg;
        char *commit_message; /* first line at most 100 characters, then bullets */
};

/*
 * Renders the report of an episode record (as episode_load() returns it).
 * store (borrowed, may be NULL) is read for the stored results of the
 * baseline and best candidates (per-case latencies, errors, tolerances,
 * device time) and for experience entry titles; without it those rows are
 * left out or say "not recorded".  A record without "best" renders as "no
 * improvement"; a failed episode renders what it has and its error.
 *
 * Fills *ret_report on success only (release it with report_free()).
 * Errors, with a message in err: -EINVAL when record is not an object or
 * has no baseline latency (nothing to compare with); -ENOMEM.
 */
int report_render(struct store *store, const json_t *record, const struct report_context *ctx,
                  struct report *ret_report, char *err, size_t err_size);

/* Frees the members and clears them; accepts NULL and a cleared report. */
void report_free(struct report *report);

#endif
