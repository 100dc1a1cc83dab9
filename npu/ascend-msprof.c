/* SPDX-License-Identifier: MIT */
/*
 * Reading what `msprof op` writes: a small CSV parser, OpBasicInfo.csv (one
 * row per kernel launch) and PipeUtilization.csv (one row per core), found
 * anywhere under the output directory, turned into the result JSON's
 * samples, median, IQR and profile.  Columns are always found by header
 * name, never by position, since msprof versions add and move columns.
 */
#include "ascend-msprof.h"

#include "common/common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CSV_MAX_BYTES  (64u << 20)
#define CSV_MAX_COLS   512
#define CSV_MAX_ROWS   100000
#define WALK_MAX_DEPTH 8
#define WALK_MAX_FILES 4096

/* ------------------------------------------------------------ CSV */

struct cells {
        char **v;
        size_t n, cap;
};

static int cells_push(struct cells *c, char *cell)
{
        if (c->n == c->cap) {
                size_t cap = c->cap ? 2 * c->cap : 16;
                char **grown = realloc(c->v, cap * sizeof(*grown));
                if (!grown) {
                        free(cell);
                        return -ENOMEM;
                }
                c->v = grown;
                c->cap = cap;
        }
        c->v[c->n++] = cell;
        return 0;
}

static void cells_release(struct cells *c)
{
        for (size_t i = 0; i < c->n; i++)
                free(c->v[i]);
        free(c->v);
        memset(c, 0, sizeof(*c));
}

static char *trimmed_copy(const char *s, size_t n)
{
        while (n && (*s == ' ' || *s == '\t')) {
                s++;
                n--;
        }
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                n--;
        return strndup(s, n);
}

/*
 * Reads one record starting at *pos into cells; *pos moves past its line
 * end.  Quoted cells may hold commas, quotes ("") and line breaks.
 */
static int read_record(const char *text, size_t len, size_t *pos, struct cells *cells, size_t *line,
                       const char *source, char *err, size_t err_size)
{
        size_t i = *pos;
        char *buf = malloc(len - i + 1);
        size_t b = 0;
        bool quoted_cell = false;
        int r = 0;

        if (!buf)
                return -ENOMEM;
        for (;;) {
                bool at_end = i >= len;
                char ch = at_end ? '\n' : text[i];

                if (!at_end && ch == '"' && b == 0 && !quoted_cell) {
                        /* a quoted cell: up to the closing quote */
                        size_t start_line = *line;
                        i++;
                        for (;;) {
                                if (i >= len) {
                                        r = format_error(err, err_size, -EINVAL,
                                                         "%s:%zu: a quoted cell is not closed",
                                                         source, start_line);
                                        goto out;
                                }
                                if (text[i] == '"') {
                                        if (i + 1 < len && text[i + 1] == '"') {
                                                buf[b++] = '"';
                                                i += 2;
                                                continue;
                                        }
                                        i++;
                                        break;
                                }
                                if (text[i] == '\n')
                                        (*line)++;
                                buf[b++] = text[i++];
                        }
                        quoted_cell = true;
                        continue;
                }
                if (ch == ',' || ch == '\n' ||
                    (ch == '\r' && (i + 1 >= len || text[i + 1] == '\n'))) {
                        char *cell = quoted_cell ? strndup(buf, b) : trimmed_copy(buf, b);
                        if (!cell) {
                                r = -ENOMEM;
                                goto out;
                        }
                        r = cells_push(cells, cell);
                        if (r < 0)
                                goto out;
                        if (cells->n > CSV_MAX_COLS) {
                                r = format_error(err, err_size, -EINVAL,
                                                 "%s:%zu: more than %d columns", source, *line,
                                                 CSV_MAX_COLS);
                                goto out;
                        }
                        b = 0;
                        quoted_cell = false;
                        if (ch == ',') {
                                i++;
                                continue;
                        }
                        if (ch == '\r')
                                i++;
                        if (!at_end)
                                i++;
                        (*line)++;
                        break;
                }
                if (quoted_cell) {
                        /* text after a closing quote: keep it, as spreadsheets do */
                        if (ch != ' ' && ch != '\t')
                                buf[b++] = ch;
                        i++;
                        continue;
                }
                buf[b++] = ch;
                i++;
        }
        *pos = i;
out:
        free(buf);
        return r;
}

static bool record_is_blank(const struct cells *c)
{
        return c->n == 0 || (c->n == 1 && c->v[0][0] == '\0');
}

int ascend_csv_parse(const char *text, size_t len, const char *source, struct ascend_csv **ret,
                     char *err, size_t err_size)
{
        struct ascend_csv *csv = calloc(1, sizeof(*csv));
        struct cells cells = { 0 };
        size_t pos = 0, line = 1, cap = 0;
        int r = 0;

        if (!csv)
                return -ENOMEM;
        if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
                pos = 3;
        while (pos < len) {
                r = read_record(text, len, &pos, &cells, &line, source, err, err_size);
                if (r < 0)
                        goto out;
                if (record_is_blank(&cells)) {
                        cells_release(&cells);
                        continue;
                }
                if (!csv->header) {
                        csv->header = cells.v;
                        csv->n_cols = cells.n;
                        memset(&cells, 0, sizeof(cells));
                        continue;
                }
                if (csv->n_rows == CSV_MAX_ROWS) {
                        r = format_error(err, err_size, -EINVAL, "%s: more than %d rows", source,
                                         CSV_MAX_ROWS);
                        goto out;
                }
                if (csv->n_rows == cap) {
                        size_t ncap = cap ? 2 * cap : 16;
                        char ***grown = realloc(csv->rows, ncap * sizeof(*grown));
                        if (!grown) {
                                r = -ENOMEM;
                                goto out;
                        }
                        csv->rows = grown;
                        cap = ncap;
                }
                /* exactly n_cols cells: missing ones are "", extra ones dropped */
                while (cells.n < csv->n_cols) {
                        char *empty = strdup("");
                        r = empty ? cells_push(&cells, empty) : -ENOMEM;
                        if (r < 0)
                                goto out;
                }
                while (cells.n > csv->n_cols)
                        free(cells.v[--cells.n]);
                csv->rows[csv->n_rows++] = cells.v;
                memset(&cells, 0, sizeof(cells));
        }
        if (!csv->header) {
                r = format_error(err, err_size, -EINVAL, "%s: empty, not even a header row",
                                 source);
                goto out;
        }
        *ret = csv;
        csv = NULL;
out:
        cells_release(&cells);
        ascend_csv_free(csv);
        return r;
}

struct ascend_csv *ascend_csv_free(struct ascend_csv *csv)
{
        if (!csv)
                return NULL;
        for (size_t i = 0; i < csv->n_rows; i++) {
                for (size_t j = 0; j < csv->n_cols; j++)
                        free(csv->rows[i][j]);
                free(csv->rows[i]);
        }
        free(csv->rows);
        for (size_t j = 0; csv->header && j < csv->n_cols; j++)
                free(csv->header[j]);
        free(csv->header);
        free(csv);
        return NULL;
}

static void squash(char *buf, size_t size, const char *s)
{
        size_t j = 0;

        for (; *s && j + 1 < size; s++)
                if (!isspace((unsigned char)*s))
                        buf[j++] = (char)tolower((unsigned char)*s);
        buf[j] = '\0';
}

int ascend_csv_column(const struct ascend_csv *csv, const char *name)
{
        char want[128], have[128];

        squash(want, sizeof(want), name);
        for (size_t j = 0; j < csv->n_cols; j++) {
                squash(have, sizeof(have), csv->header[j]);
                if (strcmp(want, have) == 0)
                        return (int)j;
        }
        return -1;
}

/* A number at the start of a cell ("1800", "1800MHz", " 3.5 "); NAN otherwise. */
static double cell_number(const char *s)
{
        char *end;
        double v;

        while (isspace((unsigned char)*s))
                s++;
        if (!*s)
                return NAN;
        errno = 0;
        v = strtod(s, &end);
        if (end == s || errno || !isfinite(v))
                return NAN;
        return v;
}

static double column_number(const struct ascend_csv *csv, size_t row, int col)
{
        return col < 0 ? NAN : cell_number(csv->rows[row][col]);
}

/* ------------------------------------------------------------ PipeUtilization */

const char *ascend_pipe_name(enum ascend_pipe pipe)
{
        static const char *const names[ASCEND_PIPE_COUNT] = { "S", "V", "MTE2", "MTE3" };

        return pipe < ASCEND_PIPE_COUNT ? names[pipe] : "?";
}

static void summary_clear(struct ascend_pipe_summary *s)
{
        s->cores = 0;
        s->aiv_time_us = s->aiv_time_max_us = s->aiv_cycles_max = NAN;
        for (size_t p = 0; p < ASCEND_PIPE_COUNT; p++)
                s->busy_us[p] = s->ratio[p] = NAN;
}

/* Mean over rows of a column, skipping unreadable cells; NAN when none. */
static double column_mean(const struct ascend_csv *csv, int col, double *ret_max)
{
        double sum = 0, max = NAN;
        size_t n = 0;

        for (size_t i = 0; col >= 0 && i < csv->n_rows; i++) {
                double v = cell_number(csv->rows[i][col]);
                if (isnan(v))
                        continue;
                sum += v;
                if (isnan(max) || v > max)
                        max = v;
                n++;
        }
        if (ret_max)
                *ret_max = max;
        return n ? sum / (double)n : NAN;
}

int ascend_parse_pipe_utilization(const char *text, size_t len, const char *source,
                                  struct ascend_pipe_summary *ret, char *err, size_t err_size)
{
        static const char *const stems[ASCEND_PIPE_COUNT] = { "scalar", "vec", "mte2", "mte3" };
        struct ascend_pipe_summary s;
        struct ascend_csv *csv = NULL;
        int r, time_col;

        r = ascend_csv_parse(text, len, source, &csv, err, err_size);
        if (r < 0)
                return r;
        summary_clear(&s);
        time_col = ascend_csv_column(csv, "aiv_time(us)");
        s.aiv_time_us = column_mean(csv, time_col, &s.aiv_time_max_us);
        /* cores that reported a time; all rows when there is no such column */
        for (size_t i = 0; i < csv->n_rows; i++)
                s.cores += time_col < 0 || !isnan(cell_number(csv->rows[i][time_col]));
        column_mean(csv, ascend_csv_column(csv, "aiv_total_cycles"), &s.aiv_cycles_max);
        for (size_t p = 0; p < ASCEND_PIPE_COUNT; p++) {
                char name[64];
                snprintf(name, sizeof(name), "aiv_%s_time(us)", stems[p]);
                s.busy_us[p] = column_mean(csv, ascend_csv_column(csv, name), NULL);
                snprintf(name, sizeof(name), "aiv_%s_ratio", stems[p]);
                s.ratio[p] = column_mean(csv, ascend_csv_column(csv, name), NULL);
                if (isnan(s.busy_us[p]) && !isnan(s.ratio[p]) && !isnan(s.aiv_time_us))
                        s.busy_us[p] = s.ratio[p] * s.aiv_time_us;
                if (isnan(s.ratio[p]) && !isnan(s.busy_us[p]) && s.aiv_time_us > 0)
                        s.ratio[p] = s.busy_us[p] / s.aiv_time_us;
        }
        ascend_csv_free(csv);
        *ret = s;
        return 0;
}

/* ------------------------------------------------------------ OpBasicInfo */

static int profile_push(struct ascend_profile *profile, const struct ascend_launch *launch)
{
        struct ascend_launch *grown;

        if (profile->n >= ASCEND_MAX_LAUNCHES)
                return -E2BIG;
        grown = realloc(profile->launches, (profile->n + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        profile->launches = grown;
        profile->launches[profile->n++] = *launch;
        return 0;
}

int ascend_parse_op_basic_info(const char *text, size_t len, const char *source,
                               const char *const *match, const struct ascend_pipe_summary *pipes,
                               struct ascend_profile *profile, char *err, size_t err_size)
{
        static const char *const required[] = { "Op Name", "Task Duration(us)", "Block Dim" };
        struct ascend_csv *csv = NULL;
        int cols[3], type_col, mix_col, dev_col, pid_col, freq_col, rated_col;
        int r;

        r = ascend_csv_parse(text, len, source, &csv, err, err_size);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
                cols[i] = ascend_csv_column(csv, required[i]);
                if (cols[i] < 0) {
                        r = format_error(err, err_size, -EINVAL,
                                         "%s: no \"%s\" column (the header has %zu columns); is "
                                         "this an msprof op OpBasicInfo.csv?",
                                         source, required[i], csv->n_cols);
                        goto out;
                }
        }
        type_col = ascend_csv_column(csv, "Op Type");
        mix_col = ascend_csv_column(csv, "Mix Block Dim");
        dev_col = ascend_csv_column(csv, "Device Id");
        pid_col = ascend_csv_column(csv, "Pid");
        freq_col = ascend_csv_column(csv, "Current Freq");
        rated_col = ascend_csv_column(csv, "Rated Freq");
        for (size_t i = 0; i < csv->n_rows; i++) {
                struct ascend_launch launch = { 0 };
                const char *name = csv->rows[i][cols[0]];
                const char *type = type_col >= 0 ? csv->rows[i][type_col] : "";
                bool wanted = !match;
                double v;

                for (const char *const *m = match; m && *m && !wanted; m++)
                        wanted = strncmp(name, *m, strlen(*m)) == 0;
                if (!wanted)
                        continue;
                snprintf(launch.op_name, sizeof(launch.op_name), "%s", name);
                snprintf(launch.op_type, sizeof(launch.op_type), "%s", type);
                snprintf(launch.source, sizeof(launch.source), "%s", source);
                launch.task_duration_us = column_number(csv, i, cols[1]);
                v = column_number(csv, i, cols[2]);
                if (isnan(launch.task_duration_us) || launch.task_duration_us < 0 || isnan(v) ||
                    v < 0) {
                        r = format_error(err, err_size, -EINVAL,
                                         "%s: row %zu (%s): Task Duration(us) \"%s\" or Block Dim "
                                         "\"%s\" is not a number",
                                         source, i + 2, name, csv->rows[i][cols[1]],
                                         csv->rows[i][cols[2]]);
                        goto out;
                }
                launch.block_dim = (long)v;
                v = column_number(csv, i, mix_col);
                launch.mix_block_dim = isnan(v) ? -1 : (long)v;
                v = column_number(csv, i, dev_col);
                launch.device_id = isnan(v) ? -1 : (long)v;
                v = column_number(csv, i, pid_col);
                launch.pid = isnan(v) ? -1 : (long)v;
                launch.current_freq_mhz = column_number(csv, i, freq_col);
                launch.rated_freq_mhz = column_number(csv, i, rated_col);
                if (pipes)
                        launch.pipes = *pipes;
                else
                        summary_clear(&launch.pipes);
                r = profile_push(profile, &launch);
                if (r == -E2BIG)
                        r = format_error(err, err_size, r, "%s: more than %d launches", source,
                                         ASCEND_MAX_LAUNCHES);
                if (r < 0)
                        goto out;
        }
out:
        ascend_csv_free(csv);
        return r;
}

/* ------------------------------------------------------------ the directory */

static int read_small_file(const char *path, char **ret, size_t *ret_len, char *err,
                           size_t err_size)
{
        int r = read_text_file(path, CSV_MAX_BYTES, ret, ret_len);

        if (r == -EFBIG)
                return format_error(err, err_size, r, "%s: larger than %u bytes", path,
                                    CSV_MAX_BYTES);
        if (r < 0 && r != -ENOMEM)
                return format_error(err, err_size, r, "%s: cannot open: %s", path, strerror(-r));
        return r;
}

/* "OpBasicInfo.csv" or "OpBasicInfo_<anything>.csv". */
static bool is_metric_file(const char *name, const char *metric)
{
        size_t m = strlen(metric), n = strlen(name);

        if (strncmp(name, metric, m) != 0 || n < m + 4 || strcmp(name + n - 4, ".csv") != 0)
                return false;
        return name[m] == '.' || name[m] == '_';
}

struct found {
        char **paths;
        size_t n;
};

static int walk(const char *dir, int depth, struct found *found)
{
        DIR *d;
        struct dirent *e;
        int r = 0;

        if (depth > WALK_MAX_DEPTH)
                return 0;
        d = opendir(dir);
        if (!d)
                return depth == 0 ? -errno : 0;
        while ((e = readdir(d)) && r == 0) {
                char path[PATH_MAX];
                struct stat st;

                if (e->d_name[0] == '.')
                        continue;
                if (format_path(path, sizeof(path), "%s/%s", dir, e->d_name) < 0 ||
                    lstat(path, &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        r = walk(path, depth + 1, found);
                } else if (S_ISREG(st.st_mode) && is_metric_file(e->d_name, "OpBasicInfo")) {
                        char **grown;
                        if (found->n == WALK_MAX_FILES)
                                r = -E2BIG;
                        else if (!(grown = realloc(found->paths, (found->n + 1) * sizeof(*grown))))
                                r = -ENOMEM;
                        else if (!(grown[found->n] = strdup(path))) {
                                found->paths = grown;
                                r = -ENOMEM;
                        } else {
                                found->paths = grown;
                                found->n++;
                        }
                }
        }
        closedir(d);
        return r;
}

/* Natural order: launch directories 2 before 10. */
static int natural_compare(const void *a, const void *b)
{
        const char *x = *(const char *const *)a, *y = *(const char *const *)b;

        while (*x && *y) {
                if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
                        char *ex, *ey;
                        unsigned long long nx = strtoull(x, &ex, 10), ny = strtoull(y, &ey, 10);
                        if (nx != ny)
                                return nx < ny ? -1 : 1;
                        x = ex;
                        y = ey;
                        continue;
                }
                if (*x != *y)
                        return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
                x++;
                y++;
        }
        return (unsigned char)*x - (unsigned char)*y;
}

/* The PipeUtilization file beside an OpBasicInfo file, if any. */
static int read_pipes_beside(const char *basic_path, struct ascend_pipe_summary *ret, bool *found,
                             char *err, size_t err_size)
{
        char dir[PATH_MAX], path[PATH_MAX], *text = NULL;
        const char *slash = strrchr(basic_path, '/');
        struct dirent *e;
        size_t len;
        DIR *d;
        int r;

        *found = false;
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash - basic_path), basic_path);
        d = opendir(dir);
        if (!d)
                return 0;
        path[0] = '\0';
        while ((e = readdir(d))) {
                /* the lexically greatest: with timestamp suffixes, the newest */
                char candidate[PATH_MAX];
                if (!is_metric_file(e->d_name, "PipeUtilization"))
                        continue;
                if (format_path(candidate, sizeof(candidate), "%s/%s", dir, e->d_name) == 0 &&
                    strcmp(candidate, path) > 0)
                        snprintf(path, sizeof(path), "%s", candidate);
        }
        closedir(d);
        if (!path[0])
                return 0;
        r = read_small_file(path, &text, &len, err, err_size);
        if (r == 0)
                r = ascend_parse_pipe_utilization(text, len, path, ret, err, err_size);
        free(text);
        *found = r == 0;
        return r;
}

int ascend_msprof_collect(const char *dir, const char *const *match, struct ascend_profile *ret,
                          char *err, size_t err_size)
{
        struct ascend_profile profile = { 0 };
        struct found found = { 0 };
        char seen[1024] = "";
        int r;

        r = walk(dir, 0, &found);
        if (r < 0) {
                format_error(err, err_size, r, "%s: cannot read the msprof output: %s", dir,
                             strerror(-r));
                goto out;
        }
        if (found.n == 0) {
                r = format_error(err, err_size, -ENOENT,
                                 "%s: msprof op wrote no OpBasicInfo.csv (looked %d levels deep)",
                                 dir, WALK_MAX_DEPTH);
                goto out;
        }
        qsort(found.paths, found.n, sizeof(*found.paths), natural_compare);
        for (size_t i = 0; i < found.n; i++) {
                struct ascend_pipe_summary pipes;
                bool have_pipes;
                char *text = NULL;
                size_t len;

                r = read_pipes_beside(found.paths[i], &pipes, &have_pipes, err, err_size);
                if (r == 0)
                        r = read_small_file(found.paths[i], &text, &len, err, err_size);
                if (r == 0)
                        r = ascend_parse_op_basic_info(text, len, found.paths[i], match,
                                                       have_pipes ? &pipes : NULL, &profile, err,
                                                       err_size);
                if (r == 0 && profile.n == 0 && strlen(seen) < 512) {
                        /* remember what was there, for the message below */
                        struct ascend_profile all = { 0 };
                        char ignored[8];
                        if (ascend_parse_op_basic_info(text, len, found.paths[i], NULL, NULL, &all,
                                                       ignored, sizeof(ignored)) == 0)
                                for (size_t k = 0; k < all.n && strlen(seen) < 512; k++)
                                        snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
                                                 "%s\"%s\"", seen[0] ? ", " : "",
                                                 all.launches[k].op_name);
                        ascend_profile_release(&all);
                }
                free(text);
                if (r < 0)
                        goto out;
        }
        if (profile.n == 0) {
                char wanted[256] = "";
                for (const char *const *m = match; m && *m; m++)
                        snprintf(wanted + strlen(wanted), sizeof(wanted) - strlen(wanted),
                                 "%s\"%s\"", wanted[0] ? " or " : "", *m);
                r = format_error(err, err_size, -ESRCH,
                                 "%s: no launch of %s in %zu OpBasicInfo file%s; the kernels seen "
                                 "were %s",
                                 dir, wanted, found.n, found.n == 1 ? "" : "s",
                                 seen[0] ? seen : "none");
                goto out;
        }
        *ret = profile;
        memset(&profile, 0, sizeof(profile));
out:
        for (size_t i = 0; i < found.n; i++)
                free(found.paths[i]);
        free(found.paths);
        ascend_profile_release(&profile);
        return r;
}

void ascend_profile_release(struct ascend_profile *profile)
{
        if (!profile)
                return;
        free(profile->launches);
        profile->launches = NULL;
        profile->n = 0;
}

/* ------------------------------------------------------------ statistics */

static int compare_doubles(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

/* The q-quantile of sorted samples, linear between closest ranks. */
static double quantile(const double *sorted, size_t n, double q)
{
        double at = q * (double)(n - 1);
        size_t lo = (size_t)at;
        double frac = at - (double)lo;

        if (lo + 1 >= n)
                return sorted[n - 1];
        return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void ascend_median_iqr(const double *samples, size_t n, double *ret_median, double *ret_iqr)
{
        double *sorted;

        *ret_median = *ret_iqr = NAN;
        if (n == 0)
                return;
        sorted = malloc(n * sizeof(*sorted));
        if (!sorted)
                return;
        memcpy(sorted, samples, n * sizeof(*sorted));
        qsort(sorted, n, sizeof(*sorted), compare_doubles);
        *ret_median = quantile(sorted, n, 0.5);
        *ret_iqr = quantile(sorted, n, 0.75) - quantile(sorted, n, 0.25);
        free(sorted);
}

static void set_number(json_t *obj, const char *key, double v)
{
        if (!isnan(v))
                json_object_set_new(obj, key, json_real(v));
}

int ascend_profile_to_json(const struct ascend_profile *profile, json_t *result)
{
        const struct ascend_launch *median_launch = NULL;
        json_t *samples, *prof, *pipes;
        double *values, median, iqr, best = INFINITY;

        if (!profile || profile->n == 0 || !result)
                return -EINVAL;
        values = malloc(profile->n * sizeof(*values));
        samples = json_array();
        prof = json_object();
        pipes = json_object();
        if (!values || !samples || !prof || !pipes) {
                free(values);
                json_decref(samples);
                json_decref(prof);
                json_decref(pipes);
                return -ENOMEM;
        }
        for (size_t i = 0; i < profile->n; i++) {
                values[i] = profile->launches[i].task_duration_us;
                json_array_append_new(samples, json_real(values[i]));
        }
        ascend_median_iqr(values, profile->n, &median, &iqr);
        free(values);
        /* the profile is that of the launch closest to the median (the first on ties) */
        for (size_t i = 0; i < profile->n; i++) {
                double d = fabs(profile->launches[i].task_duration_us - median);
                if (d < best) {
                        best = d;
                        median_launch = &profile->launches[i];
                }
        }
        json_object_set_new(result, "samples_us", samples);
        json_object_set_new(result, "latency_us", json_real(median));
        json_object_set_new(result, "iqr_us", json_real(iqr));
        json_object_set_new(result, "block_dim", json_integer(median_launch->block_dim));
        if (!isnan(median_launch->pipes.aiv_cycles_max))
                json_object_set_new(result, "cycles",
                                    json_integer((json_int_t)median_launch->pipes.aiv_cycles_max));

        json_object_set_new(prof, "source", json_string("msprof op"));
        json_object_set_new(prof, "op_name", json_string(median_launch->op_name));
        set_number(prof, "task_duration_us", median_launch->task_duration_us);
        set_number(prof, "clock_mhz", median_launch->current_freq_mhz);
        set_number(prof, "rated_clock_mhz", median_launch->rated_freq_mhz);
        if (median_launch->mix_block_dim >= 0)
                json_object_set_new(prof, "mix_block_dim",
                                    json_integer(median_launch->mix_block_dim));
        if (median_launch->pipes.cores > 0) {
                const struct ascend_pipe_summary *s = &median_launch->pipes;
                json_object_set_new(prof, "cores", json_integer((json_int_t)s->cores));
                set_number(prof, "aiv_time_us", s->aiv_time_us);
                if (s->aiv_time_us > 0 && !isnan(s->aiv_time_max_us))
                        set_number(prof, "core_imbalance", s->aiv_time_max_us / s->aiv_time_us);
                for (size_t p = 0; p < ASCEND_PIPE_COUNT; p++) {
                        json_t *one;
                        if (isnan(s->busy_us[p]) && isnan(s->ratio[p]))
                                continue;
                        one = json_object();
                        set_number(one, "busy_us", s->busy_us[p]);
                        set_number(one, "utilization", s->ratio[p]);
                        json_object_set_new(pipes, ascend_pipe_name((enum ascend_pipe)p), one);
                }
        }
        if (json_object_size(pipes))
                json_object_set_new(prof, "pipes", pipes);
        else
                json_decref(pipes);
        json_object_set_new(result, "profile", prof);
        return 0;
}
