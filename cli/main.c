/* SPDX-License-Identifier: MIT */
/* ascendopt: the command-line tool.  Everything lives in cli/. */
#include "cli.h"

int main(int argc, char **argv)
{
        return cli_main(argc, argv);
}
