// SPDX-License-Identifier: MIT
//
// ge::Shape and ge::TensorDesc; see ascendsim/host.h.
#ifndef ASCENDSIM_GRAPH_TENSOR_H
#define ASCENDSIM_GRAPH_TENSOR_H

#include "ascendsim/host.h"

#endif
