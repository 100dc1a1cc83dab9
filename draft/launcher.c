/* SPDX-License-Identifier: MIT */
/*
 * Reading a hand-written aclnn wrapper in op_host for what 'ascendopt init'
 * needs to bind an example's aclnn call onto the OpDef: the parameter names
 * of the aclnnXxxGetWorkspaceSize declaration (op_host/aclnn_*.h) and the
 * level-0 launch ADD_TO_LAUNCHER_LIST_AICORE(Type, OP_INPUT(...),
 * OP_OUTPUT(...), OP_ATTR(...)) that hands the kernel its tensors and
 * attributes in the OpDef's order.  Where the wrapper passes a parameter on
 * under its own name, the launch says which OpDef input, output or attribute
 * it is, whatever order the aclnn call has.  Only plain names are read: an
 * expression in the launch (a tensor the wrapper computes, a converted
 * attribute) is left unnamed, for the caller to judge.
 */
#include "draft-internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxx/cxx.h"

#define LAUNCHER_MAX_BYTES (4u << 20)
#define LAUNCHER_MAX_FILES 128
#define LAUNCHER_MAX_ARGS  256 /* of one OP_INPUT, OP_OUTPUT or OP_ATTR */

struct unit {
        char rel[300];
        char *text;
        struct cxx_file file;
};

static bool unit_load(struct unit *u, const char *opdir, const char *name)
{
        char path[4096];
        size_t len = 0;
        unsigned line = 0;

        memset(u, 0, sizeof(*u));
        snprintf(u->rel, sizeof(u->rel), "op_host/%s", name);
        if (format_path(path, sizeof(path), "%s/op_host/%s", opdir, name) < 0 ||
            read_text_file(path, LAUNCHER_MAX_BYTES, &u->text, &len) < 0)
                return false;
        if (cxx_file_parse(&u->file, u->rel, u->text, len, &line) < 0) {
                free(u->text);
                u->text = NULL;
                return false;
        }
        return true;
}

static void unit_release(struct unit *u)
{
        cxx_file_release(&u->file);
        free(u->text);
        u->text = NULL;
}

static json_t *token_string(const struct cxx_file *f, size_t i)
{
        return json_stringn(cxx_tok_text(f, i), cxx_tok_len(f, i));
}

/*
 * The arguments of the call whose '(' is at open, each as its name when it
 * is one identifier, else null; NULL when the parentheses do not close.
 */
static json_t *call_names(const struct cxx_file *f, size_t open)
{
        struct cxx_arg args[LAUNCHER_MAX_ARGS];
        size_t n;
        json_t *names;

        if (token_match(&f->tokens, open) >= f->tokens.n)
                return NULL;
        n = cxx_args_split(f, open, args, ARRAY_SIZE(args));
        names = json_array();
        for (size_t k = 0; k < n; k++) {
                size_t name = cxx_arg_ident(f, &args[k]);
                json_array_append_new(names,
                                      name != CXX_NONE ? token_string(f, name) : json_null());
        }
        return names;
}

/*
 * The parameter names of a declaration whose '(' is at open: of each
 * parameter, the last identifier before its end or its default value.
 */
static json_t *param_names(const struct cxx_file *f, size_t open)
{
        size_t close = token_match(&f->tokens, open);
        json_t *names;
        size_t last = CXX_NONE;
        bool in_default = false;

        if (close >= f->tokens.n)
                return NULL;
        names = json_array();
        for (size_t i = cxx_tok_next(f, open); i <= close; i = cxx_tok_next(f, i)) {
                if (i < close &&
                    (cxx_tok_eq(f, i, "(") || cxx_tok_eq(f, i, "[") || cxx_tok_eq(f, i, "<"))) {
                        if (!cxx_tok_eq(f, i, "<"))
                                i = token_match(&f->tokens, i);
                        continue;
                }
                if (cxx_tok_eq(f, i, "="))
                        in_default = true;
                else if (cxx_tok_is_ident(f, i) && !in_default)
                        last = i;
                if (cxx_tok_eq(f, i, ",") || i == close) {
                        if (last != CXX_NONE)
                                json_array_append_new(names, token_string(f, last));
                        else if (i != close || json_array_size(names))
                                json_array_append_new(names, json_null());
                        last = CXX_NONE;
                        in_default = false;
                }
        }
        return names;
}

/* A declaration of call (its name, then '(', then ... ');'), not a call. */
static json_t *find_declaration(const struct cxx_file *f, const char *call)
{
        for (size_t i = 0; i < f->tokens.n; i = cxx_tok_next(f, i)) {
                size_t open = cxx_tok_next(f, i), close, after;
                if (!cxx_tok_is_ident(f, i) || !cxx_tok_eq(f, i, call) || !cxx_tok_eq(f, open, "("))
                        continue;
                close = token_match(&f->tokens, open);
                after = close < f->tokens.n ? cxx_tok_next(f, close) : f->tokens.n;
                /* a declaration's parameters have types: two identifiers in a row somewhere */
                if (after < f->tokens.n &&
                    (cxx_tok_eq(f, after, ";") || cxx_tok_eq(f, after, "{"))) {
                        json_t *names = param_names(f, open);
                        bool typed = false;
                        for (size_t k = cxx_tok_next(f, open); k < close; k = cxx_tok_next(f, k))
                                typed |= cxx_tok_is_ident(f, k) &&
                                         cxx_tok_is_ident(f, cxx_tok_next(f, k));
                        if (names && typed)
                                return names;
                        json_decref(names);
                }
        }
        return NULL;
}

/*
 * {"inputs", "outputs", "attrs"} of ADD_TO_LAUNCHER_LIST_AICORE(op_type, ...)
 * at i into *ret, NULL when it launches another; -ENOMEM.
 */
static int read_launch(const struct cxx_file *f, size_t i, const char *op_type, json_t **ret)
{
        size_t open = cxx_tok_next(f, i), first, close;
        json_t *launch;

        *ret = NULL;
        if (!cxx_tok_eq(f, open, "("))
                return 0;
        first = cxx_tok_next(f, open);
        if (!cxx_tok_is_ident(f, first) || !cxx_tok_eq(f, first, op_type) ||
            !cxx_tok_eq(f, cxx_tok_next(f, first), ","))
                return 0;
        close = token_match(&f->tokens, open);
        if (close >= f->tokens.n)
                return 0;
        launch = json_pack("{s:[], s:[], s:[]}", "inputs", "outputs", "attrs");
        if (!launch)
                return -ENOMEM;
        for (size_t k = cxx_tok_next(f, first); k < close; k = cxx_tok_next(f, k)) {
                static const char *const parts[][2] = { { "OP_INPUT", "inputs" },
                                                        { "OP_OUTPUT", "outputs" },
                                                        { "OP_ATTR", "attrs" } };
                for (size_t p = 0; p < ARRAY_SIZE(parts); p++) {
                        json_t *names;
                        if (!cxx_tok_eq(f, k, parts[p][0]) ||
                            !cxx_tok_eq(f, cxx_tok_next(f, k), "("))
                                continue;
                        names = call_names(f, cxx_tok_next(f, k));
                        if (names)
                                json_object_set_new(launch, parts[p][1], names);
                }
                if (cxx_tok_eq(f, k, "("))
                        k = token_match(&f->tokens, k);
        }
        *ret = launch;
        return 0;
}

static int compare_strings(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int draft_read_launcher(const char *opdir, const char *op_type, const char *aclnn_call,
                        json_t **ret, char *err, size_t err_size)
{
        char dir[4096], *names[LAUNCHER_MAX_FILES];
        size_t n = 0, launches = 0;
        json_t *params = NULL, *launch = NULL;
        const char *header = NULL, *launcher = NULL;
        struct dirent *e;
        DIR *d;
        int r = -ENOENT;

        if (format_path(dir, sizeof(dir), "%s/op_host", opdir) < 0 || !(d = opendir(dir)))
                return snprintf(err, err_size, "no op_host"), -ENOENT;
        while ((e = readdir(d)) && n < ARRAY_SIZE(names)) {
                const char *dot = strrchr(e->d_name, '.');
                if (e->d_name[0] == '.' || !dot ||
                    (strcmp(dot, ".h") && strcmp(dot, ".cpp") && strcmp(dot, ".cc")))
                        continue;
                names[n] = strdup(e->d_name);
                n += names[n] != NULL;
        }
        closedir(d);
        qsort(names, n, sizeof(*names), compare_strings);

        for (size_t f = 0; r != -ENOMEM && f < n; f++) {
                struct unit u;
                if (!unit_load(&u, opdir, names[f]))
                        continue;
                if (!params && strncmp(names[f], "aclnn_", 6) == 0 &&
                    (params = find_declaration(&u.file, aclnn_call)))
                        header = names[f];
                for (size_t i = 0; r != -ENOMEM && i < u.file.tokens.n;
                     i = cxx_tok_next(&u.file, i)) {
                        json_t *one;
                        if (!cxx_tok_is_ident(&u.file, i) ||
                            !cxx_tok_eq(&u.file, i, "ADD_TO_LAUNCHER_LIST_AICORE"))
                                continue;
                        if (read_launch(&u.file, i, op_type, &one) < 0)
                                r = -ENOMEM;
                        if (!one)
                                continue;
                        /* the same launch written twice (two code paths) is one */
                        if (launch && !json_equal(launch, one))
                                launches++;
                        if (!launch) {
                                launch = one;
                                launcher = names[f];
                                launches = 1;
                        } else
                                json_decref(one);
                }
                unit_release(&u);
        }
        if (r == -ENOMEM)
                snprintf(err, err_size, "out of memory");
        else if (!params)
                snprintf(err, err_size, "op_host/aclnn_*.h declares no %s", aclnn_call);
        else if (!launch)
                snprintf(err, err_size, "op_host launches no %s (ADD_TO_LAUNCHER_LIST_AICORE)",
                         op_type);
        else if (launches > 1)
                snprintf(err, err_size,
                         "op_host launches %s in %zu different ways: which one the example's call "
                         "takes is the wrapper's choice",
                         op_type, launches);
        else {
                json_object_set_new(launch, "params", json_incref(params));
                json_object_set_new(launch, "header", json_sprintf("op_host/%s", header));
                json_object_set_new(launch, "launcher", json_sprintf("op_host/%s", launcher));
                *ret = json_incref(launch);
                r = 0;
        }
        json_decref(params);
        json_decref(launch);
        for (size_t f = 0; f < n; f++)
                free(names[f]);
        return r;
}
