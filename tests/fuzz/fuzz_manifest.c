/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary bytes as an operator's ascendopt.json, parsed
 * and checked as npu_manifest_load() does, against a scratch operator
 * folder.  Any input must give either a manifest or one error message. */
#include "common/common.h"
#include "npu/npu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* The files a manifest may name, so that valid ones get past every check. */
static const char *const files[] = { "op_kernel/k.cpp", "golden.py", "ex/gen_data.py" };
static char opdir[] = "/tmp/fuzz_manifest.XXXXXX";

static void remove_opdir(void)
{
        char path[sizeof(opdir) + 32];

        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", opdir, files[i]);
                unlink(path);
        }
        for (const char *const *d = (const char *const[]){ "op_kernel", "op_host", "ex", "", NULL };
             *d; d++) {
                snprintf(path, sizeof(path), "%s/%s", opdir, *d);
                rmdir(path);
        }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        char path[sizeof(opdir) + 32];

        if (!mkdtemp(opdir))
                abort();
        atexit(remove_opdir);
        for (const char *const *d = (const char *const[]){ "op_kernel", "op_host", "ex", NULL }; *d;
             d++) {
                snprintf(path, sizeof(path), "%s/%s", opdir, *d);
                if (mkdir(path, 0755) < 0)
                        abort();
        }
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                FILE *f;
                snprintf(path, sizeof(path), "%s/%s", opdir, files[i]);
                f = fopen(path, "w");
                if (!f || fclose(f) != 0)
                        abort();
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        struct npu_manifest *m = NULL;
        json_t *doc = NULL;
        char err[1024] = "";

        if (json_parse_text((const char *)data, size, "ascendopt.json", &doc, err, sizeof(err)) <
            0) {
                if (!err[0])
                        __builtin_trap();
                return 0;
        }
        if (npu_manifest_from_json(opdir, doc, "ascendopt.json", &m, err, sizeof(err)) < 0) {
                if (!err[0] || m)
                        __builtin_trap();
        } else {
                /* what the evaluator relies on without checking again */
                if (!m || !m->name || !m->kernel || !m->kernel_source || m->n_inputs < 1 ||
                    m->n_outputs < 1 || m->n_cases < 1 || m->n_inputs > NPU_MAX_TENSORS ||
                    m->n_outputs > NPU_MAX_TENSORS || m->n_cases > NPU_MAX_CASES)
                        __builtin_trap();
                if (strcmp(m->kernel_source, "op_kernel/k.cpp") != 0)
                        __builtin_trap();
                for (size_t i = 0; i < m->n_cases; i++)
                        if (!m->cases[i].name || !json_is_object(m->cases[i].shapes) ||
                            !json_is_object(m->cases[i].attrs) ||
                            !json_is_object(m->cases[i].input_ranges))
                                __builtin_trap();
                npu_manifest_free(m);
        }
        json_decref(doc);
        return 0;
}
