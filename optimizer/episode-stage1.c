/* SPDX-License-Identifier: MIT */
/*
 * Stage I of an episode: the operator's files as the episode holds them
 * (on disk, best, candidate), its tiling genes and where they are after a
 * rewrite, the structural tiling moves searched as move genes, and the
 * candidate a genome makes.
 */
#include "episode-internal.h"

#include "common/common.h"
#include "llm/llm.h"
#include "npu/npu.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <event2/event.h>

/* ------------------------------------------------------------ files and genes */

static int read_text(const char *path, char **ret)
{
        FILE *f = fopen(path, "re");
        char *text = NULL;
        long size;
        int r = 0;

        if (!f)
                return -errno;
        if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || size > MAX_FILE_BYTES ||
            fseek(f, 0, SEEK_SET) < 0) {
                r = -EFBIG;
                goto out;
        }
        text = malloc((size_t)size + 1);
        if (!text) {
                r = -ENOMEM;
                goto out;
        }
        if (fread(text, 1, (size_t)size, f) != (size_t)size) {
                free(text);
                r = -EIO;
                goto out;
        }
        text[size] = '\0';
        *ret = text;
out:
        fclose(f);
        return r;
}

/* Adds the file at path (the operator's own at rel when NULL) as rel. */
static int add_file_from(struct episode *ep, const char *rel, const char *from, bool is_source)
{
        struct op_file *f;
        char path[PATH_MAX];
        int r;

        if (ep->n_files == MAX_OP_FILES) {
                log_error("%s: more than %d files in op_host/ and op_kernel/, the most an "
                          "episode edits",
                          ep->manifest->dir, MAX_OP_FILES - 1);
                return -E2BIG;
        }
        if (from ? format_path(path, sizeof(path), "%s", from) < 0
                 : format_path(path, sizeof(path), "%s/%s", ep->manifest->dir, rel) < 0)
                return -ENAMETOOLONG;
        f = &ep->files[ep->n_files];
        memset(f, 0, sizeof(*f));
        r = read_text(path, &f->disk);
        if (r == -EFBIG)
                log_error("%s: larger than the %u KiB an operator's source file may have (each "
                          "is copied into every candidate); keep data out of op_host/ and "
                          "op_kernel/",
                          path, (unsigned)(MAX_FILE_BYTES >> 10));
        if (r < 0)
                return r;
        f->path = strdup(rel);
        f->best = strdup(f->disk);
        if (!f->path || !f->best) {
                free(f->path);
                free(f->best);
                free(f->disk);
                return -ENOMEM;
        }
        f->is_source = is_source;
        ep->n_files++;
        return 0;
}

static int add_file(struct episode *ep, const char *rel, bool is_source)
{
        return add_file_from(ep, rel, NULL, is_source);
}

/*
 * The shared headers the kernel includes by a bare name, as copies in
 * op_kernel/, so that Stage II can rewrite a kernel whose body lives in
 * the repository's common headers (cann-ops' foreach operators keep all
 * of theirs there).  Nothing changes until a rewrite touches one: then
 * all the copies go into the candidate together (episode_build_overrides).
 * An operator whose layout cannot be read keeps its own files only.
 */
static int add_kernel_headers(struct episode *ep)
{
        struct npu_op_layout *layout = NULL;
        char err[512] = "";
        size_t added = 0;
        int r;

        r = npu_op_layout_read(ep->manifest->dir, NULL, &layout, err, sizeof(err));
        if (r < 0) {
                log_msg(LOG_INFO, ep->options.log_context,
                        "the kernel's shared headers stay out of Stage II's reach: %s",
                        err[0] ? err : strerror(-r));
                return 0;
        }
        /* room for every copy and ascendopt.json, and no copy past the size limit */
        if (ep->n_files + layout->n_kernel_headers >= MAX_OP_FILES)
                goto out;
        for (size_t i = 0; i < layout->n_kernel_headers; i++) {
                char from[PATH_MAX];
                struct stat st;
                if (format_path(from, sizeof(from), "%s/%s", layout->repo_root,
                                layout->kernel_headers[i]) < 0 ||
                    stat(from, &st) < 0 || st.st_size > (off_t)MAX_FILE_BYTES)
                        goto out;
        }
        for (size_t i = 0; r == 0 && i < layout->n_kernel_headers; i++) {
                const char *shared = layout->kernel_headers[i], *name = strrchr(shared, '/');
                char rel[PATH_MAX], from[PATH_MAX];
                r = format_path(rel, sizeof(rel), "op_kernel/%s", name ? name + 1 : shared);
                if (r == 0)
                        r = format_path(from, sizeof(from), "%s/%s", layout->repo_root, shared);
                if (r == 0)
                        r = add_file_from(ep, rel, from, true);
                if (r == 0 && !(ep->files[ep->n_files - 1].copied_from = strdup(shared)))
                        r = -ENOMEM;
                added += r == 0;
        }
        if (r == 0 && added)
                log_msg(LOG_INFO, ep->options.log_context,
                        "the kernel includes %zu shared header%s (%s%s): Stage II may rewrite "
                        "%s in op_kernel/",
                        added, added == 1 ? "" : "s", layout->kernel_headers[0],
                        added > 1 ? ", ..." : "", added == 1 ? "a copy of it" : "copies of them");
out:
        npu_op_layout_free(layout);
        return r;
}

static bool is_regular_file(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int by_name(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The op_kernel/ and op_host/ files, sorted, and ascendopt.json (read only). */
int episode_load_files(struct episode *ep)
{
        static const char *const subdirs[] = { "op_host", "op_kernel" };
        int r = 0;

        for (size_t s = 0; s < ARRAY_SIZE(subdirs) && r == 0; s++) {
                char dir[PATH_MAX], *names[MAX_OP_FILES];
                size_t n = 0;
                struct dirent *e;
                DIR *d;
                if (format_path(dir, sizeof(dir), "%s/%s", ep->manifest->dir, subdirs[s]) < 0)
                        return -ENAMETOOLONG;
                d = opendir(dir);
                if (!d)
                        return -errno;
                while ((e = readdir(d))) {
                        char full[PATH_MAX];
                        if (e->d_name[0] == '.' ||
                            format_path(full, sizeof(full), "%s/%s", dir, e->d_name) < 0 ||
                            !is_regular_file(full))
                                continue;
                        if (n == MAX_OP_FILES - 1) {
                                log_error("%s: more than %d files, the most an episode edits; "
                                          "move what the operator does not build elsewhere",
                                          dir, MAX_OP_FILES - 1);
                                r = -E2BIG;
                                break;
                        }
                        names[n] = strdup(e->d_name);
                        if (!names[n]) {
                                r = -ENOMEM;
                                break;
                        }
                        n++;
                }
                closedir(d);
                qsort(names, n, sizeof(*names), by_name);
                for (size_t i = 0; i < n; i++) {
                        char rel[PATH_MAX];
                        if (r == 0)
                                r = format_path(rel, sizeof(rel), "%s/%s", subdirs[s], names[i]);
                        if (r == 0)
                                r = add_file(ep, rel, true);
                        free(names[i]);
                }
        }
        if (r == 0)
                r = add_kernel_headers(ep);
        if (r == 0)
                r = add_file(ep, "ascendopt.json", false);
        for (size_t g = 0; g < ep->n_genes && r == 0; g++) {
                struct op_file *f = episode_file_named(ep, ep->genes[g].file);
                if (!f)
                        return -ENOENT;
                if (!f->gene_base && !(f->gene_base = strdup(f->disk)))
                        return -ENOMEM;
        }
        return r;
}

/* Where line `start` of text begins, and the length of that line. */
static size_t line_bounds(const char *text, size_t at, size_t *ret_len)
{
        size_t start = at, end = at;

        while (start > 0 && text[start - 1] != '\n')
                start--;
        while (text[end] && text[end] != '\n')
                end++;
        *ret_len = end - start;
        return start;
}

/* How many lines of text equal line (len bytes), and the index of the one at before_pos. */
static size_t count_lines(const char *text, const char *line, size_t len, size_t before_pos,
                          size_t *ret_ordinal)
{
        size_t count = 0, ordinal = 0;

        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t l = eol ? (size_t)(eol - p) : strlen(p);
                if (l == len && memcmp(p, line, len) == 0) {
                        if ((size_t)(p - text) < before_pos)
                                ordinal++;
                        count++;
                }
                p += l + (eol ? 1 : 0);
        }
        if (ret_ordinal)
                *ret_ordinal = ordinal;
        return count;
}

/* The start of the ordinal-th line of text equal to line, or (size_t)-1. */
static size_t nth_line(const char *text, const char *line, size_t len, size_t ordinal)
{
        for (const char *p = text; *p;) {
                const char *eol = strchr(p, '\n');
                size_t l = eol ? (size_t)(eol - p) : strlen(p);
                if (l == len && memcmp(p, line, len) == 0 && ordinal-- == 0)
                        return (size_t)(p - text);
                p += l + (eol ? 1 : 0);
        }
        return (size_t)-1;
}

/*
 * Finds the genes of file f again after a Stage II rewrite replaced its
 * gene_base old_text with new_text: first on an identical line (the
 * rewrite did not touch it), else by name among the genes the finder sees
 * in the new text, else the gene is lost to Stage I from now on.  The best
 * genome takes the values found.  Returns how many genes were lost.
 */
size_t episode_relocate_genes(struct episode *ep, const char *path, const char *old_text,
                              const char *new_text)
{
        struct gene *found = NULL;
        size_t n_found = 0, lost = 0;
        char err[256];

        if (genes_find_in_text(path, new_text, strlen(new_text), &found, &n_found, err,
                               sizeof(err)) < 0)
                n_found = 0;
        for (size_t g = 0; g < ep->n_genes; g++) {
                struct gene *l = &ep->located[g];
                size_t line_len, line_start, ordinal = 0, same_name = 0, at;
                bool done = false;
                if (strcmp(l->file, path) != 0 || ep->lost[g])
                        continue;
                line_start = line_bounds(old_text, l->start, &line_len);
                if (count_lines(old_text, old_text + line_start, line_len, line_start, &ordinal) ==
                    count_lines(new_text, old_text + line_start, line_len, 0, NULL)) {
                        at = nth_line(new_text, old_text + line_start, line_len, ordinal);
                        if (at != (size_t)-1) {
                                l->start = at + (l->start - line_start);
                                done = true;
                        }
                }
                for (size_t h = 0; h < g && !done; h++)
                        same_name += strcmp(ep->genes[h].file, path) == 0 &&
                                     strcmp(ep->genes[h].name, l->name) == 0;
                for (size_t k = 0; k < n_found && !done; k++) {
                        if (strcmp(found[k].name, l->name) != 0 || same_name-- > 0)
                                continue;
                        l->start = found[k].start;
                        l->len = found[k].len;
                        l->line = found[k].line;
                        l->value = found[k].value;
                        l->n_twins = found[k].n_twins;
                        memcpy(l->twins, found[k].twins, sizeof(l->twins));
                        ep->best_values[g] = found[k].value;
                        done = true;
                }
                if (!done) {
                        ep->lost[g] = true;
                        lost++;
                }
        }
        free(found);
        return lost;
}

/* ------------------------------------------------------------ structural tiling moves */

/* The texts moves are detected on and applied to: the candidate's, else the best's. */
static size_t candidate_file_set(struct episode *ep, struct motif_file *set)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                set[i].path = ep->files[i].path;
                set[i].text = ep->files[i].cand ? ep->files[i].cand : ep->files[i].best;
        }
        return ep->n_files;
}

/*
 * Appends a move gene for every move with a site in the files on disk, and
 * gives every file a move changes a gene_base, so that each candidate
 * rebuilds it from there.
 */
int episode_add_move_genes(struct episode *ep)
{
        struct motif_file set[MAX_OP_FILES];
        size_t n = ep->n_files;

        for (size_t i = 0; i < n; i++) {
                set[i].path = ep->files[i].path;
                set[i].text = ep->files[i].disk;
        }
        for (size_t m = 0; m < tiling_move_count(); m++) {
                const struct tiling_move *move = tiling_move_at(m);
                struct motif_site *sites = NULL;
                struct motif_file *changed = NULL;
                size_t n_sites = 0, n_changed = 0;
                struct gene *grown, *g;
                int r = tiling_move_detect(move, set, n, &sites, &n_sites);
                free(sites);
                if (r < 0 || n_sites == 0)
                        continue;
                for (size_t k = 0; k < n_sites; k++) {
                        if (tiling_move_apply(move, set, n, k, &changed, &n_changed) < 0)
                                continue;
                        for (size_t c = 0; c < n_changed; c++) {
                                struct op_file *f = episode_file_named(ep, changed[c].path);
                                if (f && !f->gene_base && !(f->gene_base = strdup(f->disk))) {
                                        motif_files_free(changed, n_changed);
                                        return -ENOMEM;
                                }
                        }
                        motif_files_free(changed, n_changed);
                        changed = NULL;
                }
                grown = realloc(ep->genes, (ep->n_genes + 1) * sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                ep->genes = grown;
                g = &ep->genes[ep->n_genes++];
                memset(g, 0, sizeof(*g));
                snprintf(g->name, sizeof(g->name), "%s%s", MOVE_GENE_PREFIX, move->name);
                g->lo = 0;
                g->hi = (int64_t)n_sites;
                g->scale = GENE_CHOICE;
        }
        return 0;
}

/* Takes the changed texts as the candidate's (ownership passes; the array is freed). */
static int take_changed(struct episode *ep, struct motif_file *changed, size_t n_changed)
{
        int r = 0;

        for (size_t k = 0; k < n_changed; k++) {
                struct op_file *f = episode_file_named(ep, changed[k].path);
                if (!f || !f->is_source) {
                        r = -EINVAL;
                        continue;
                }
                free(f->cand);
                f->cand = (char *)changed[k].text;
                changed[k].text = NULL;
        }
        motif_files_free(changed, n_changed);
        return r;
}

/*
 * Makes the moves of genome values on the candidate texts, in table order;
 * a move whose site is gone (an earlier move or a rewrite took it) is left
 * out.  Names the moves made in pending_move.
 */
static int apply_move_genes(struct episode *ep, const int64_t *values)
{
        struct motif_file set[MAX_OP_FILES];

        ep->pending_move[0] = '\0';
        for (size_t g = 0; g < ep->n_genes; g++) {
                const struct tiling_move *move;
                struct motif_site *sites = NULL;
                struct motif_file *changed = NULL;
                size_t n_sites = 0, n_changed = 0, n = candidate_file_set(ep, set);
                int r;
                if (!episode_is_move_gene(&ep->genes[g]) || values[g] <= 0)
                        continue;
                move = tiling_move_find(ep->genes[g].name + strlen(MOVE_GENE_PREFIX));
                r = move ? tiling_move_detect(move, set, n, &sites, &n_sites) : -ENOENT;
                free(sites);
                if (r < 0 || (size_t)values[g] > n_sites)
                        continue;
                /* a move that cannot be made on these texts is left out, as a gone site is */
                r = tiling_move_apply(move, set, n, (size_t)values[g] - 1, &changed, &n_changed);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                r = take_changed(ep, changed, n_changed);
                if (r < 0)
                        return r;
                snprintf(ep->pending_move + strlen(ep->pending_move),
                         sizeof(ep->pending_move) - strlen(ep->pending_move), "%s%s",
                         ep->pending_move[0] ? "+" : "", move->name);
        }
        return 0;
}

/* Overrides for the candidate: every source whose text is not the disk's (and gene files). */
void episode_build_overrides(struct episode *ep)
{
        bool copies = false; /* a copied shared header changed: all copies go */

        for (size_t i = 0; i < ep->n_files && !copies; i++) {
                const struct op_file *f = &ep->files[i];
                copies = f->copied_from && strcmp(f->cand ? f->cand : f->best, f->disk) != 0;
        }
        ep->n_overrides = 0;
        for (size_t i = 0; i < ep->n_files; i++) {
                const struct op_file *f = &ep->files[i];
                const char *text = f->cand ? f->cand : f->best;
                if (!f->is_source ||
                    (!f->gene_base && !(copies && f->copied_from) && strcmp(text, f->disk) == 0))
                        continue;
                ep->overrides[ep->n_overrides].path = f->path;
                ep->overrides[ep->n_overrides].text = text;
                ep->n_overrides++;
        }
}

/*
 * The genome written into the gene files, its moves made on the candidate
 * texts (a kernel already in the candidate counts its live buffers).
 */
int episode_write_genome(struct episode *ep, const int64_t *values)
{
        size_t n = 0;
        int r;

        for (size_t g = 0; g < ep->n_genes; g++) {
                if (ep->lost[g] || episode_is_move_gene(&ep->genes[g]))
                        continue;
                ep->apply_genes[n] = ep->located[g];
                ep->apply_values[n] = values[g];
                n++;
        }
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->gene_base)
                        continue;
                r = genes_apply(f->path, f->gene_base, strlen(f->gene_base), ep->apply_genes,
                                ep->apply_values, n, &f->cand);
                if (r < 0)
                        return r;
        }
        r = apply_move_genes(ep, values);
        if (r < 0)
                return r;
        episode_build_overrides(ep);
        return 0;
}

/* Stage I's candidate: the genome written into the gene files of the best pair, its moves made. */
static int build_genome_candidate(struct episode *ep, const int64_t *values)
{
        episode_clear_candidate(ep);
        return episode_write_genome(ep, values);
}

/* The best pair's texts as a motif file set (borrowed pointers). */
size_t episode_best_file_set(struct episode *ep, struct motif_file *set)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                set[i].path = ep->files[i].path;
                set[i].text = ep->files[i].best;
        }
        return ep->n_files;
}

/* The candidate's source texts, one string; NULL when out of memory. */
static char *candidate_sources(const struct episode *ep)
{
        size_t len = 1, at = 0;
        char *all;

        for (size_t i = 0; i < ep->n_files; i++)
                if (ep->files[i].is_source)
                        len += strlen(ep->files[i].cand ?: ep->files[i].best) + 1;
        all = malloc(len);
        for (size_t i = 0; all && i < ep->n_files; i++) {
                const char *text = ep->files[i].cand ?: ep->files[i].best;
                size_t n = strlen(text);
                if (!ep->files[i].is_source)
                        continue;
                memcpy(all + at, text, n);
                at += n;
                all[at++] = '\x01'; /* where one file ends: no source holds it */
        }
        if (all)
                all[at] = '\0';
        return all;
}

/* Another value of gene g than its own, or its own when it has no other. */
static int64_t other_value(const struct gene *g)
{
        int64_t v = gene_snap(g, g->value > INT64_MAX / 2 ? g->value : g->value * 2);

        if (v == g->value)
                v = gene_snap(g, g->value / 2);
        if (v == g->value)
                v = g->lo != g->value ? g->lo : g->hi;
        return v;
}

/* One line per move and gene: "tile_from_ub at sites 1, 2, 3 leaves TILE_LENGTH nothing to do". */
static void log_inert_genes(const struct episode *ep)
{
        for (size_t i = 0; i < ep->n_inert; i++) {
                const struct search_inert *x = &ep->inert[i];
                char sites[128] = "";
                size_t n = 0;
                bool told = false;
                for (size_t k = 0; k < i && !told; k++)
                        told = ep->inert[k].move == x->move && ep->inert[k].gene == x->gene;
                if (told)
                        continue;
                for (size_t k = i; k < ep->n_inert; k++) {
                        size_t len = strlen(sites);
                        if (ep->inert[k].move != x->move || ep->inert[k].gene != x->gene)
                                continue;
                        snprintf(sites + len, sizeof(sites) - len, "%s%lld", n++ ? ", " : "",
                                 (long long)ep->inert[k].site);
                }
                log_msg(LOG_INFO, ep->options.log_context,
                        "%s at site%s %s leaves %s nothing to do: held as written while it is "
                        "made",
                        ep->genes[x->move].name + strlen(MOVE_GENE_PREFIX), n > 1 ? "s" : "", sites,
                        ep->genes[x->gene].name);
        }
}

/*
 * Finds, on the operator as written, the genes each move's site leaves
 * nothing to do: the candidate with the move made is the same text
 * whatever the gene's value.  Setup, not budget: texts only.
 */
static int find_inert_genes(struct episode *ep)
{
        int64_t values[GENES_MAX];
        struct search_inert *grown;
        char *with_move = NULL, *moved_gene = NULL;
        int r = 0;

        ep->inert_known = true;
        for (size_t m = 0; m < ep->n_genes && r == 0; m++) {
                if (!episode_is_move_gene(&ep->genes[m]))
                        continue;
                for (int64_t site = 1; site <= ep->genes[m].hi && r == 0; site++) {
                        for (size_t g = 0; g < ep->n_genes; g++)
                                values[g] =
                                    episode_is_move_gene(&ep->genes[g]) ? 0 : ep->genes[g].value;
                        values[m] = site;
                        episode_clear_candidate(ep);
                        r = episode_write_genome(ep, values);
                        if (r < 0 || !(with_move = candidate_sources(ep))) {
                                r = r < 0 ? r : -ENOMEM;
                                break;
                        }
                        for (size_t g = 0; g < ep->n_genes && r == 0; g++) {
                                int64_t keep = values[g];
                                bool same;
                                if (episode_is_move_gene(&ep->genes[g]) || ep->lost[g] ||
                                    other_value(&ep->genes[g]) == keep)
                                        continue;
                                values[g] = other_value(&ep->genes[g]);
                                episode_clear_candidate(ep);
                                r = episode_write_genome(ep, values);
                                values[g] = keep;
                                if (r < 0 || !(moved_gene = candidate_sources(ep))) {
                                        r = r < 0 ? r : -ENOMEM;
                                        break;
                                }
                                same = strcmp(with_move, moved_gene) == 0;
                                free(moved_gene);
                                moved_gene = NULL;
                                if (!same)
                                        continue;
                                grown = realloc(ep->inert, (ep->n_inert + 1) * sizeof(*grown));
                                if (!grown) {
                                        r = -ENOMEM;
                                        break;
                                }
                                ep->inert = grown;
                                ep->inert[ep->n_inert++] =
                                    (struct search_inert){ .move = m, .site = site, .gene = g };
                        }
                        free(with_move);
                        with_move = NULL;
                }
        }
        episode_clear_candidate(ep);
        log_inert_genes(ep);
        return r;
}

static int propose_genome(struct episode *ep)
{
        int r;

        if (ep->n_genes == 0)
                return -ENOSPC;
        if (!ep->inert_known) {
                r = find_inert_genes(ep);
                if (r < 0)
                        return r;
        }
        search_set_frozen(ep->search, ep->lost);
        search_set_inert(ep->search, ep->inert, ep->n_inert);
        r = search_propose(ep->search, ep->pending, &ep->pending_technique);
        if (r == -ENOSPC && episode_counter(ep, "kernel_changes_unsearched") > 0) {
                /*
                 * Every genome was tried, but some on an older kernel: the
                 * landscape changed, so a new search starts from the best
                 * pair (what was learned of the old kernel, failures
                 * included, no longer holds).
                 */
                struct search *fresh = NULL;
                double best = 0;
                episode_bump(ep, "search_resets");
                json_object_set_new(ep->record, "kernel_changes_unsearched", json_integer(0));
                ep->search_options.seed =
                    ep->options.seed + 7919 * (uint64_t)episode_counter(ep, "search_resets");
                search_best(ep->search, &best);
                r = search_new(ep->genes, ep->n_genes, &ep->search_options, &fresh);
                if (r < 0)
                        return r;
                search_free(ep->search);
                ep->search = fresh;
                search_record(ep->search, ep->best_values, TECHNIQUE_COUNT, true, best, NULL);
                search_set_frozen(ep->search, ep->lost);
                search_set_inert(ep->search, ep->inert, ep->n_inert);
                r = search_propose(ep->search, ep->pending, &ep->pending_technique);
        }
        if (r < 0)
                return r;
        ep->pending_stage = 1;
        return build_genome_candidate(ep, ep->pending);
}

/* Proposals refused in a row (a move that rewrites a frozen literal) before Stage I gives up. */
#define FROZEN_REFUSALS_MAX 32

/*
 * The next genome's candidate.  One whose moves would change a frozen
 * literal (a tiling key, a byte width, code no case runs) is recorded as
 * failed without an evaluation, and the next is proposed.
 */
int episode_propose_stage1(struct episode *ep)
{
        char why[256];

        for (int refused = 0;; refused++) {
                int r = propose_genome(ep);
                if (r < 0 || !episode_changes_frozen(ep, why, sizeof(why)))
                        return r;
                search_record(ep->search, ep->pending, ep->pending_technique, false, 0,
                              "changes_frozen");
                episode_bump(ep, "frozen_refused");
                log_msg(LOG_DEBUG, ep->options.log_context, "candidate refused: %s", why);
                episode_clear_candidate(ep);
                if (refused == FROZEN_REFUSALS_MAX)
                        return -ENOSPC;
        }
}

/*
 * The pending genome's gene files (moves made) become the best pair's,
 * with its values; gene_files_only leaves other files' candidates (a
 * kernel rewrite made on that genome) for adopt_rewrite.
 */
void episode_adopt_genome(struct episode *ep, bool gene_files_only)
{
        for (size_t i = 0; i < ep->n_files; i++) {
                struct op_file *f = &ep->files[i];
                if (!f->cand || (gene_files_only && !f->gene_base))
                        continue;
                free(f->best);
                f->best = f->cand;
                f->cand = NULL;
        }
        memcpy(ep->best_values, ep->pending, ep->n_genes * sizeof(*ep->pending));
}

/* ------------------------------------------------------------ what wrong answers teach */

static void add_fact(struct search_options *o, int64_t v)
{
        if (v <= 1 || o->n_facts == SEARCH_FACTS_MAX)
                return;
        for (size_t i = 0; i < o->n_facts; i++)
                if (o->facts[i] == v)
                        return;
        o->facts[o->n_facts++] = v;
}

/* A shape's dimensions, and the products of its leading and of its trailing ones. */
static void add_shape_facts(struct search_options *o, const json_t *shape)
{
        size_t n = json_array_size(shape);
        int64_t lead = 1, trail = 1;

        for (size_t i = 0; i < n; i++) {
                int64_t d = json_integer_value(json_array_get(shape, i));
                int64_t t = json_integer_value(json_array_get(shape, n - 1 - i));
                if (d <= 0 || t <= 0 || lead > INT64_MAX / d || trail > INT64_MAX / t)
                        return;
                add_fact(o, d);
                lead *= d;
                trail *= t;
                add_fact(o, lead);
                add_fact(o, trail);
        }
}

/*
 * The quantities of the manifest's cases a gene may have to divide (rows,
 * row lengths, element counts of every input), for the constraints Stage I
 * learns from wrong answers.
 */
void episode_shape_facts(const struct npu_manifest *m, struct search_options *o)
{
        o->n_facts = 0;
        for (size_t c = 0; c < m->n_cases; c++) {
                for (size_t i = 0; i < m->n_inputs; i++) {
                        const json_t *shape =
                            json_object_get(m->cases[c].shapes, m->inputs[i].name);
                        size_t k;
                        const json_t *one;
                        if (!json_is_array(shape))
                                continue;
                        if (!json_is_array(json_array_get(shape, 0))) {
                                add_shape_facts(o, shape);
                                continue;
                        }
                        json_array_foreach(shape, k, one)
                        {
                                add_shape_facts(o, one);
                        }
                }
        }
}

/* The constraint of list with the same gene, kind and bound as c, or NULL. */
static json_t *find_constraint(const json_t *list, const json_t *c)
{
        size_t i;
        json_t *e;

        json_array_foreach(list, i, e)
        {
                if (json_equal(json_object_get(e, "name"), json_object_get(c, "name")) &&
                    json_equal(json_object_get(e, "kind"), json_object_get(c, "kind")) &&
                    json_equal(json_object_get(e, "n"), json_object_get(c, "n")))
                        return e;
        }
        return NULL;
}

/*
 * After a candidate is recorded: says which constraints Stage I learnt or
 * dropped since the last one, and keeps the list in the record's
 * "constraints" (each with the evaluation it was learnt after) and how
 * many proposals they turned away in "constraint_rejections".
 */
void episode_note_constraints(struct episode *ep)
{
        json_t *now = search_constraints_json(ep->search);
        const json_t *before = json_object_get(ep->record, "constraints");
        size_t i;
        json_t *c;

        if (!now)
                return;
        json_array_foreach(now, i, c)
        {
                const json_t *old = find_constraint(before, c);
                if (old) {
                        json_object_set(c, "learnt_at", json_object_get(old, "learnt_at"));
                        continue;
                }
                json_object_set_new(c, "learnt_at",
                                    json_integer(episode_counter(ep, "evaluations")));
                episode_bump(ep, "constraints_learnt");
                log_msg(LOG_INFO, ep->options.log_context, "Stage I learned: %s",
                        json_string_value(json_object_get(c, "text")));
        }
        json_array_foreach(before, i, c)
        {
                if (!find_constraint(now, c))
                        log_msg(LOG_INFO, ep->options.log_context,
                                "Stage I no longer holds: %s (a genome that breaks it answered "
                                "right, or the search started over on a new kernel)",
                                json_string_value(json_object_get(c, "text")));
        }
        if (json_array_size(now) > 0 || before)
                json_object_set_new(ep->record, "constraints", now);
        else
                json_decref(now);
        if (search_constraint_rejections(ep->search) > 0)
                json_object_set_new(
                    ep->record, "constraint_rejections",
                    json_integer((json_int_t)search_constraint_rejections(ep->search)));
}
