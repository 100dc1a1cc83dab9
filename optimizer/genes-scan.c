/* SPDX-License-Identifier: MIT */
/*
 * Stage I's genes of a whole operator: how every op_host file and the
 * kernel use their names (optimizer/genes-fixed.c) is learnt first, so
 * that a constant defined in a header and passed to SetTilingKey in the
 * tiling function is known as a key; then each op_host file is scanned
 * for genes (optimizer/genes.c), and every literal looked at is noted with
 * why it was or was not taken.
 */
#include "optimizer.h"
#include "genes-internal.h"

#include "common/common.h"
#include "cxx/cxx.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_MAX_BYTES (1u << 20)

void gene_literals_release(struct gene_literals *literals)
{
        if (!literals)
                return;
        free(literals->items);
        memset(literals, 0, sizeof(*literals));
}

int genes_find_in_text(const char *file, const char *text, size_t len, struct gene **genes,
                       size_t *n, char *err, size_t err_size)
{
        struct gene_uses *uses = NULL;
        struct token_list list;
        unsigned bad_line = 0;
        int r = gene_uses_new(&uses);

        /* a text that cannot be tokenized is said so by scan_text */
        if (r == 0 && tokenize(text, len, &list, &bad_line) == 0) {
                r = gene_uses_learn(uses, &list, false);
                token_list_release(&list);
        }
        if (r == 0)
                r = gene_uses_close(uses);
        if (r == 0)
                r = genes_scan_text(file, text, len, uses, genes, n, NULL, err, err_size);
        gene_uses_free(uses);
        return r;
}

static int compare_names(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_source_name(const char *name)
{
        const char *dot = strrchr(name, '.');

        return dot && (strcmp(dot, ".cpp") == 0 || strcmp(dot, ".h") == 0 ||
                       strcmp(dot, ".hpp") == 0 || strcmp(dot, ".cc") == 0);
}

int gene_literal_note(struct gene_literals *literals, const char *file, const struct token *t,
                      const struct gene *g, const char *why, bool taken, bool frozen)
{
        struct gene_literal *l;

        if (!literals)
                return 0;
        if (literals->n == GENE_LITERALS_MAX) {
                literals->more++;
                return 0;
        }
        if (literals->n % 64 == 0) {
                struct gene_literal *grown =
                    realloc(literals->items, (literals->n + 64) * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                literals->items = grown;
        }
        l = &literals->items[literals->n++];
        memset(l, 0, sizeof(*l));
        snprintf(l->file, sizeof(l->file), "%s", file);
        snprintf(l->name, sizeof(l->name), "%s", g->name);
        snprintf(l->why, sizeof(l->why), "%s", why);
        l->start = t->start;
        l->len = t->len;
        l->line = t->line;
        l->value = g->value;
        l->taken = taken;
        l->frozen = frozen;
        return 0;
}

/* The C++ sources of dir, sorted by name (*ret_n of them, each to free); 0 or -errno. */
static int list_sources(const char *dir, char **names, size_t max, size_t *ret_n)
{
        struct dirent *e;
        size_t n = 0;
        DIR *d = opendir(dir);

        if (!d)
                return -errno;
        while ((e = readdir(d)) && n < max)
                if (is_source_name(e->d_name) && (names[n] = strdup(e->d_name)))
                        n++;
        closedir(d);
        qsort(names, n, sizeof(*names), compare_names);
        *ret_n = n;
        return 0;
}

/* Learns how the kernel uses names (TILING_KEY_IS); a kernel that cannot be read teaches nothing. */
static int learn_kernel(struct gene_uses *uses, const char *opdir)
{
        char dir[PATH_MAX], path[PATH_MAX], *names[64];
        size_t n = 0;
        int r = 0;

        if (format_path(dir, sizeof(dir), "%s/op_kernel", opdir) < 0 ||
            list_sources(dir, names, sizeof(names) / sizeof(*names), &n) < 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                struct token_list list;
                unsigned bad_line;
                char *text = NULL;
                size_t len = 0;
                if (r == 0 && format_path(path, sizeof(path), "%s/%s", dir, names[i]) == 0 &&
                    read_text_file(path, FILE_MAX_BYTES, &text, &len) == 0 &&
                    tokenize(text, len, &list, &bad_line) == 0) {
                        r = gene_uses_learn(uses, &list, true);
                        token_list_release(&list);
                }
                free(text);
                free(names[i]);
        }
        return r;
}

int genes_scan(const char *opdir, struct gene **ret_genes, size_t *ret_n,
               struct gene_literals *literals, char *err, size_t err_size)
{
        char dir[PATH_MAX], path[PATH_MAX], rel[PATH_MAX];
        char *names[64], *texts[64] = { NULL };
        size_t n_names = 0, n = 0, lens[64] = { 0 };
        struct gene_uses *uses = NULL;
        struct gene *genes = NULL;
        int r;

        if (format_path(dir, sizeof(dir), "%s/op_host", opdir) < 0)
                return -ENAMETOOLONG;
        r = list_sources(dir, names, sizeof(names) / sizeof(*names), &n_names);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot read: %s", dir, strerror(-r));
                return r;
        }
        r = gene_uses_new(&uses);
        if (r == 0)
                r = learn_kernel(uses, opdir);
        /* first how every file uses its names, then the literals of each */
        for (size_t i = 0; i < n_names && r == 0; i++) {
                struct token_list list;
                unsigned bad_line;
                if (format_path(path, sizeof(path), "%s/%s", dir, names[i]) < 0) {
                        r = -ENAMETOOLONG;
                        break;
                }
                r = read_text_file(path, FILE_MAX_BYTES, &texts[i], &lens[i]);
                if (r < 0) {
                        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(-r));
                        break;
                }
                if (tokenize(texts[i], lens[i], &list, &bad_line) == 0) {
                        r = gene_uses_learn(uses, &list, false);
                        token_list_release(&list);
                }
        }
        if (r == 0)
                r = gene_uses_close(uses);
        for (size_t i = 0; i < n_names && r == 0; i++) {
                if (format_path(rel, sizeof(rel), "op_host/%s", names[i]) < 0) {
                        r = -ENAMETOOLONG;
                        break;
                }
                r = genes_scan_text(rel, texts[i], lens[i], uses, &genes, &n, literals, err,
                                    err_size);
        }
        for (size_t i = 0; i < n_names; i++) {
                free(names[i]);
                free(texts[i]);
        }
        gene_uses_free(uses);
        if (r < 0) {
                free(genes);
                return r;
        }
        /* markers anywhere mean only marked literals anywhere */
        bool any_marked = false;
        for (size_t i = 0; i < n; i++)
                any_marked |= genes[i].marked;
        if (any_marked) {
                size_t kept = 0;
                for (size_t i = 0; i < n; i++)
                        if (genes[i].marked)
                                genes[kept++] = genes[i];
                n = kept;
                for (size_t k = 0; literals && k < literals->n; k++)
                        if (literals->items[k].taken &&
                            strcmp(literals->items[k].why, "@tune marker") != 0) {
                                literals->items[k].taken = false;
                                snprintf(literals->items[k].why, sizeof(literals->items[k].why),
                                         "unmarked (the operator marks its knobs)");
                        }
        }
        *ret_genes = genes;
        *ret_n = n;
        return 0;
}

int genes_find(const char *opdir, struct gene **ret_genes, size_t *ret_n, char *err,
               size_t err_size)
{
        return genes_scan(opdir, ret_genes, ret_n, NULL, err, err_size);
}
