// SPDX-License-Identifier: MIT
//
// ge::graphStatus and its values; see ascendsim/host.h.
#ifndef ASCENDSIM_GRAPH_GE_ERROR_CODES_H
#define ASCENDSIM_GRAPH_GE_ERROR_CODES_H

#include "ascendsim/host.h"

#endif
