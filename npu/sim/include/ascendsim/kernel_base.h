// SPDX-License-Identifier: MIT
//
// Kernel-side basics of the AscendC shim: the qualifier macros a CPU build
// defines empty, the enums (positions, pipes, events, round modes...), the
// repeat constants, and block index / count.  Clean-room from the documented
// API; names follow AscendC so that unmodified kernels compile.
#ifndef ASCENDSIM_KERNEL_BASE_H
#define ASCENDSIM_KERNEL_BASE_H

#include <cstdint>
#include <cstddef>
#include <cstring>
#include <cmath>
#include <cstdio>

#include "ascendsim/types.h"
#include "ascendsim/runtime.h"

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __ca__
#define __cb__
#define __cc__
#define __inout_pipe__(p)
#define __in_pipe__(p)
#define __out_pipe__(p)
#define __sync_alias__
#define __sync_noalias__
#define __check_sync_alias__
#define GM_ADDR uint8_t *

// Every API takes the caller's location as a defaulted last parameter, which
// gives it the wrong type for code that takes its address: real kernels pass
// APIs as template arguments of function-pointer type (the foreach headers'
// ForeachTriangle<T, P, Sin<P, false>>).  So each API that is passed that way
// also has an overload with exactly the documented parameters followed by an
// empty pack, declared with this template tail:
//
//	template <class T, bool isReuseSource = false, ASCENDSIM_ADDRESSABLE>
//	void Sin(const LocalTensor<T> &, const LocalTensor<T> &, const uint32_t, ascendsim_none...)
//
// Taking the address deduces the pack as empty, so that overload has the
// documented type; a call matches both, and the partial ordering rule for a
// trailing parameter pack prefers the one with the location.  The
// addressable overload reports ascendsim::indirect_loc().  enable_if keeps
// it out of calls with extra arguments, where its pack would otherwise be an
// exact match ahead of the real overloads.
#define ASCENDSIM_ADDRESSABLE                                                                                          \
	class... ascendsim_none, typename std::enable_if<sizeof...(ascendsim_none) == 0, int>::type = 0

#ifndef __CCE_AICORE__
#define __CCE_AICORE__ 220
#endif
#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif

// Pipes, as the global enum kernels name in PipeBarrier<PIPE_V>.
enum pipe_t {
	PIPE_S = 0,
	PIPE_V,
	PIPE_M,
	PIPE_MTE1,
	PIPE_MTE2,
	PIPE_MTE3,
	PIPE_ALL,
	PIPE_MTE4,
	PIPE_MTE5,
	PIPE_V2,
	PIPE_FIX,
};

enum event_t {
	EVENT_ID0 = 0,
	EVENT_ID1,
	EVENT_ID2,
	EVENT_ID3,
	EVENT_ID4,
	EVENT_ID5,
	EVENT_ID6,
	EVENT_ID7,
};

// Kernel types for KERNEL_TASK_TYPE_DEFAULT.  Only the AIV types run here.
enum KernelMetaType {
	KERNEL_TYPE_AIV_ONLY = 0,
	KERNEL_TYPE_AIC_ONLY,
	KERNEL_TYPE_MIX_AIV_1_0,
	KERNEL_TYPE_MIX_AIC_1_0,
	KERNEL_TYPE_MIX_AIC_1_1,
	KERNEL_TYPE_MIX_AIC_1_2,
	KERNEL_TYPE_MIX_AIV_HARD_SYNC,
	KERNEL_TYPE_MIX_AIC_HARD_SYNC,
	KERNEL_TYPE_MAX,
};

namespace AscendC {

using ::half;
using ::bfloat16_t;

enum class TPosition : uint8_t {
	GM = 0,
	A1,
	A2,
	B1,
	B2,
	C1,
	C2,
	CO1,
	CO2,
	VECIN,
	VECOUT,
	VECCALC,
	LCM = VECCALC,
	SPM,
	SHM = SPM,
	TSCM,
	C2PIPE2GM,
	C2PIPE2L1,
	MAX,
};
using QuePosition = TPosition;

enum class HardEvent : uint8_t {
	MTE2_MTE1 = 0,
	MTE1_MTE2,
	MTE1_M,
	M_MTE1,
	MTE2_V,
	V_MTE2,
	MTE3_V,
	V_MTE3,
	M_V,
	V_M,
	V_V,
	MTE3_MTE1,
	MTE1_MTE3,
	MTE1_V,
	MTE2_M,
	M_MTE2,
	V_MTE1,
	M_FIX,
	FIX_M,
	MTE3_MTE2,
	MTE2_MTE3,
	S_V,
	V_S,
	S_MTE2,
	MTE2_S,
	S_MTE3,
	MTE3_S,
	MTE2_FIX,
	FIX_MTE2,
	FIX_S,
	M_S,
	FIX_MTE3,
	MTE1_FIX,
	FIX_MTE1,
	FIX_FIX,
	MAX,
};

using TEventID = int8_t;

enum class RoundMode : uint8_t {
	CAST_NONE = 0, /* no rounding needed, or round to nearest even when precision is lost */
	CAST_RINT,     /* round to nearest, ties to even */
	CAST_FLOOR,    /* toward minus infinity */
	CAST_CEIL,     /* toward plus infinity */
	CAST_ROUND,    /* to nearest, ties away from zero */
	CAST_TRUNC,    /* toward zero */
	CAST_ODD,      /* von Neumann rounding to odd (float -> half only) */
};

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

constexpr int32_t AIC = 1;
constexpr int32_t AIV = 2;
constexpr int32_t g_coreType = AIV;

constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_BLOCK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t DEFAULT_BLK_NUM = 8;
constexpr uint32_t DEFAULT_BLK_STRIDE = 1;
constexpr uint32_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint32_t BLOCK_CUBE = 16;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
constexpr uint64_t FULL_MASK = ~0ULL;
constexpr int32_t MASK_PLACEHOLDER = 0;
constexpr int32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / sizeof(float);

ASCENDSIM_NOCOV inline int64_t GetBlockIdx()
{
	return (int64_t)ascendsim::g_core->block_idx;
}

ASCENDSIM_NOCOV inline int64_t GetBlockNum()
{
	return (int64_t)ascendsim::g_core->block_num;
}

ASCENDSIM_NOCOV inline int64_t GetSubBlockIdx()
{
	return 0;
}

ASCENDSIM_NOCOV inline int64_t GetTaskRation()
{
	return 1;
}

// Plain printf from a kernel goes to stderr so that stdout stays clean.
template <class... A> ASCENDSIM_NOCOV inline void printf(const char *fmt, A... args)
{
	if constexpr (sizeof...(A) == 0)
		std::fputs(fmt, stderr);
	else
		std::fprintf(stderr, fmt, args...);
}

} // namespace AscendC

#define ASCEND_IS_AIV (AscendC::g_coreType == AscendC::AIV)
#define ASCEND_IS_AIC (AscendC::g_coreType == AscendC::AIC)
#define ASCEND_IS_NOT_AIV (!ASCEND_IS_AIV)
#define ASCEND_IS_NOT_AIC (!ASCEND_IS_AIC)
#define PRINTF AscendC::printf

namespace ascendsim {

// The pipes a HardEvent connects; false for cube-side events.
ASCENDSIM_NOCOV inline bool hard_event_pipes(AscendC::HardEvent e, uint8_t *src, uint8_t *dst)
{
	using AscendC::HardEvent;
	switch (e) {
	case HardEvent::MTE2_V: *src = PIPE_ID_MTE2; *dst = PIPE_ID_V; return true;
	case HardEvent::V_MTE2: *src = PIPE_ID_V; *dst = PIPE_ID_MTE2; return true;
	case HardEvent::MTE3_V: *src = PIPE_ID_MTE3; *dst = PIPE_ID_V; return true;
	case HardEvent::V_MTE3: *src = PIPE_ID_V; *dst = PIPE_ID_MTE3; return true;
	case HardEvent::V_V: *src = PIPE_ID_V; *dst = PIPE_ID_V; return true;
	case HardEvent::MTE3_MTE2: *src = PIPE_ID_MTE3; *dst = PIPE_ID_MTE2; return true;
	case HardEvent::MTE2_MTE3: *src = PIPE_ID_MTE2; *dst = PIPE_ID_MTE3; return true;
	case HardEvent::S_V: *src = PIPE_ID_S; *dst = PIPE_ID_V; return true;
	case HardEvent::V_S: *src = PIPE_ID_V; *dst = PIPE_ID_S; return true;
	case HardEvent::S_MTE2: *src = PIPE_ID_S; *dst = PIPE_ID_MTE2; return true;
	case HardEvent::MTE2_S: *src = PIPE_ID_MTE2; *dst = PIPE_ID_S; return true;
	case HardEvent::S_MTE3: *src = PIPE_ID_S; *dst = PIPE_ID_MTE3; return true;
	case HardEvent::MTE3_S: *src = PIPE_ID_MTE3; *dst = PIPE_ID_S; return true;
	default: return false;
	}
}

const char *hard_event_name(int e);

// The HardEvent that orders pipe `dst` after pipe `src`, as TQueSync and the
// set_flag/wait_flag intrinsics name it by two pipes; MAX for a pair with no
// event on a vector core.
constexpr AscendC::HardEvent hard_event_between(pipe_t src, pipe_t dst)
{
	using AscendC::HardEvent;
	if (src == PIPE_MTE2 && dst == PIPE_V) return HardEvent::MTE2_V;
	if (src == PIPE_V && dst == PIPE_MTE2) return HardEvent::V_MTE2;
	if (src == PIPE_MTE3 && dst == PIPE_V) return HardEvent::MTE3_V;
	if (src == PIPE_V && dst == PIPE_MTE3) return HardEvent::V_MTE3;
	if (src == PIPE_V && dst == PIPE_V) return HardEvent::V_V;
	if (src == PIPE_MTE3 && dst == PIPE_MTE2) return HardEvent::MTE3_MTE2;
	if (src == PIPE_MTE2 && dst == PIPE_MTE3) return HardEvent::MTE2_MTE3;
	if (src == PIPE_S && dst == PIPE_V) return HardEvent::S_V;
	if (src == PIPE_V && dst == PIPE_S) return HardEvent::V_S;
	if (src == PIPE_S && dst == PIPE_MTE2) return HardEvent::S_MTE2;
	if (src == PIPE_MTE2 && dst == PIPE_S) return HardEvent::MTE2_S;
	if (src == PIPE_S && dst == PIPE_MTE3) return HardEvent::S_MTE3;
	if (src == PIPE_MTE3 && dst == PIPE_S) return HardEvent::MTE3_S;
	return HardEvent::MAX;
}

ASCENDSIM_NOCOV inline uint8_t pipe_of(pipe_t p)
{
	switch (p) {
	case PIPE_S: return PIPE_ID_S;
	case PIPE_V: return PIPE_ID_V;
	case PIPE_MTE2: return PIPE_ID_MTE2;
	case PIPE_MTE3: return PIPE_ID_MTE3;
	case PIPE_ALL: return PIPE_ID_ALL;
	default: return PIPE_ID_NONE;
	}
}

} // namespace ascendsim

#endif
