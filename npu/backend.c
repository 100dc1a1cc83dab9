/* SPDX-License-Identifier: MIT */
/*
 * The table of the evaluator's backends, by enum npu_backend and by name;
 * each entry is defined beside its backend (npu/sim-backend.c,
 * npu/ascend-backend.c).
 */
#include "backend.h"

#include "common/common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct npu_backend_ops *const backends[] = {
        [NPU_BACKEND_SIM] = &npu_backend_sim,
        [NPU_BACKEND_ASCEND] = &npu_backend_ascend,
};

const struct npu_backend_ops *npu_backend_get(enum npu_backend backend)
{
        return backends[(size_t)backend < ARRAY_SIZE(backends) ? backend : NPU_BACKEND_SIM];
}

const char *npu_backend_name(enum npu_backend backend)
{
        return npu_backend_get(backend)->name;
}

int npu_backend_from_name(const char *name, enum npu_backend *ret)
{
        for (size_t i = 0; name && i < ARRAY_SIZE(backends); i++)
                if (strcmp(backends[i]->name, name) == 0) {
                        *ret = (enum npu_backend)i;
                        return 0;
                }
        return -EINVAL;
}

void npu_backend_hash_file(struct sha256 *s, const char *path)
{
        uint8_t buf[65536];
        size_t n;
        FILE *f = fopen(path, "re");

        if (!f)
                return;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                sha256_update(s, buf, n);
        fclose(f);
}
