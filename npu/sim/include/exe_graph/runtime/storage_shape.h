// SPDX-License-Identifier: MIT
//
// gert::StorageShape; see ascendsim/host.h.
#ifndef ASCENDSIM_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H
#define ASCENDSIM_EXE_GRAPH_RUNTIME_STORAGE_SHAPE_H

#include "ascendsim/host.h"

#endif
