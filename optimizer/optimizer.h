/* SPDX-License-Identifier: MIT */
/*
 * Optimizer: the episodic agent (Stage I tiling evolution, Stage II
 * experience-guided kernel rewriting), the motifs it applies, rewind and
 * the experience bank.  One header per part; this one includes them all
 * for the daemon and the commands.
 */
#ifndef ASCENDOPT_OPTIMIZER_H
#define ASCENDOPT_OPTIMIZER_H

#include "genes.h"
#include "search.h"
#include "experience.h"
#include "motif.h"
#include "episode.h"
#include "rewind.h"
#include "gap.h"

#endif
