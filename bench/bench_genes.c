/* SPDX-License-Identifier: MIT */
/*
 * What Stage I can search in each operator, without running anything: its
 * genes (how many of them hidden in expressions and setter calls, #26) and
 * the sites of each structural tiling move.  Operators: every directory
 * given on the command line that holds op_host/, else the corpus
 * (examples/ops/level1..3) and tests/ops/ok.  --list prints every gene
 * with its file, line, value and range.  Prints a table and one JSON line.
 */
#include "common/common.h"
#include "optimizer/optimizer.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 64

static const char *const default_roots[] = { "examples/ops/level1", "examples/ops/level2",
                                             "examples/ops/level3", "tests/ops/ok" };

struct totals {
        size_t ops, genes, hidden, sites[16];
};

/*
 * Whether a gene was found inside an expression or a setter call, by the
 * names genes-hidden.c gives them (a rows-per-tile local keeps its own).
 */
static bool is_hidden(const struct gene *g)
{
        return strncmp(g->name, "set_", 4) == 0 || strncmp(g->name, "ub_budget ", 10) == 0 ||
               strncmp(g->name, "share multiple of ", 18) == 0 ||
               strncmp(g->name, "tile multiple of ", 17) == 0;
}

/* The op_host/ and op_kernel/ sources of dir as motif files (texts to free). */
static size_t load_files(const char *dir, struct motif_file *files)
{
        static const char *const subdirs[] = { "op_host", "op_kernel" };
        size_t n = 0;

        for (size_t s = 0; s < 2; s++) {
                char path[PATH_MAX];
                struct dirent *e;
                DIR *d;
                if (format_path(path, sizeof(path), "%s/%s", dir, subdirs[s]) < 0 ||
                    !(d = opendir(path)))
                        continue;
                while ((e = readdir(d)) && n < MAX_FILES) {
                        char full[PATH_MAX], rel[PATH_MAX];
                        char *text = NULL;
                        size_t len = 0;
                        if (e->d_name[0] == '.' ||
                            format_path(full, sizeof(full), "%s/%s", path, e->d_name) < 0 ||
                            format_path(rel, sizeof(rel), "%s/%s", subdirs[s], e->d_name) < 0 ||
                            read_text_file(full, 1 << 20, &text, &len) < 0)
                                continue;
                        files[n].path = strdup(rel);
                        files[n].text = text;
                        if (files[n].path)
                                n++;
                        else
                                free(text);
                }
                closedir(d);
        }
        return n;
}

static void one(const char *dir, bool list, struct totals *t)
{
        struct motif_file files[MAX_FILES];
        struct gene *genes = NULL;
        size_t n = 0, hidden = 0, n_files;
        char err[512];

        if (genes_find(dir, &genes, &n, err, sizeof(err)) < 0) {
                printf("%-48s %s\n", dir, err);
                return;
        }
        for (size_t i = 0; i < n; i++)
                hidden += is_hidden(&genes[i]);
        printf("%-48s %5zu %6zu", dir, n, hidden);
        t->ops++;
        t->genes += n;
        t->hidden += hidden;
        n_files = load_files(dir, files);
        for (size_t m = 0; m < tiling_move_count() && m < 16; m++) {
                struct motif_site *sites = NULL;
                size_t n_sites = 0;
                if (tiling_move_detect(tiling_move_at(m), files, n_files, &sites, &n_sites) < 0)
                        n_sites = 0;
                free(sites);
                printf(" %6zu", n_sites);
                t->sites[m] += n_sites;
        }
        printf("\n");
        for (size_t i = 0; list && i < n; i++)
                printf("    %s:%u %s = %lld [%lld..%lld]%s\n", genes[i].file, genes[i].line,
                       genes[i].name, (long long)genes[i].value, (long long)genes[i].lo,
                       (long long)genes[i].hi, genes[i].n_twins ? " with twins" : "");
        for (size_t i = 0; i < n_files; i++) {
                free((char *)files[i].path);
                free((char *)files[i].text);
        }
        free(genes);
}

static bool has_op_host(const char *dir)
{
        char path[PATH_MAX];
        struct stat st;

        return format_path(path, sizeof(path), "%s/op_host", dir) == 0 && stat(path, &st) == 0 &&
               S_ISDIR(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The operators under root, sorted. */
static void each_under(const char *root, bool list, struct totals *t)
{
        char *names[512];
        size_t n = 0;
        struct dirent *e;
        DIR *d = opendir(root);

        if (!d)
                return;
        while ((e = readdir(d)) && n < 512) {
                char dir[PATH_MAX];
                if (e->d_name[0] == '.' ||
                    format_path(dir, sizeof(dir), "%s/%s", root, e->d_name) < 0 ||
                    !has_op_host(dir) || !(names[n] = strdup(dir)))
                        continue;
                n++;
        }
        closedir(d);
        qsort(names, n, sizeof(*names), by_name);
        for (size_t i = 0; i < n; i++) {
                one(names[i], list, t);
                free(names[i]);
        }
}

int main(int argc, char **argv)
{
        struct totals t = { 0 };
        bool list = false, any = false;

        for (int a = 1; a < argc; a++)
                list = list || strcmp(argv[a], "--list") == 0;
        printf("%-48s %5s %6s", "operator", "genes", "hidden");
        for (size_t m = 0; m < tiling_move_count() && m < 16; m++)
                printf(" %.6s", tiling_move_at(m)->name);
        printf("\n");
        for (int a = 1; a < argc; a++) {
                if (strcmp(argv[a], "--list") == 0)
                        continue;
                any = true;
                if (has_op_host(argv[a]))
                        one(argv[a], list, &t);
                else
                        each_under(argv[a], list, &t);
        }
        for (size_t r = 0; !any && r < sizeof(default_roots) / sizeof(*default_roots); r++)
                each_under(default_roots[r], list, &t);
        printf("%zu operators, %zu genes, %zu of them hidden in expressions and setters\n", t.ops,
               t.genes, t.hidden);
        printf("{\"bench\":\"genes\",\"operators\":%zu,\"genes\":%zu,\"hidden\":%zu,\"sites\":{",
               t.ops, t.genes, t.hidden);
        for (size_t m = 0; m < tiling_move_count() && m < 16; m++)
                printf("%s\"%s\":%zu", m ? "," : "", tiling_move_at(m)->name, t.sites[m]);
        printf("}}\n");
        return 0;
}
