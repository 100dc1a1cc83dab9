// SPDX-License-Identifier: MIT
//
// CANN's device-log interface as operator host code reaches it through its
// logging macros: a level check and a printf-style record.  The simulator
// writes errors and warnings to stderr, where a failing tiling function's
// own words then appear in the evaluation's message, and drops the rest.
#ifndef ASCENDSIM_BASE_ALOG_PUB_H
#define ASCENDSIM_BASE_ALOG_PUB_H

#include <cstdarg>
#include <cstdio>

#define DLOG_DEBUG 0
#define DLOG_INFO 1
#define DLOG_WARN 2
#define DLOG_ERROR 3
#define DLOG_NULL 4
#define DLOG_EVENT 0x10
#define DLOG_TYPE_DEBUG 0
#define DLOG_TYPE_RUN 1

// Module ids; the logging macros of operator repositories name OP.
enum { SLOG = 0, OP = 28, GE = 45 };

// What real builds pass through CMake; only used inside log lines.
#ifndef OPS_UTILS_LOG_SUB_MOD_NAME
#define OPS_UTILS_LOG_SUB_MOD_NAME "OP"
#endif
#ifndef OPS_UTILS_LOG_PACKAGE_TYPE
#define OPS_UTILS_LOG_PACKAGE_TYPE ""
#endif

inline int AlogCheckDebugLevel(int module_id, int level)
{
	(void)module_id;
	return level == DLOG_ERROR || level == DLOG_WARN;
}

inline void AlogRecord(int module_id, int log_type, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

inline void AlogRecord(int module_id, int log_type, int level, const char *fmt, ...)
{
	va_list ap;

	(void)module_id;
	(void)log_type;
	if (level != DLOG_ERROR && level != DLOG_WARN)
		return;
	va_start(ap, fmt);
	std::vfprintf(stderr, fmt, ap);
	va_end(ap);
	std::fputc('\n', stderr);
}

#endif
