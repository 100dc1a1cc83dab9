/* SPDX-License-Identifier: MIT */
/*
 * Optimizer: the episodic agent (Stage I tiling evolution, Stage II
 * experience-guided kernel rewriting), motifs, rewind and the experience bank.
 */
#ifndef ASCENDOPT_OPTIMIZER_H
#define ASCENDOPT_OPTIMIZER_H

/* No interface yet: README.md's status table lists this component as missing. */

#endif
