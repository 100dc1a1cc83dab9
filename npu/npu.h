/* SPDX-License-Identifier: MIT */
/*
 * NPU backends behind one table of function pointers: the simulated 910B
 * vector core (sim) and the CANN toolchain with msprof (ascend), both
 * reporting DESIGN's result JSON.
 */
#ifndef ASCENDOPT_NPU_H
#define ASCENDOPT_NPU_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
