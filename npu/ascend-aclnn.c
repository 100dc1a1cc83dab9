/* SPDX-License-Identifier: MIT */
/*
 * Hand-written aclnn wrappers.  Most operators get their aclnn<OpType>
 * entry generated from the OpDef, with the parameters in the OpDef's
 * order: inputs, attributes, outputs, then the workspace size and the
 * executor.  About a quarter of cann-ops' operators ship their own
 * op_host/aclnn_*.h instead, whose names and parameters need not follow
 * the OpDef.  This file reads such a header's GetWorkspaceSize
 * declaration and says whether the generated harness can call it, and
 * under which name, or why not.
 */
#include "ascend-harness.h"

#include "common/common.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_MAX_BYTES (1u << 20)
#define MAX_PARAMS       128

/* Blanks out comments, keeping offsets. */
static void blank_comments(char *s)
{
        for (char *p = s; *p; p++) {
                if (p[0] == '/' && p[1] == '/') {
                        while (*p && *p != '\n')
                                *p++ = ' ';
                        if (!*p)
                                break;
                } else if (p[0] == '/' && p[1] == '*') {
                        char *end = strstr(p + 2, "*/");
                        char *stop = end ? end + 2 : p + strlen(p);
                        while (p < stop) {
                                if (*p != '\n')
                                        *p = ' ';
                                p++;
                        }
                        p--;
                }
        }
}

/* The parameter's type with its name dropped and spaces normalised: "const aclTensor *". */
static void param_type(const char *start, const char *end, char *buf, size_t size)
{
        char raw[256];
        size_t n = 0, len;
        bool space = false;

        while (start < end && isspace((unsigned char)*start))
                start++;
        while (end > start && isspace((unsigned char)end[-1]))
                end--;
        /* drop a trailing identifier when something precedes it (the name) */
        len = (size_t)(end - start);
        for (const char *p = end; p > start; p--) {
                if (!(isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
                        if (p != end)
                                len = (size_t)(p - start);
                        break;
                }
        }
        snprintf(raw, sizeof(raw), "%.*s", (int)len, start);
        for (const char *p = raw; *p && n + 3 < size; p++) {
                if (isspace((unsigned char)*p)) {
                        space = n > 0;
                        continue;
                }
                if (*p == '*' && n > 0 && buf[n - 1] != '*' && buf[n - 1] != ' ')
                        buf[n++] = ' ';
                else if (space && *p != '*')
                        buf[n++] = ' ';
                space = false;
                buf[n++] = *p;
        }
        buf[n] = '\0';
}

/* What the generated harness passes at a parameter, in the words of the types. */
static const char *kind_of(const char *type)
{
        if (strstr(type, "aclTensorList"))
                return "a tensor list";
        if (strstr(type, "aclTensor"))
                return "a tensor";
        if (strstr(type, "aclScalar"))
                return "an aclScalar";
        if (strstr(type, "aclIntArray"))
                return "a list of integers";
        if (strstr(type, "aclFloatArray"))
                return "a list of floats";
        if (strstr(type, "aclBoolArray"))
                return "a list of booleans";
        if (strstr(type, "aclOpExecutor"))
                return "the executor";
        if (strstr(type, "uint64_t") && strchr(type, '*'))
                return "the workspace size";
        if (strstr(type, "char") && strchr(type, '*'))
                return "a string";
        if (strstr(type, "bool"))
                return "a boolean";
        if (strstr(type, "double") || strstr(type, "float"))
                return "a float";
        if (strstr(type, "int") || strstr(type, "long"))
                return "an integer";
        return "something else";
}

/*
 * Finds "aclnn<Name>GetWorkspaceSize(" in text and splits its parameters
 * into types.  Returns the number of parameters, or -ENOENT.
 */
static int read_declaration(char *text, char *name, size_t name_size, char types[][96], size_t max)
{
        static const char suffix[] = "GetWorkspaceSize";
        char *p = text;

        while ((p = strstr(p, "aclnn"))) {
                char *id_end = p + 5, *open;
                int depth = 0, n = 0;
                const char *start;

                if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
                        p++;
                        continue;
                }
                while (isalnum((unsigned char)*id_end) || *id_end == '_')
                        id_end++;
                open = id_end;
                while (isspace((unsigned char)*open))
                        open++;
                if (*open != '(' || (size_t)(id_end - p) <= sizeof(suffix) - 1 + 5 ||
                    strncmp(id_end - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1) != 0) {
                        p = id_end;
                        continue;
                }
                snprintf(name, name_size, "%.*s", (int)(id_end - p - (sizeof(suffix) - 1)), p);
                start = open + 1;
                for (char *q = open; *q; q++) {
                        if (*q == '(' || *q == '<' || *q == '[')
                                depth++;
                        else if (*q == ')' || *q == '>' || *q == ']')
                                depth--;
                        if ((*q == ',' && depth == 1) || depth == 0) {
                                if ((size_t)n == max)
                                        return -E2BIG;
                                param_type(start, q, types[n], sizeof(types[n]));
                                if (types[n][0])
                                        n++;
                                start = q + 1;
                        }
                        if (depth == 0)
                                return n;
                }
                return -ENOENT;
        }
        return -ENOENT;
}

int ascend_aclnn_declared(const struct npu_manifest *m, const char *const *attr_kinds,
                          size_t n_attrs, struct ascend_aclnn_entry *ret, char *err,
                          size_t err_size)
{
        char dir[PATH_MAX], found_in[256] = "";
        char name[256] = "", types[MAX_PARAMS][96], read[MAX_PARAMS][96];
        const char *want[MAX_PARAMS];
        struct dirent *e;
        size_t n_want = 0;
        int n = -ENOENT;
        DIR *d;

        memset(ret, 0, sizeof(*ret));
        if (format_path(dir, sizeof(dir), "%s/op_host", m->dir) < 0)
                return format_error(err, err_size, -ENAMETOOLONG, "%s/op_host: path too long",
                                    m->dir);
        d = opendir(dir);
        if (!d)
                return 0; /* no op_host: nothing hand-written */
        while ((e = readdir(d))) {
                char path[PATH_MAX], file_name[256], *text = NULL;
                size_t len = strlen(e->d_name), text_len;
                int k;
                if (len < 9 || strncmp(e->d_name, "aclnn_", 6) != 0 ||
                    strcmp(e->d_name + len - 2, ".h") != 0)
                        continue;
                if (format_path(path, sizeof(path), "%s/%s", dir, e->d_name) < 0 ||
                    read_text_file(path, HEADER_MAX_BYTES, &text, &text_len) < 0)
                        continue;
                blank_comments(text);
                k = read_declaration(text, file_name, sizeof(file_name), read, MAX_PARAMS);
                free(text);
                /* the one named after the operator wins; else the first seen */
                if (k >= 0 && (n < 0 || strcmp(file_name + 5, m->name) == 0)) {
                        memcpy(types, read, sizeof(types));
                        n = k;
                        snprintf(name, sizeof(name), "%s", file_name);
                        snprintf(found_in, sizeof(found_in), "%s", e->d_name);
                        if (strcmp(file_name + 5, m->name) == 0)
                                break;
                } else if (k == -E2BIG) {
                        closedir(d);
                        return format_error(err, err_size, -ENOTSUP,
                                            "%s/%s: more than %d parameters", dir, e->d_name,
                                            MAX_PARAMS);
                }
        }
        closedir(d);
        if (n < 0)
                return 0;

        /* what the generated harness passes, in the OpDef's order */
        for (size_t i = 0; i < m->n_inputs && n_want < MAX_PARAMS; i++)
                want[n_want++] = "a tensor";
        for (size_t i = 0; i < n_attrs && n_want < MAX_PARAMS; i++)
                want[n_want++] = attr_kinds[i];
        for (size_t i = 0; i < m->n_outputs && n_want < MAX_PARAMS; i++)
                want[n_want++] = "a tensor";
        if (n_want + 2 <= MAX_PARAMS) {
                want[n_want++] = "the workspace size";
                want[n_want++] = "the executor";
        }
        for (size_t i = 0; i < n_want || i < (size_t)n; i++) {
                const char *have = i < (size_t)n ? kind_of(types[i]) : "nothing";
                if (i < n_want && strcmp(have, want[i]) == 0)
                        continue;
                return format_error(
                    err, err_size, -ENOTSUP,
                    "op_host/%s is a hand-written aclnn wrapper: %sGetWorkspaceSize takes %s "
                    "(%s) as parameter %zu where the OpDef's order (inputs, attributes, "
                    "outputs, workspace size, executor) puts %s; the generated harness calls "
                    "only wrappers that follow that order",
                    found_in, name, have, i < (size_t)n ? types[i] : "no parameter", i + 1,
                    i < n_want ? want[i] : "no parameter");
        }
        snprintf(ret->header, sizeof(ret->header), "%s", found_in);
        snprintf(ret->entry, sizeof(ret->entry), "%s", name);
        return 0;
}
