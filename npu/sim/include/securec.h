// SPDX-License-Identifier: MIT
//
// The bounds-checked C library functions (the "secure C" interface CANN
// code calls): each checks its destination size first and returns 0, or a
// non-zero code with nothing copied past the destination.
#ifndef ASCENDSIM_SECUREC_H
#define ASCENDSIM_SECUREC_H

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>

typedef int errno_t;
#ifndef EOK
#define EOK 0
#endif

inline errno_t memcpy_s(void *dst, size_t dst_max, const void *src, size_t count)
{
	if (!dst || !src || count > dst_max)
		return 34; /* ERANGE */
	std::memmove(dst, src, count);
	return EOK;
}

inline errno_t memmove_s(void *dst, size_t dst_max, const void *src, size_t count)
{
	return memcpy_s(dst, dst_max, src, count);
}

inline errno_t memset_s(void *dst, size_t dst_max, int c, size_t count)
{
	if (!dst || count > dst_max)
		return 34;
	std::memset(dst, c, count);
	return EOK;
}

inline errno_t strcpy_s(char *dst, size_t dst_max, const char *src)
{
	if (!dst || !src || std::strlen(src) + 1 > dst_max)
		return 34;
	std::memcpy(dst, src, std::strlen(src) + 1);
	return EOK;
}

inline errno_t strncpy_s(char *dst, size_t dst_max, const char *src, size_t count)
{
	size_t n = src ? strnlen(src, count) : 0;

	if (!dst || !src || n + 1 > dst_max)
		return 34;
	std::memcpy(dst, src, n);
	dst[n] = '\0';
	return EOK;
}

inline errno_t strcat_s(char *dst, size_t dst_max, const char *src)
{
	size_t have = dst ? strnlen(dst, dst_max) : 0;

	if (!dst || !src || have == dst_max)
		return 34;
	return strcpy_s(dst + have, dst_max - have, src);
}

inline int vsnprintf_s(char *dst, size_t dst_max, size_t count, const char *fmt, va_list ap)
{
	size_t limit = count < dst_max ? count + 1 : dst_max;
	int n;

	if (!dst || dst_max == 0)
		return -1;
	n = std::vsnprintf(dst, limit, fmt, ap);
	return n < 0 || (size_t)n >= limit ? -1 : n;
}

inline int snprintf_s(char *dst, size_t dst_max, size_t count, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
inline int snprintf_s(char *dst, size_t dst_max, size_t count, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf_s(dst, dst_max, count, fmt, ap);
	va_end(ap);
	return n;
}

inline int sprintf_s(char *dst, size_t dst_max, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
inline int sprintf_s(char *dst, size_t dst_max, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf_s(dst, dst_max, dst_max ? dst_max - 1 : 0, fmt, ap);
	va_end(ap);
	return n;
}

#endif
