// SPDX-License-Identifier: MIT
//
// The operator-API log macros that some operators' host code uses:
// OP_LOGE and OP_LOGW write "[op] message" to stderr, where a failing
// tiling or shape function's own words then reach the evaluation's
// message; the debug and info levels are dropped.
#ifndef ASCENDSIM_ACLNN_OPDEV_OP_LOG_H
#define ASCENDSIM_ACLNN_OPDEV_OP_LOG_H

#include <cstdio>
#include <string>

namespace ascendsim {

inline const char *op_log_name(const char *name)
{
	return name ? name : "";
}

inline const char *op_log_name(const std::string &name)
{
	return name.c_str();
}

template <class N, class... A> inline void op_log(const char *level, const N &name, const char *fmt, A... args)
{
	std::fprintf(stderr, "[%s] %s: ", level, op_log_name(name));
	if constexpr (sizeof...(A) == 0)
		std::fputs(fmt, stderr);
	else
		std::fprintf(stderr, fmt, args...);
	std::fputc('\n', stderr);
}

} // namespace ascendsim

#define OP_LOGD(name, ...) ((void)0)
#define OP_LOGI(name, ...) ((void)0)
#define OP_LOGW(name, ...) ::ascendsim::op_log("WARNING", name, __VA_ARGS__)
#define OP_LOGE(name, ...) ::ascendsim::op_log("ERROR", name, __VA_ARGS__)
#define OP_LOGE_WITHOUT_REPORT(name, ...) ::ascendsim::op_log("ERROR", name, __VA_ARGS__)

#endif
