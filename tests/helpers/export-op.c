/* SPDX-License-Identifier: MIT */
/*
 * export-op REPO COMMIT OPDIR DEST: the daemon's export of one operator
 * (watch_export_operator), for tests that hand it hostile commits.
 * Prints the error and exits 1 when the export fails.
 */
#include "watchers/watchers.h"

#include <stdio.h>

int main(int argc, char **argv)
{
        char err[2048] = "";

        if (argc != 5) {
                fprintf(stderr, "usage: export-op REPO COMMIT OPDIR DEST\n");
                return 64;
        }
        if (watch_export_operator(argv[1], argv[2], argv[3], argv[4], err, sizeof(err)) < 0) {
                printf("%s\n", err);
                return 1;
        }
        return 0;
}
