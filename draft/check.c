/* SPDX-License-Identifier: MIT */
/*
 * Checking a draft (draft_check): as any manifest, then on the simulator,
 * its smallest case and the bench case the draft grew.  A case drafted
 * from an example runs on the example's inputs, with its golden; a grown
 * bench case that does not run is grown along the other axis, or dropped.
 */
#include "draft-internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

static void on_check_done(json_t *result, void *userdata)
{
        *(json_t **)userdata = result;
}

static void on_check_golden_done(void *userdata)
{
        *(bool *)userdata = true;
}

/*
 * Runs the draft's smallest case on the simulator: the harness refuses a
 * manifest whose tensors or attributes the OpDef does not declare.  A case
 * drafted from an example runs on the example's inputs (what gen_data.py
 * writes), as eval will run it, and its golden is checked.
 */
static int check_draft(struct draft_session *s, const struct npu_manifest *m, int only_case,
                       char *err, size_t size, char *summary, size_t summary_size)
{
        struct npu_sim_run_options options = { .seed = 1,
                                               .only_case = only_case < 0 ? 0 : only_case,
                                               .sandbox = true };
        struct npu_golden *golden = NULL;
        json_t *result = NULL;
        const char *status, *verdict;
        char work[PATH_MAX] = "";
        bool done = false;
        int r;

        for (size_t i = 1; only_case < 0 && i < m->n_cases; i++)
                if (draft_shapes_elements(m->cases[i].shapes) <
                    draft_shapes_elements(m->cases[options.only_case].shapes))
                        options.only_case = (int)i;
        if (m->cases[options.only_case].golden) {
                const char *tmp = getenv("TMPDIR");
                struct npu_golden_options golden_options = { .only_case = options.only_case,
                                                             .sandbox = true };
                if (format_path(work, sizeof(work), "%s/ascendopt-check-XXXXXX",
                                tmp && *tmp ? tmp : "/tmp") < 0 ||
                    !mkdtemp(work)) {
                        snprintf(err, size, "cannot make a work directory: %s", strerror(errno));
                        return -errno;
                }
                golden_options.work_dir = work;
                options.work_dir = work;
                options.keep_work_dir = true;
                r = npu_golden_new(s->env.runner, m, &golden_options, &golden);
                if (r < 0) {
                        snprintf(err, size, "cannot prepare the golden: %s", strerror(-r));
                        rm_rf(work);
                        return r;
                }
                npu_golden_prepare(golden, on_check_golden_done, &done);
                while (!done)
                        event_base_loop(s->base, EVLOOP_ONCE);
                options.input_files = npu_golden_input_files(golden);
        }
        options.limits = s->env.limits;
        r = npu_sim_run_start(s->env.runner, &s->env.paths, m, &options, on_check_done, &result,
                              NULL);
        if (r < 0) {
                snprintf(err, size, "cannot start the check: %s", child_strerror(r));
                npu_golden_free(golden);
                if (work[0])
                        rm_rf(work);
                return r;
        }
        while (!result)
                event_base_loop(s->base, EVLOOP_ONCE);
        status = json_string_value(json_object_get(result, "status"));
        if (golden && status && strcmp(status, "ok") == 0) {
                done = false;
                npu_golden_check(golden, result, on_check_golden_done, &done);
                while (!done)
                        event_base_loop(s->base, EVLOOP_ONCE);
        }
        if (!status || strcmp(status, "ok") != 0) {
                const json_t *e = json_object_get(result, "error");
                const char *kind = json_string_value(json_object_get(e, "kind"));
                const char *message = json_string_value(json_object_get(e, "message")) ?: "";
                int lines = 0, len = 0;
                /* whole lines only, the first few: the first error says most */
                for (const char *p = message; *p && lines < 6; lines++) {
                        const char *eol = strchr(p, '\n');
                        int n = eol ? (int)(eol - p + 1) : (int)strlen(p);
                        if (len + n > (int)size / 2)
                                break;
                        len += n;
                        p += n;
                }
                r = format_error(
                    err, size, -EINVAL,
                    "the draft does not run on the simulator: case %s: %s%s%s%s:\n%.*s",
                    m->cases[options.only_case].name, status ? status : "?",
                    kind && status && strcmp(kind, status) != 0 ? " (" : "",
                    kind && status && strcmp(kind, status) != 0 ? kind : "",
                    kind && status && strcmp(kind, status) != 0 ? ")" : "", len, message);
        } else {
                verdict = json_string_value(
                    json_object_get(json_object_get(result, "golden"), "verdict"));
                snprintf(
                    summary, summary_size, "case %s ran on the simulator: ok, %.2f us%s%s%s%s",
                    m->cases[options.only_case].name,
                    json_number_value(json_object_get(result, "latency_us")),
                    verdict ? "; golden " : "", verdict ? verdict : "",
                    json_object_get(json_object_get(result, "golden"), "why") ? ": " : "",
                    json_string_value(json_object_get(json_object_get(result, "golden"), "why"))
                        ?: "");
        }
        json_decref(result);
        npu_golden_free(golden);
        if (work[0])
                rm_rf(work);
        return r;
}

/*
 * Runs the bench case init grew.  One that does not run (a kernel that
 * keeps a grown axis in UB, a shape the tiling does not split) is dropped,
 * and the largest of the operator's own cases is timed instead.
 */
static int check_bench(struct draft_session *s, const char *opdir, json_t *doc,
                       struct npu_manifest **m, struct draft_notes *notes, char *err, size_t size)
{
        json_t *cases = json_object_get(doc, "cases");
        char why[1024], summary[768];
        size_t bench = (size_t)-1;
        json_t *c;
        size_t i;

        json_array_foreach(cases, i, c) if (strcmp(json_string_value(json_object_get(c, "name")),
                                                   notes->grown_bench) == 0) bench = i;
        if (bench == (size_t)-1 ||
            check_draft(s, *m, (int)bench, why, sizeof(why), summary, sizeof(summary)) == 0)
                return 0;
        for (char *p = why; *p; p++)
                *p = *p == '\n' ? ' ' : *p;
        if (notes->alt_bench) {
                struct npu_manifest *alt = NULL;
                char ignored[1024];
                json_array_set(cases, bench, notes->alt_bench);
                if (npu_manifest_from_json(opdir, doc, "ascendopt.json (draft)", &alt, ignored,
                                           sizeof(ignored)) == 0 &&
                    check_draft(s, alt, (int)bench, ignored, sizeof(ignored), summary,
                                sizeof(summary)) == 0) {
                        draft_note(notes,
                                   "the grown case %s did not run (%.300s); grown along the other "
                                   "axis instead, it runs",
                                   notes->grown_bench,
                                   strstr(why, ": runtime_error")
                                       ? strstr(why, ": runtime_error") + 2
                                       : why);
                        npu_manifest_free(*m);
                        *m = alt;
                        return 0;
                }
                npu_manifest_free(alt);
        }
        json_array_remove(cases, bench);
        /* "the draft does not run on the simulator: case bench: " says nothing new */
        draft_note(
            notes,
            "the grown case %s did not run (%.300s), nor along the other axis: left out, the "
            "largest case is timed instead (--bench-shape gives one)",
            notes->grown_bench,
            strstr(why, ": runtime_error") ? strstr(why, ": runtime_error") + 2 : why);
        draft_mark_bench_case(cases, notes);
        *m = npu_manifest_free(*m);
        return npu_manifest_from_json(opdir, doc, "ascendopt.json (draft)", m, err, size);
}

int draft_check(struct draft_session *s, const char *opdir, json_t *doc, bool run,
                struct draft_notes *notes, char *summary, size_t summary_size, char *err,
                size_t err_size)
{
        struct npu_manifest *m = NULL;
        int r;

        summary[0] = '\0';
        /* the same checks as any manifest */
        r = npu_manifest_from_json(opdir, doc, "ascendopt.json (draft)", &m, err, err_size);
        if (r == 0 && run)
                r = check_draft(s, m, -1, err, err_size, summary, summary_size);
        if (r == 0 && run && notes->grown_bench[0])
                r = check_bench(s, opdir, doc, &m, notes, err, err_size);
        npu_manifest_free(m);
        return r;
}
