/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary bytes through config parsing and validation.
 * Any input must give either a config or one error message, never a crash. */
#include "common/common.h"
#include "config/config.h"

#include <string.h>

#include <git2.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* libgit2 stays initialized, as in the daemon: the publish prefix check
 * would otherwise load the TLS certificates again on every input. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
        return git_libgit2_init() < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        struct config *config = NULL;
        char err[512];

        if (config_parse((const char *)data, size, "fuzz.json", &config, err, sizeof(err)) == 0)
                config_free(config);
        else if (strlen(err) == 0)
                __builtin_trap();
        return 0;
}
