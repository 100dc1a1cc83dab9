/* SPDX-License-Identifier: MIT */
/*
 * Tests of the episode report (Markdown, JSON, SVG and commit message)
 * rendered from a real episode record (tests/data/episode-record.json, a
 * relu episode of 30 evaluations over both stages), from variants of it a
 * user could meet (no improvement, no evaluations, hostile names, no
 * baseline), and with a real store holding the results and an entry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "optimizer/optimizer.h"
#include "publish/publish.h"
#include "report/report.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OP_PATH "ops/relu_custom"

static char record_path[PATH_MAX];
static char dir[64];

static const struct report_context context = {
        .source_commit = "0123456789abcdef0123456789abcdef01234567",
        .branch = "dev/x",
        .op_path = OP_PATH,
        .backend = "sim",
        .platform = "Ascend910B2",
        .date = 1795373288, /* 2026-11-22T18:48:08Z */
};

static json_t *load_record(void)
{
        json_error_t jerr;
        json_t *record = json_load_file(record_path, 0, &jerr);

        if (!record)
                fail_msg("%s:%d: %s", record_path, jerr.line, jerr.text);
        return record;
}

static int setup_dir(void **state)
{
        snprintf(dir, sizeof(dir), "/tmp/ascendopt-report-XXXXXX");
        assert_non_null(mkdtemp(dir));
        return 0;
}

static int teardown_dir(void **state)
{
        return rm_rf(dir);
}

static size_t count(const char *haystack, const char *needle)
{
        size_t n = 0;

        for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

static void assert_contains(const char *haystack, const char *needle)
{
        if (!strstr(haystack, needle))
                fail_msg("expected to find \"%s\" in:\n%s", needle, haystack);
}

/* The first line of s, copied into buf. */
static const char *first_line(const char *s, char *buf, size_t size)
{
        size_t n = strcspn(s, "\n");

        assert_true(n < size);
        memcpy(buf, s, n);
        buf[n] = '\0';
        return buf;
}

/*
 * A small XML well-formedness check, enough for what the renderer writes:
 * one root <svg> with a viewBox, every element closed in order, attribute
 * values quoted, '<' never inside text or attributes, and every '&' an
 * entity.
 */
static void assert_svg_well_formed(const char *svg)
{
        const char *stack[64];
        size_t depth = 0, roots = 0;
        const char *p = svg;

        assert_true(strncmp(svg, "<svg ", 5) == 0);
        assert_non_null(strstr(svg, "viewBox=\"0 0 "));
        assert_non_null(strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
        while (*p) {
                if (*p == '&') {
                        if (strncmp(p, "&lt;", 4) && strncmp(p, "&gt;", 4) &&
                            strncmp(p, "&amp;", 5) && strncmp(p, "&quot;", 6) &&
                            strncmp(p, "&apos;", 6))
                                fail_msg("a bare '&' at byte %zu", (size_t)(p - svg));
                        p++;
                        continue;
                }
                if (*p != '<') {
                        p++;
                        continue;
                }
                if (p[1] == '/') {
                        size_t n = strcspn(p + 2, ">");

                        assert_true(depth > 0);
                        depth--;
                        if (strlen(stack[depth]) != n || strncmp(stack[depth], p + 2, n))
                                fail_msg("</%.*s> closes <%s>", (int)n, p + 2, stack[depth]);
                        p += 2 + n + 1;
                        continue;
                }
                /* an opening tag: a name, attributes with quoted values, then > or /> */
                const char *name = p + 1;
                size_t name_len = strcspn(name, " \t\n/>");
                bool closed = false;

                assert_true(name_len > 0);
                p = name + name_len;
                for (;;) {
                        if (*p == '\0')
                                fail_msg("unterminated tag <%.*s", (int)name_len, name);
                        if (*p == '"') {
                                const char *end = strchr(p + 1, '"');

                                assert_non_null(end);
                                for (const char *q = p + 1; q < end; q++)
                                        if (*q == '<')
                                                fail_msg("'<' inside an attribute of <%.*s>",
                                                         (int)name_len, name);
                                p = end + 1;
                                continue;
                        }
                        if (*p == '<')
                                fail_msg("'<' inside the tag <%.*s>", (int)name_len, name);
                        if (p[0] == '/' && p[1] == '>') {
                                closed = true;
                                p += 2;
                                break;
                        }
                        if (*p == '>') {
                                p++;
                                break;
                        }
                        p++;
                }
                if (depth == 0)
                        roots++;
                if (!closed) {
                        static char names[64][32];

                        assert_true(depth < 64 && name_len < 32);
                        memcpy(names[depth], name, name_len);
                        names[depth][name_len] = '\0';
                        stack[depth] = names[depth];
                        depth++;
                }
        }
        assert_int_equal(depth, 0);
        assert_int_equal(roots, 1);
}

/* The number of "x,y" pairs in the points of the (only) polyline. */
static size_t polyline_points(const char *svg)
{
        const char *p = strstr(svg, "<polyline"), *end;
        size_t n = 0;

        assert_non_null(p);
        assert_null(strstr(p + 1, "<polyline"));
        p = strstr(p, "points=\"");
        assert_non_null(p);
        p += strlen("points=\"");
        end = strchr(p, '"');
        assert_non_null(end);
        for (; p < end; p++)
                if (*p == ',')
                        n++;
        return n;
}

static void render(struct store *store, const json_t *record, const struct report_context *ctx,
                   struct report *report)
{
        char err[512] = "";
        int r = report_render(store, record, ctx, report, err, sizeof(err));

        if (r < 0)
                fail_msg("report_render: %d: %s", r, err);
}

/* ---------------------------------------------------------------- the saved record */

static void test_commit_message(void **state)
{
        json_t *record = load_record();
        struct report report = { 0 };
        char line[256];

        render(NULL, record, &context, &report);
        /* 157.4203 / 68.0597 = 2.313 */
        assert_string_equal(
            first_line(report.commit_message, line, sizeof(line)),
            "ascendopt: relu_custom 2.31x faster (157.4 -> 68.1 us, Ascend910B2 sim)");
        assert_true(strlen(line) <= 100);
        /* a blank line, then bullets naming the gene that moved and every winning motif */
        assert_true(strncmp(report.commit_message + strlen(line), "\n\n- ", 4) == 0);
        assert_contains(report.commit_message, "- tiling: BLOCK_DIM 8 -> 32");
        assert_null(strstr(report.commit_message, "TILE_LENGTH"));
        assert_contains(report.commit_message, "- kernel: datacopy_aligned");
        assert_contains(report.commit_message, "- kernel: aiv_only");
        assert_contains(report.commit_message, "- kernel: l2_bypass, 88.2 -> 68.1 us");
        assert_null(strstr(report.commit_message, "bank_conflict_pad"));
        report_free(&report);
        json_decref(record);
}

static void test_markdown(void **state)
{
        json_t *record = load_record();
        struct report report = { 0 };
        const char *md;

        render(NULL, record, &context, &report);
        md = report.markdown;
        assert_true(strncmp(md, "# ascendopt report: relu\\_custom\n", 33) == 0);
        /* the sections, in order */
        const char *sections[] = { "## Results",     "## Trajectory",         "## Changes",
                                   "## Correctness", "## Failures and spend", "## Reproduction" };
        const char *at = md;
        for (size_t i = 0; i < ARRAY_SIZE(sections); i++) {
                const char *next = strstr(at, sections[i]);
                if (!next)
                        fail_msg("missing or out of order: %s", sections[i]);
                else
                        at = next;
        }
        /* header */
        assert_contains(md, "| Source commit | 0123456789abcdef0123456789abcdef01234567 |");
        assert_contains(md, "| Branch | dev/x |");
        assert_contains(md, "| Platform | Ascend910B2 |");
        assert_contains(md, "| Date | 2026-11-22T18:48:08Z |");
        assert_contains(md, "| Budget | 30 of 30 evaluations used |");
        /* results: the speedup and the roofline fractions 57.4139/157.4203, 57.4139/68.0597 */
        assert_contains(md, "**2.31x faster**: 157.4 us → 68.1 us.");
        assert_contains(md, "84.4% of roofline, 36.5% before");
        /* without a store there are no per-case rows, and the report says so */
        assert_contains(md, "Per-case latencies: not available");
        assert_contains(md, "Device time: not recorded");
        /* the plot */
        assert_contains(md, "](ascendopt-report.svg)");
        assert_contains(md, "30 evaluations; 5 failed");
        /* genes before and after */
        assert_contains(md, "| BLOCK\\_DIM | op\\_host/relu\\_custom.cpp:13 | 8 | **32** |");
        assert_contains(
            md, "| TILE\\_LENGTH | op\\_host/relu\\_custom.cpp:14 | 8192 | 8192 (unchanged) |");
        /* the three Stage II wins with their gains, not the motif that did not win */
        assert_contains(md, "| 11 | datacopy\\_aligned | no bank entry (fallback) | 91.8 → 90.2 |");
        assert_contains(md,
                        "| 14 | l2\\_bypass | no bank entry (fallback) | 88.2 → 68.1 | 1.296x |");
        assert_null(strstr(md, "bank\\_conflict\\_pad |"));
        assert_contains(md, "Its new bests gained 1.71x"); /* Stage I: 157.4 -> 91.8 */
        assert_contains(md, "Its new bests gained 1.35x"); /* Stage II: 91.8 -> 68.1 */
        /* correctness and spend */
        assert_contains(md, "Episode seed: 1");
        assert_contains(md, "re-measured on a second seed before it was accepted (4 confirmations");
        assert_contains(md, "Failed candidates: 7 (ub\\_overflow 7)");
        assert_contains(md, "memo hits (free): 8");
        assert_contains(md, "Wall time: 55 s, 1963.6 evaluations per hour");
        assert_null(strstr(md, "LLM tokens"));
        /* reproduction */
        assert_contains(md, "\nascendopt optimize ops/relu_custom --budget 30 --seed 1 --strategy "
                            "full\n");
        report_free(&report);
        json_decref(record);
}

static void test_svg(void **state)
{
        json_t *record = load_record();
        struct report report = { 0 };
        const char *svg;

        render(NULL, record, &context, &report);
        svg = report.svg;
        assert_svg_well_formed(svg);
        assert_int_equal(polyline_points(svg), 30);
        assert_contains(svg, "<title>relu_custom: best-so-far latency by evaluation</title>");
        /* axes with tick labels and names */
        assert_contains(svg, ">evaluation</text>");
        assert_contains(svg, ">best latency (us)</text>");
        assert_contains(svg, ">30</text>");
        assert_contains(svg, ">150</text>");
        /* Stage I 1-10, Stage II 11-15, Stage I 16-30: three bands in two colours */
        assert_int_equal(count(svg, "<rect class=\"stage1\""), 2);
        assert_int_equal(count(svg, "<rect class=\"stage2\""), 1);
        assert_contains(svg, ">Stage I (tiling)</text>");
        assert_contains(svg, ">Stage II (kernel)</text>");
        /* five fresh failures (the two memo-hit failures cost nothing), plus the legend's */
        assert_int_equal(count(svg, "l8 8m0 -8l-8 8"), 6);
        /* a dot per new best: evaluations 1 (memo hits before it fold into it), 2, 11, 12, 14 */
        assert_int_equal(count(svg, "<circle "), 5);
        report_free(&report);
        json_decref(record);
}

static void test_json(void **state)
{
        json_t *record = load_record(), *doc, *genes;
        struct report report = { 0 };
        json_error_t jerr;

        render(NULL, record, &context, &report);
        doc = json_loads(report.json, 0, &jerr);
        if (!doc)
                fail_msg("report JSON: %d: %s", jerr.line, jerr.text);
        assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 1);
        assert_string_equal(json_string_value(json_object_get(doc, "operator")), "ReluCustom");
        assert_string_equal(json_string_value(json_object_get(doc, "source_commit")),
                            context.source_commit);
        assert_true(fabs(json_real_value(json_object_get(doc, "baseline_us")) - 157.4203) < 1e-6);
        assert_true(fabs(json_real_value(json_object_get(doc, "best_us")) - 68.0597) < 1e-6);
        assert_true(fabs(json_real_value(json_object_get(doc, "speedup")) - 157.4203 / 68.0597) <
                    1e-6);
        assert_true(
            fabs(json_real_value(json_object_get(json_object_get(doc, "roofline"), "after")) -
                 57.4139 / 68.0597) < 1e-6);
        assert_true(json_is_array(json_object_get(doc, "cases")));
        genes = json_object_get(json_object_get(doc, "changes"), "genes");
        assert_int_equal(json_array_size(genes), 2);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(genes, 0), "before")),
                         8);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(genes, 0), "after")),
                         32);
        assert_int_equal(
            json_array_size(json_object_get(json_object_get(doc, "changes"), "motifs")), 3);
        assert_int_equal(
            json_integer_value(json_object_get(
                json_object_get(json_object_get(doc, "failures"), "by_kind"), "ub_overflow")),
            7);
        assert_int_equal(
            json_integer_value(json_object_get(json_object_get(doc, "spend"), "memo_hits")), 8);
        assert_true(json_is_null(json_object_get(json_object_get(doc, "spend"), "device_seconds")));
        assert_string_equal(
            json_string_value(json_object_get(doc, "reproduce")),
            "ascendopt optimize ops/relu_custom --budget 30 --seed 1 --strategy full");
        json_decref(doc);
        report_free(&report);
        json_decref(record);
}

/* ---------------------------------------------------------------- awkward records */

static void test_hostile_names_are_escaped(void **state)
{
        const char *hostile = "<script>&\"|x";
        struct report_context ctx = context;
        json_t *record = load_record();
        struct report report = { 0 };
        char path[128], line[256];

        snprintf(path, sizeof(path), "ops/%s", hostile);
        ctx.op_path = path;
        ctx.platform = "Ascend<910>|";
        json_object_set_new(record, "operator", json_string(hostile));
        render(NULL, record, &ctx, &report);

        assert_svg_well_formed(report.svg);
        assert_null(strstr(report.svg, "<script"));
        assert_contains(report.svg, "&lt;script&gt;&amp;&quot;|x");
        assert_contains(report.svg, "Ascend&lt;910&gt;|");

        /* raw HTML only inside the reproduction's code block, where it is text */
        assert_true(strstr(report.markdown, "<script") > strstr(report.markdown, "```sh\n"));
        assert_contains(report.markdown, "| Operator | &lt;script&gt;&amp;\"\\|x |");
        assert_contains(report.markdown, "| Platform | Ascend&lt;910&gt;\\| |");
        /* a table row keeps its three pipes however many the name has */
        const char *row = strstr(report.markdown, "| Path |");
        assert_non_null(row);
        size_t pipes = 0;
        for (const char *p = row; *p != '\n'; p++)
                pipes += *p == '|' && p[-1] != '\\';
        assert_int_equal(pipes, 3);
        /* the shell line quotes the path */
        assert_contains(report.markdown, "ascendopt optimize 'ops/<script>&\"|x' --budget 30");

        /* the commit message is plain text: kept as is, on one line */
        assert_string_equal(first_line(report.commit_message, line, sizeof(line)),
                            "ascendopt: <script>&\"|x 2.31x faster (157.4 -> 68.1 us, "
                            "Ascend<910>| sim)");
        report_free(&report);
        json_decref(record);
}

static void test_long_or_multiline_names_keep_one_short_subject(void **state)
{
        struct report_context ctx = context;
        json_t *record = load_record();
        struct report report = { 0 };
        char path[400], line[256];

        memset(path, 'a', sizeof(path));
        memcpy(path, "ops/x\ny", 7);
        path[sizeof(path) - 1] = '\0';
        ctx.op_path = path;
        ctx.platform = "Ascend910B2\nInjected: trailer";
        render(NULL, record, &ctx, &report);
        first_line(report.commit_message, line, sizeof(line));
        assert_true(strlen(line) <= 100);
        assert_true(strncmp(line, "ascendopt: x?yaaa", 17) == 0);
        assert_contains(line, "...");
        assert_contains(line, " 2.31x faster (157.4 -> 68.1 us, Ascend910B2?Injected: tr sim)");
        assert_null(strstr(report.commit_message, "\nInjected"));
        report_free(&report);
        json_decref(record);
}

static void test_no_improvement(void **state)
{
        json_t *record = load_record(), *doc;
        struct report report = { 0 };
        char line[256];

        json_object_del(record, "best");
        render(NULL, record, &context, &report);
        assert_string_equal(first_line(report.commit_message, line, sizeof(line)),
                            "ascendopt: relu_custom no improvement (157.4 us, Ascend910B2 sim)");
        assert_contains(report.markdown, "**No improvement**");
        assert_null(strstr(report.markdown, "faster"));
        /* without a best the genes stay as they were */
        assert_contains(report.markdown, "| BLOCK\\_DIM | op\\_host/relu\\_custom.cpp:13 | 8 | 8 "
                                         "(unchanged) |");
        assert_contains(report.svg, "no improvement</text>");
        assert_svg_well_formed(report.svg);
        doc = json_loads(report.json, 0, NULL);
        assert_non_null(doc);
        assert_true(json_is_false(json_object_get(doc, "improved")));
        assert_true(json_real_value(json_object_get(doc, "speedup")) == 1.0);
        json_decref(doc);
        report_free(&report);
        json_decref(record);
}

/* The dtypes every new best was held to (issue #26), in Markdown and JSON. */
static void test_dtypes(void **state)
{
        json_t *record = load_record(), *doc, *d, *row;
        struct report report = { 0 };

        /* a record from before the dtype gate says only the manifest's were checked */
        render(NULL, record, &context, &report);
        assert_contains(report.markdown, "- Dtypes: only the manifest's were checked");
        doc = json_loads(report.json, 0, NULL);
        assert_true(json_is_null(json_object_get(doc, "dtypes")));
        json_decref(doc);
        report_free(&report);

        json_object_set_new(
            record, "dtypes",
            json_pack("{s:s, s:[s, s], s:[{s:s, s:s}], s:[{s:s, s:s, s:s}]}", "manifest",
                      "x:float32 y:float32", "checked", "x:float16 y:float16", "x:int32 y:int32",
                      "not_checkable", "dtypes", "x:ge::DataType(29) y:ge::DataType(29)", "why",
                      "the simulator has no dtype ge::DataType(29) (input of the OpDef's x)",
                      "baseline_fails", "dtypes", "x:bfloat16 y:bfloat16", "status", "wrong_answer",
                      "message", "outputs differ"));
        json_object_set_new(json_object_get(record, "failures"), "dtype_regression",
                            json_integer(2));
        row = json_array_get(json_object_get(record, "trajectory"), 3);
        json_object_set_new(row, "status", json_string("dtype_regression"));
        json_object_set_new(row, "dtype_regression",
                            json_pack("{s:s, s:s, s:s}", "dtypes", "x:int32 y:int32", "status",
                                      "ub_overflow", "message", "InitBuffer past the UB"));
        render(NULL, record, &context, &report);
        assert_contains(report.markdown,
                        "- Dtypes checked: x:float32 y:float32 (the manifest's cases); every new "
                        "best also passed x:float16 y:float16 and x:int32 y:int32 on the small "
                        "cases, against the original's outputs on the same seeded inputs.\n");
        assert_contains(report.markdown, "- Dtypes the original fails itself, so not held against "
                                         "the candidates: x:bfloat16 y:bfloat16 (wrong\\_answer).");
        assert_contains(report.markdown,
                        "- Dtypes the OpDef registers that could not be checked: "
                        "x:ge::DataType(29) y:ge::DataType(29): the simulator has no dtype "
                        "ge::DataType(29) (input of the OpDef's x).");
        assert_contains(report.markdown, "- Candidates rejected for breaking a dtype the original "
                                         "passes: 2 (x:int32 y:int32).");
        doc = json_loads(report.json, 0, NULL);
        d = json_object_get(doc, "dtypes");
        assert_string_equal(json_string_value(json_object_get(d, "manifest")),
                            "x:float32 y:float32");
        assert_int_equal(json_array_size(json_object_get(d, "checked")), 2);
        assert_int_equal(json_array_size(json_object_get(d, "not_checkable")), 1);
        assert_int_equal(json_array_size(json_object_get(d, "baseline_fails")), 1);
        assert_int_equal(json_integer_value(json_object_get(d, "rejected")), 2);
        json_decref(doc);
        report_free(&report);
        json_decref(record);
}

static void test_zero_evaluations(void **state)
{
        json_t *record = load_record();
        struct report report = { 0 };

        json_object_del(record, "best");
        json_object_set_new(record, "evaluations", json_integer(0));
        json_object_set_new(record, "trajectory", json_array());
        json_object_set_new(record, "state", json_string("failed"));
        assert_int_equal(json_object_set_new(record, "error",
                                             json_pack("{s:s, s:s}", "kind", "tiling_error",
                                                       "message", "no genes | nothing to do")),
                         0);
        render(NULL, record, &context, &report);
        assert_svg_well_formed(report.svg);
        assert_null(strstr(report.svg, "<polyline"));
        assert_contains(report.svg, ">no evaluations</text>");
        assert_contains(report.markdown, "**The episode failed:** no genes \\| nothing to do");
        assert_contains(report.markdown, "No kernel rewrite produced a new best.");
        report_free(&report);
        json_decref(record);
}

static void test_no_baseline_is_einval(void **state)
{
        json_t *record = load_record();
        struct report report = { .markdown = (char *)"untouched" };
        char err[512] = "";

        json_object_del(record, "baseline");
        json_object_set_new(record, "state", json_string("failed"));
        assert_int_equal(json_object_set_new(record, "error",
                                             json_pack("{s:s, s:s}", "kind", "baseline", "message",
                                                       "the baseline does not compile")),
                         0);
        assert_int_equal(report_render(NULL, record, &context, &report, err, sizeof(err)), -EINVAL);
        assert_string_equal(report.markdown, "untouched");
        assert_contains(err, "no baseline latency");
        assert_contains(err, OP_PATH);
        assert_contains(err, "the baseline does not compile");
        assert_int_equal(report_render(NULL, NULL, &context, &report, err, sizeof(err)), -EINVAL);
        report_free(NULL);
        json_decref(record);
}

/* ---------------------------------------------------------------- with a store */

static json_t *result(const char *identity, double small_us, double big_us, double run_s)
{
        return json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:I, s:[{s:s, s:f, s:f, s:b, "
                         "s:[{s:s, s:s, s:[i, i]}]}, {s:s, s:f, s:f, s:b, s:[{s:s, s:s, s:[i]}]}], "
                         "s:[{s:s, s:f, s:f, s:f, s:b}, {s:s, s:f, s:f, s:f, s:b}]}",
                         "identity", identity, "status", "ok", "latency_us", big_us, "roofline_us",
                         57.4139, "run_s", run_s, "compile_s", 1.0, "seed", (json_int_t)1000004,
                         "cases", "case", "small|1", "latency_us", small_us, "roofline_us", 0.3,
                         "bench", 0, "inputs", "name", "x", "dtype", "float32", "shape", 4, 1001,
                         "case", "4096x4096", "latency_us", big_us, "roofline_us", 57.4139, "bench",
                         1, "inputs", "name", "x", "dtype", "float32", "shape", 16777216,
                         "correctness", "case", "small|1", "max_abs_err", 0.0, "max_rel_err", 0.0,
                         "mismatch_fraction", 0.0, "passed", 1, "case", "4096x4096", "max_abs_err",
                         0.25, "max_rel_err", 1e-6, "mismatch_fraction", 0.0, "passed", 1);
}

static void test_with_store(void **state)
{
        const char *baseline_id =
            "935ad4da470319460d5d593f4f7616928030f2440e6b19367b8de90d8f372a53";
        const char *best_id = "b697a525d8ebaa8393b0df9f328e9462b09dddb76ae77dee5aeab8a2018e1d85";
        const char *manifest = "{\"name\": \"ReluCustom\", \"tolerance\": {\"float32\": "
                               "{\"atol\": 0.5, \"rtol\": 0.001}}}";
        char path[128], err[256], entry_id[SHA256_HEX_SIZE], blob[SHA256_HEX_SIZE];
        json_t *record = load_record(), *entry, *r, *row;
        struct report report = { 0 };
        struct store_batch *batch;
        struct store *store = NULL;
        size_t i;

        snprintf(path, sizeof(path), "%s/store", dir);
        assert_int_equal(store_open(path, &store, err, sizeof(err)), 0);
        batch = store_batch_new(store);
        assert_non_null(batch);
        r = result(baseline_id, 1.7849, 157.4203, 2.0);
        assert_non_null(r);
        assert_int_equal(store_candidate_put(batch, baseline_id, r), 0);
        json_decref(r);
        r = result(best_id, 3.1213, 68.0597, 3.5);
        assert_non_null(r);
        /* the bench case's profile as 'ascendopt eval --json' gives it for this relu best */
        assert_int_equal(json_object_set_new(
                             r, "profile",
                             json_pack("{s:f, s:f, s:f, s:f, s:{s:{s:f}}}", "latency_us", 68.0597,
                                       "roofline_us", 57.4139, "launch_us", 2.904,
                                       "bank_conflict_us", 0.0, "pipes", "v", "busy_us", 5.1892)),
                         0);
        assert_int_equal(store_candidate_put(batch, best_id, r), 0);
        json_decref(r);
        store_blob_put(batch, manifest, strlen(manifest), blob);
        json_object_set_new(json_object_get(json_object_get(record, "baseline"), "files"),
                            "ascendopt.json", json_string(blob));
        entry = json_pack("{s:s, s:s, s:s, s:s, s:s}", "title", "Bypass L2 | for streams",
                          "description", "d", "bottleneck", "bound=mte2", "diff", "-a\n+b\n",
                          "motif", "l2_bypass");
        assert_non_null(entry);
        assert_int_equal(experience_put(batch, entry, entry_id), 0);
        json_decref(entry);
        assert_int_equal(store_batch_commit(batch), 0);
        store_batch_free(batch);
        /* the winning l2_bypass row was suggested by the bank entry */
        json_array_foreach(json_object_get(record, "trajectory"), i, row)
        {
                if (json_integer_value(json_object_get(row, "evaluation")) == 14) {
                        json_object_set_new(row, "entry", json_string(entry_id));
                        json_object_set_new(row, "source", json_string("bank"));
                }
        }

        render(store, record, &context, &report);
        /* per-case rows from the stored results, the name escaped for the table */
        assert_contains(report.markdown, "| small\\|1 | 1.785 | 3.121 | 0.57x | 0.300 | 16.8% | "
                                         "9.6% |");
        assert_contains(report.markdown, "| 4096x4096 (bench) | 157.420 | 68.060 | 2.31x | 57.414 "
                                         "| 36.5% | 84.4% |");
        /* the entry that suggested the motif, by title */
        assert_contains(report.markdown,
                        "| 14 | l2\\_bypass | entry “Bypass L2 \\| for streams” | 88.2 → 68.1 |");
        /* correctness of the best, with the manifest's tolerances */
        assert_contains(report.markdown, "float32 atol 0.5, rtol 0.001");
        assert_contains(report.markdown, "| 4096x4096 | x [16777216] float32 | 0.25 | 1e-06 | 0 | "
                                         "yes |");
        assert_contains(report.markdown, "| small\\|1 | x [4x1001] float32 | 0 | 0 | 0 | yes |");
        /* device time: only the baseline and best are stored, so 2.0 + 3.5 s */
        assert_contains(report.markdown, "Device time: 5.5 s running, 2.0 s compiling (2 results)");
        assert_null(strstr(report.markdown, "not available"));
        /* memory-bound: 2.904 + 57.4139 us is the ceiling, 95.2% of the roofline; 88.6% reached */
        assert_contains(report.markdown,
                        "Its vector instructions take 5.2 us a core (bank conflicts aside), "
                        "under the roofline's 57.4 us: with its launch of 2.9 us, a kernel doing "
                        "this work could reach 95.2% of the roofline, and this one has 88.6% of "
                        "that;");
        report_free(&report);
        store_close(store);
        json_decref(record);
}

/*
 * The typed view every reader uses reads the record the episode writes:
 * a key renamed on either side shows here as a number that is 0.
 */
static void test_summary_reads_the_record(void **state)
{
        json_t *record = load_record();
        struct episode_summary s;
        const struct episode_counts *stage1, *stage2;
        size_t new_bests = 0;

        assert_int_equal(episode_summary_read(record, &s), 0);
        assert_string_equal(s.state, "done");
        assert_string_equal(s.strategy, "full");
        assert_int_equal(s.evaluations, 30);
        assert_int_equal(s.budget, 30);
        assert_int_equal(s.n_rows, 38);
        assert_true(fabs(s.baseline.latency_us - 157.4203) < 1e-3);
        assert_true(fabs(s.best.latency_us - 68.0597) < 1e-3);
        assert_true(s.best.present && s.best.genome && s.baseline.files);
        assert_int_equal(s.n_genes, 2);
        assert_string_equal(s.genes[0].file, "op_host/relu_custom.cpp");
        stage1 = episode_summary_stage(&s, 1);
        stage2 = episode_summary_stage(&s, 2);
        assert_non_null(stage1);
        assert_non_null(stage2);
        assert_int_equal(stage1->evaluations, 25);
        assert_int_equal(stage1->memo_hits, 8);
        assert_int_equal(stage2->wins, 3);
        assert_int_equal(s.n_motifs, 4);
        assert_false(s.llm.present);
        assert_string_equal(s.rows[0].technique, "random");
        assert_true(s.rows[0].memo_hit);
        for (size_t i = 0; i < s.n_rows; i++)
                new_bests += s.rows[i].new_best;
        assert_int_equal(new_bests, stage1->wins + stage2->wins);
        assert_true(episode_record_done(record));
        episode_summary_release(&s);
        episode_summary_release(&s); /* released twice: a no-op */

        json_decref(record);
        record = json_array();
        assert_int_equal(episode_summary_read(record, &s), -EINVAL);
        episode_summary_release(&s);
        json_decref(record);
}

static void find_record(void)
{
        char exe[PATH_MAX], candidate[PATH_MAX + 64];
        ssize_t n;

        /* build/tests/unit/test_publish_report -> tests/data */
        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0) {
                exe[n] = '\0';
                *strrchr(exe, '/') = '\0';
                snprintf(candidate, sizeof(candidate), "%s/../../../tests/data/episode-record.json",
                         exe);
                if (realpath(candidate, record_path))
                        return;
        }
        if (!realpath("tests/data/episode-record.json", record_path)) {
                fprintf(stderr,
                        "test_publish_report: cannot find tests/data/episode-record.json\n");
                exit(1);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_commit_message),
                cmocka_unit_test(test_markdown),
                cmocka_unit_test(test_svg),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_hostile_names_are_escaped),
                cmocka_unit_test(test_long_or_multiline_names_keep_one_short_subject),
                cmocka_unit_test(test_no_improvement),
                cmocka_unit_test(test_zero_evaluations),
                cmocka_unit_test(test_dtypes),
                cmocka_unit_test(test_no_baseline_is_einval),
                cmocka_unit_test(test_summary_reads_the_record),
                cmocka_unit_test_setup_teardown(test_with_store, setup_dir, teardown_dir),
        };

        find_record();
        return cmocka_run_group_tests_name("publish_report", tests, NULL, NULL);
}
