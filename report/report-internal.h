/* SPDX-License-Identifier: MIT */
/*
 * Private to report/: what report.c shares with the parts rendered in
 * files of their own (report-dtypes.c: the dtypes every new best was held
 * to).
 */
#ifndef ASCENDOPT_REPORT_INTERNAL_H
#define ASCENDOPT_REPORT_INTERNAL_H

#include <jansson.h>

#include "common/common.h"
#include "optimizer/episode.h"

/* Text inside a Markdown table cell or line, escaped (report.c). */
void sbuf_put_md(struct strbuf *sb, const char *s);

/* The Correctness section's lines on dtypes (report-dtypes.c). */
void report_md_dtypes(struct strbuf *sb, const struct episode_summary *s);

/* The JSON report's "dtypes": the same facts; null for a record without them. */
json_t *report_json_dtypes(const struct episode_summary *s);

#endif
