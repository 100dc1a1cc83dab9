/* SPDX-License-Identifier: MIT */
/*
 * NPU side of ascendopt: the operator manifest (ascendopt.json), the output
 * comparison that judges correctness, the seeded inputs, and evaluation of
 * an operator on a backend.  Backends (sim, and ascend on real NPUs) sit
 * behind the memoizing evaluator's one interface and all report one
 * result JSON (docs/design.md).  Library code: it does not log; errors come back as -errno
 * plus a message.  One header per part; this one includes them all for
 * the daemon, the optimizer and the commands.
 */
#ifndef ASCENDOPT_NPU_H
#define ASCENDOPT_NPU_H

#include "manifest.h"
#include "inputs.h"
#include "golden.h"
#include "sim-run.h"
#include "backend.h"
#include "evaluator.h"
#include "environment.h"

#endif
