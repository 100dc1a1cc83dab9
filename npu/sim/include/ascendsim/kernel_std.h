// SPDX-License-Identifier: MIT
//
// Forced first into every kernel unit, ahead of the operator's tiling
// headers: the parts of the C++ library that the simulator's kernel and
// tiling headers include, so that one precompiled copy per cache serves
// every kernel compile (npu/sim-compile.c, STEP_PRECOMPILE).  Parsing them
// was most of a kernel compile's time.  Only standard headers belong here:
// the operator's own code must still come before ours, as in a real build.
// A header missing from this list costs compile time, never correctness.
#ifndef ASCENDSIM_KERNEL_STD_H
#define ASCENDSIM_KERNEL_STD_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#endif
