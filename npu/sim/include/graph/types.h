// SPDX-License-Identifier: MIT
//
// ge data types and formats; see ascendsim/host.h.
#ifndef ASCENDSIM_GRAPH_TYPES_H
#define ASCENDSIM_GRAPH_TYPES_H

#include "ascendsim/host.h"

#endif
