// SPDX-License-Identifier: MIT
//
// Forced into every op_host unit ahead of its own includes: every header of
// the host-side API, so that one precompiled copy serves all of them, and
// explicit instantiation declarations of the standard containers that API
// uses, whose code libascendsim holds once (runtime/host_instances.cpp)
// instead of each unit compiling it again.  Host units are compiled
// without optimisation: the tiling function's CPU time is not what the
// simulator measures, and a Stage I candidate is a host unit compile.
#ifndef ASCENDSIM_HOST_PRELUDE_H
#define ASCENDSIM_HOST_PRELUDE_H

#include "graph/utils/type_utils.h"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

#define ASCENDSIM_HOST_CONTAINERS(X)                                                              \
	X(std::vector<unsigned long>)                                                             \
	X(std::vector<long>)                                                                      \
	X(std::vector<float>)                                                                     \
	X(std::vector<std::string>)                                                               \
	X(std::vector<ge::DataType>)                                                              \
	X(std::vector<ge::Format>)                                                                \
	X(std::vector<gert::Shape>)                                                               \
	X(std::vector<gert::StorageShape>)                                                        \
	X(std::vector<gert::CompileTimeTensorDesc>)

#ifndef ASCENDSIM_HOST_INSTANCES
#define ASCENDSIM_EXTERN_TEMPLATE(...) extern template class __VA_ARGS__;
ASCENDSIM_HOST_CONTAINERS(ASCENDSIM_EXTERN_TEMPLATE)
#undef ASCENDSIM_EXTERN_TEMPLATE
#endif

#endif
