/* SPDX-License-Identifier: MIT */
/* ascendoptd: the background optimizer daemon.  Everything lives in daemon/. */
#include "daemon.h"

int main(int argc, char **argv)
{
        return daemon_main(argc, argv);
}
