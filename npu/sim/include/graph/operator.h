// SPDX-License-Identifier: MIT
//
// ge::Operator; see ascendsim/host.h.
#ifndef ASCENDSIM_GRAPH_OPERATOR_H
#define ASCENDSIM_GRAPH_OPERATOR_H

#include "ascendsim/host.h"

#endif
