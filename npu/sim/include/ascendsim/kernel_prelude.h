// SPDX-License-Identifier: MIT
//
// Force-included last into the kernel translation unit after the operator's
// tiling headers (see npu/sim/build.sh): defines the DT_* / FORMAT_* names
// the per-variant macros expand to.  Real builds generate the kernel's
// tiling structs at global scope and nothing else of the op_host headers:
// the generated glue brings each tiling class there with a using-declaration
// (not all of namespace optiling, whose constants clash with kernels').
#ifndef ASCENDSIM_KERNEL_PRELUDE_H
#define ASCENDSIM_KERNEL_PRELUDE_H

#include "ascendsim/tiling_rank.h"

// GET_TILING_DATA's overload sets, which REGISTER_TILING_DATA_CLASS extends
// inside optiling, come to global scope the same way; the fallbacks are
// declared into optiling first so that the names exist when the operator
// registers nothing.
namespace optiling {
using ::ascendsim::ascendsim_pick_tiling;
using ::ascendsim::ascendsim_pick_tiling_named;
}
using optiling::ascendsim_pick_tiling;
using optiling::ascendsim_pick_tiling_named;

// Macros real builds define per variant; values match ge::DataType so that
// `#if ORIG_DTYPE_X == DT_FLOAT16` works in the preprocessor.
#ifndef DT_FLOAT
#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_STRING 13
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_BF16 27
#define DT_UNDEFINED 28
#define DT_INT4 29
#endif
#ifndef FORMAT_ND
#define FORMAT_NCHW 0
#define FORMAT_NHWC 1
#define FORMAT_ND 2
#endif

#endif
