/* SPDX-License-Identifier: MIT */
/*
 * ascendopt init: the command around manifest drafting (draft/draft.h).
 * It parses the options, drafts and checks one operator's ascendopt.json
 * or, with --all, every operator below a repository, and writes the draft
 * laid out as the corpus manifests are, through a temporary file, or
 * prints it; then says what the draft was made from.  Nothing is written
 * when the check fails.
 */
#include "cli-internal.h"

#include "draft/draft.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

struct init_options {
        struct draft_options draft;
        bool force;     /* --force: replace an existing ascendopt.json */
        bool to_stdout; /* --stdout: print the draft instead */
        bool check;     /* not --no-check: run the draft on the simulator first */
};

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------ the command */

#define LINE_WIDTH 100
#define DUMP_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(9))

/*
 * Writes v as the corpus manifests are laid out: a value that fits on one
 * line stays on one ({"name": "x", "dtype": "float16"}), others are broken
 * one member per line.  Every piece is encoded by jansson.
 */
static int dump_laid_out(FILE *f, const json_t *v, int indent, size_t column)
{
        char *one = json_dumps(v, DUMP_FLAGS);
        bool is_object = json_is_object(v);
        const char *key;
        json_t *member;
        size_t i = 0;

        if (!one)
                return -ENOMEM;
        if ((!is_object && !json_is_array(v)) || column + strlen(one) <= LINE_WIDTH ||
            (is_object ? json_object_size(v) : json_array_size(v)) == 0) {
                fputs(one, f);
                free(one);
                return 0;
        }
        free(one);
        fputs(is_object ? "{\n" : "[\n", f);
        if (is_object) {
                json_object_foreach((json_t *)v, key, member)
                {
                        json_t *name = json_string(key);
                        char *encoded = name ? json_dumps(name, DUMP_FLAGS) : NULL;
                        json_decref(name);
                        if (!encoded)
                                return -ENOMEM;
                        fprintf(f, "%s%*s%s: ", i++ ? ",\n" : "", indent + 2, "", encoded);
                        size_t at = (size_t)indent + 4 + strlen(encoded);
                        free(encoded);
                        if (dump_laid_out(f, member, indent + 2, at) < 0)
                                return -ENOMEM;
                }
        } else {
                json_array_foreach(v, i, member)
                {
                        fprintf(f, "%s%*s", i ? ",\n" : "", indent + 2, "");
                        if (dump_laid_out(f, member, indent + 2, (size_t)indent + 2) < 0)
                                return -ENOMEM;
                }
        }
        fprintf(f, "\n%*s%c", indent, "", is_object ? '}' : ']');
        return 0;
}

/* The draft as text; a new string, or NULL without memory. */
static char *laid_out_text(const json_t *doc)
{
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        int r;

        if (!f)
                return NULL;
        r = dump_laid_out(f, doc, 0, 0);
        if (fclose(f) != 0 || r < 0) {
                free(text);
                return NULL;
        }
        return text;
}

/* Writes text to path through a temporary file and a rename: never half a manifest. */
static int write_atomically(const char *path, const char *text)
{
        char tmp[PATH_MAX];
        FILE *f;
        int r = 0;

        if (format_path(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid()) < 0)
                return -ENAMETOOLONG;
        f = fopen(tmp, "wxe");
        if (!f)
                return -errno;
        if (fputs(text, f) < 0 || fputc('\n', f) < 0)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        return r;
}

static void init_usage(FILE *f)
{
        fprintf(f,
                "Usage: ascendopt init OPDIR [options]\n"
                "       ascendopt init --all REPO [--force] [--no-check] [--level N]\n"
                "\n"
                "Drafts OPDIR/ascendopt.json from the operator's own files: the OpDef in\n"
                "op_host/ (name, inputs, outputs, dtypes, attributes), the kernel entry in\n"
                "op_kernel/, and the cases:\n"
                "  - msOpSt cases (OPDIR/tests/st/*.json), with their calc_expect_func_file\n"
                "    as the case's golden; a \"fuzz\" shape comes from the case's fuzz_impl;\n"
                "  - else each example (OPDIR/examples/*/ with main.cpp and gen_data.py):\n"
                "    shapes, dtypes and attributes from main.cpp's aclnn call, and gen_data.py,\n"
                "    run in the sandbox, gives the inputs and golden.bin as the golden;\n"
                "  - else --case, naming every input.\n"
                "'ascendopt eval' checks the goldens.  When every case is small, a bench case\n"
                "of at least 8M elements per input is added and timed (grown along the last\n"
                "axis for row-wise operators, the first otherwise).  The draft runs its\n"
                "smallest case on the simulator before it is written.  --all drafts every\n"
                "operator below REPO and prints one line each: ok, or the reason.\n"
                "\n"
                "  --case [NAME:]SHAPES  a case: x=8x2048,y=8x2048, or 8x2048 for every input;\n"
                "                        an output's shape too (y=8x2048) where the operator\n"
                "                        has no InferShape (repeatable)\n"
                "  --bench-shape SHAPES  the timed case, in --case's form, instead of the\n"
                "                        grown one\n"
                "  --attr NAME=VALUE     an attribute's value (JSON, else a string); needed for\n"
                "                        a REQUIRED attribute with no default (repeatable)\n"
                "  --variant N           the OpDef's Nth dtype combination (default: the first\n"
                "                        the simulator has; msOpSt or main.cpp types win)\n"
                "  --kernel ENTRY        the kernel entry, e.g. my_kernel<1> for a template\n"
                "  --op TYPE             which OpDef, when op_host/ registers several\n"
                "  --level N             the manifest's level, 1 to 3 (default 1)\n"
                "  --stdout              print the draft instead of writing it\n"
                "  --force               replace an existing ascendopt.json\n"
                "  --no-check            do not run the draft on the simulator\n"
                "  --all                 OPDIR is a repository: draft every operator in it\n");
}

/*
 * Drafts, checks and writes one operator's manifest.  quiet (--all): no
 * notes, and *line gets "ok, ..." or the reason; else everything is
 * printed.  Returns the exit status.
 */
static int init_one(const struct init_options *o, struct draft_session *session, bool quiet,
                    char *line, size_t line_size)
{
        const char *opdir = o->draft.opdir;
        struct draft_notes notes = { 0 };
        json_t *doc = NULL;
        char err[4096], path[PATH_MAX], summary[768] = "";
        char *text = NULL;
        struct stat st;
        int ret = EX_OK, r;

        line[0] = '\0';
        if (stat(opdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                snprintf(line, line_size, "%s: not a directory", opdir);
                if (!quiet)
                        fprintf(stderr, "ascendopt init: %s\n", line);
                return EX_NOINPUT;
        }
        if (format_path(path, sizeof(path), "%s/ascendopt.json", opdir) < 0)
                return cli_usage_error("init", "OPDIR is too long");
        if (!o->to_stdout && !o->force && access(path, F_OK) == 0) {
                snprintf(line, line_size, "ascendopt.json exists (--force replaces it)");
                if (!quiet)
                        fprintf(stderr,
                                "ascendopt init: %s exists; --force replaces it, --stdout prints "
                                "the draft\n",
                                path);
                return EX_CANTCREAT;
        }
        r = draft_manifest(&o->draft, session, &doc, &notes, err, sizeof(err));
        if (r < 0) {
                snprintf(line, line_size, "%s", r == -ENOMEM ? "out of memory" : err);
                if (!quiet)
                        fprintf(stderr, "ascendopt init: %s\n", line);
                ret = r == -ENOMEM ? EX_OSERR : EX_DATAERR;
                goto out;
        }
        /* checked before anything is written */
        r = draft_check(session, opdir, doc, o->check, &notes, summary, sizeof(summary), err,
                        sizeof(err));
        if (r < 0) {
                snprintf(line, line_size, "%.3000s (--no-check writes the draft unchecked)", err);
                if (!quiet) {
                        fprintf(stderr, "ascendopt init: %s\n", err);
                        fprintf(stderr, "ascendopt init: nothing was written; --stdout shows the "
                                        "draft, --no-check writes it unchecked\n");
                }
                ret = EX_DATAERR;
                if (!o->to_stdout)
                        goto out;
        }
        text = laid_out_text(doc);
        if (!text) {
                ret = EX_OSERR;
                goto out;
        }
        if (o->to_stdout) {
                printf("%s\n", text);
                goto out;
        }
        r = write_atomically(path, text);
        if (r < 0) {
                snprintf(line, line_size, "cannot write %.2048s: %s", path, strerror(-r));
                if (!quiet)
                        fprintf(stderr, "ascendopt init: %s\n", line);
                ret = EX_CANTCREAT;
                goto out;
        }
        {
                size_t goldens = 0, n = json_array_size(json_object_get(doc, "cases"));
                json_t *c;
                size_t i;
                json_array_foreach(json_object_get(doc, "cases"), i, c) goldens +=
                    json_object_get(c, "golden") != NULL;
                snprintf(line, line_size, "ok, %zu case%s, %zu with a golden%s%s", n,
                         n == 1 ? "" : "s", goldens, summary[0] ? "; " : " (not checked)", summary);
        }
        if (quiet)
                goto out;
        printf("wrote %s\n", path);
        for (size_t i = 0; i < notes.n; i++)
                printf("  %s\n", notes.lines[i]);
        if (summary[0])
                printf("  checked: %s\n", summary);
        else
                printf("  not checked (--no-check): run 'ascendopt eval %s'\n", opdir);
out:
        free(text);
        json_decref(doc);
        draft_notes_release(&notes);
        return ret;
}

/* Operator directories (holding op_host/ and op_kernel/) below root, up to depth levels. */
static void find_operator_dirs(const char *root, int depth, char **dirs, size_t *n, size_t max)
{
        char probe[PATH_MAX], *names[1024];
        size_t count = 0;
        struct dirent *e;
        DIR *d;

        if (format_path(probe, sizeof(probe), "%s/op_host", root) == 0 &&
            access(probe, X_OK) == 0 &&
            format_path(probe, sizeof(probe), "%s/op_kernel", root) == 0 &&
            access(probe, X_OK) == 0) {
                if (*n < max && (dirs[*n] = strdup(root)))
                        (*n)++;
                return;
        }
        if (depth == 0 || !(d = opendir(root)))
                return;
        while ((e = readdir(d)) && count < ARRAY_SIZE(names)) {
                struct stat st;
                if (e->d_name[0] == '.' ||
                    format_path(probe, sizeof(probe), "%s/%s", root, e->d_name) < 0 ||
                    stat(probe, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                names[count] = strdup(e->d_name);
                count += names[count] != NULL;
        }
        closedir(d);
        qsort(names, count, sizeof(*names), compare_names);
        for (size_t i = 0; i < count; i++) {
                if (format_path(probe, sizeof(probe), "%s/%s", root, names[i]) == 0)
                        find_operator_dirs(probe, depth - 1, dirs, n, max);
                free(names[i]);
        }
}

/* --all REPO: every operator, one line each. */
static int init_all(const struct init_options *base, const char *repo,
                    struct draft_session *session)
{
        char *dirs[4096], line[4096];
        size_t n = 0, ok = 0;

        find_operator_dirs(repo, 5, dirs, &n, ARRAY_SIZE(dirs));
        if (n == 0) {
                fprintf(stderr,
                        "ascendopt init: %s holds no operator (a directory with op_host/ "
                        "and op_kernel/)\n",
                        repo);
                return EX_NOINPUT;
        }
        for (size_t i = 0; i < n; i++) {
                struct init_options o = *base;
                const char *rel = dirs[i] + strlen(repo);
                size_t skip;
                int r;
                while (*rel == '/')
                        rel++;
                o.draft.opdir = dirs[i];
                r = init_one(&o, session, true, line, sizeof(line));
                ok += r == EX_OK;
                /* the reason names the operator directory already: once is enough */
                skip = strncmp(line, dirs[i], strlen(dirs[i])) == 0 ? strlen(dirs[i]) : 0;
                while (line[skip] == ':' || line[skip] == ' ')
                        skip++;
                /* one line: a compiler's message keeps its first line */
                line[skip + strcspn(line + skip, "\n")] = '\0';
                printf("%s: %s\n", *rel ? rel : ".", line + skip);
                fflush(stdout);
                free(dirs[i]);
        }
        printf("%zu of %zu operators drafted\n", ok, n);
        return ok == n ? EX_OK : EX_DATAERR;
}

int cmd_init(int argc, char **argv)
{
        static const struct option options[] = {
                { "case", required_argument, NULL, 'c' },
                { "bench-shape", required_argument, NULL, 'b' },
                { "all", no_argument, NULL, 'A' },
                { "attr", required_argument, NULL, 'a' },
                { "variant", required_argument, NULL, 'v' },
                { "kernel", required_argument, NULL, 'k' },
                { "op", required_argument, NULL, 'o' },
                { "level", required_argument, NULL, 'l' },
                { "stdout", no_argument, NULL, 's' },
                { "force", no_argument, NULL, 'f' },
                { "no-check", no_argument, NULL, 'n' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        struct init_options o = { .draft = { .variant = -1, .level = 1 }, .check = true };
        struct draft_options *d = &o.draft;
        struct draft_session *session = NULL;
        char line[4096];
        bool all = false;
        int opt, ret = EX_OK, r;

        optind = 1;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 'c':
                        if (d->n_flag_cases == DRAFT_MAX_FLAG_CASES)
                                return cli_usage_error("init", "too many --case");
                        d->flag_cases[d->n_flag_cases++] = optarg;
                        break;
                case 'a':
                        if (d->n_flag_attrs == DRAFT_MAX_FLAG_ATTRS)
                                return cli_usage_error("init", "too many --attr");
                        d->flag_attrs[d->n_flag_attrs++] = optarg;
                        break;
                case 'v': {
                        uint64_t v;
                        if (cli_parse_u64(optarg, &v) < 0 || v >= DRAFT_MAX_VARIANTS)
                                return cli_usage_error("init", "--variant wants 0, 1, ...");
                        d->variant = (long)v;
                        break;
                }
                case 'k':
                        d->kernel = optarg;
                        break;
                case 'b':
                        d->bench_shape = optarg;
                        break;
                case 'A':
                        all = true;
                        break;
                case 'o':
                        d->op_type = optarg;
                        break;
                case 'l':
                        if (strlen(optarg) != 1 || optarg[0] < '1' || optarg[0] > '3')
                                return cli_usage_error("init", "--level wants 1, 2 or 3");
                        d->level = optarg[0] - '0';
                        break;
                case 's':
                        o.to_stdout = true;
                        break;
                case 'f':
                        o.force = true;
                        break;
                case 'n':
                        o.check = false;
                        break;
                case 'h':
                        init_usage(stdout);
                        return EX_OK;
                default:
                        init_usage(stderr);
                        return EX_USAGE;
                }
        }
        if (optind + 1 != argc) {
                init_usage(stderr);
                return EX_USAGE;
        }
        if (all && (d->n_flag_cases || d->n_flag_attrs || d->kernel || d->op_type ||
                    d->variant >= 0 || d->bench_shape || o.to_stdout))
                return cli_usage_error("init", "--all takes no per-operator flags (--case, "
                                               "--attr, --kernel, --op, --variant, "
                                               "--bench-shape, --stdout)");
        r = draft_session_new(&session, line, sizeof(line));
        if (r < 0) {
                fprintf(stderr, "ascendopt init: %s\n", line);
                return EX_UNAVAILABLE;
        }
        if (all) {
                ret = init_all(&o, argv[optind], session);
        } else {
                d->opdir = argv[optind];
                ret = init_one(&o, session, false, line, sizeof(line));
        }
        draft_session_free(session);
        return ret;
}
