/* SPDX-License-Identifier: MIT */
/* libFuzzer target: arbitrary bytes as a git tree entry's name, through the
 * check an export makes before it creates the entry.  A name that could
 * write outside the export or over the repository must be refused:
 * "", ".", "..", ".git" in any ASCII case, or any '/', '\' or NUL. */
#include "watchers/watchers.h"

#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
        const char *name = (const char *)data;
        bool ok = watch_entry_name_ok(name, size);
        bool forbidden = size == 0 || (size == 1 && name[0] == '.') ||
                         (size == 2 && name[0] == '.' && name[1] == '.') ||
                         (size == 4 && strncasecmp(name, ".git", 4) == 0);

        for (size_t i = 0; i < size; i++)
                forbidden |= name[i] == '/' || name[i] == '\0' || name[i] == '\\';
        /* refused exactly when forbidden: an export takes every other name */
        if (ok == forbidden)
                __builtin_trap();
        return 0;
}
