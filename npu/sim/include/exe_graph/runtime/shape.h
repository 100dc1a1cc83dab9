// SPDX-License-Identifier: MIT
//
// gert::Shape and gert::StorageShape; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_SHAPE_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_SHAPE_H

#include "ascendsim/host.h"

#endif
