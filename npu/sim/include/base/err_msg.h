// SPDX-License-Identifier: MIT
//
// CANN's error-message reporting as operator host code uses it: the
// simulator writes the report to stderr with its error code.
#ifndef ASCENDSIM_BASE_ERR_MSG_H
#define ASCENDSIM_BASE_ERR_MSG_H

#include <cstdio>

#define REPORT_INNER_ERR_MSG(error_code, fmt, ...)                                                                   \
	(std::fprintf(stderr, "[%s] " fmt "\n", (const char *)(error_code), ##__VA_ARGS__), 0)
#define REPORT_INPUT_ERROR(error_code, ...) (std::fprintf(stderr, "[%s] input error\n", (const char *)(error_code)), 0)

#endif
