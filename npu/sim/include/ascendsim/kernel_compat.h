// SPDX-License-Identifier: MIT
//
// The small pieces of the kernel-side API that real operators lean on
// besides the instructions: ASSERT and the kernel log macros (compiled out,
// as in a device build), likely/unlikely, the float16_t/float32_t names,
// IsSameType, the AscendCUtils mask helpers, the system workspace,
// TQueSync, the lower-case intrinsics get_block_idx/get_block_num and the
// global GetTPipePtr.  Written from the documented API.
#ifndef ASCENDSIM_KERNEL_COMPAT_H
#define ASCENDSIM_KERNEL_COMPAT_H

#include "ascendsim/kernel_pipe.h"

// A device build compiles these to nothing at all: the expression is never
// evaluated, so what it names need not be declared where it is used, and
// real kernels even rely on the empty expansion ("x = a.b ASSERT(...);"
// with the semicolon after the macro only).
#ifndef ASSERT
#define ASSERT(...)
#endif
#ifndef ASSERT_MSG
#define ASSERT_MSG(...)
#endif
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(...)
#endif
#ifndef KERNEL_LOG
#define KERNEL_LOG(...)
#endif
#ifndef ASCENDC_DEBUG_ASSERT
#define ASCENDC_DEBUG_ASSERT(...)
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

using float16_t = half;
using float32_t = float;

enum KernelLogLevel { KERNEL_DEBUG = 0, KERNEL_INFO, KERNEL_WARN, KERNEL_ERROR };

namespace AscendC {

template <class A, class B> struct IsSameType {
	static constexpr bool value = false;
};
template <class A> struct IsSameType<A, A> {
	static constexpr bool value = true;
};

// The mask helpers of the AscendCUtils class: a continuous mask of `len`
// lanes (a count in counter mode), and the mode switches.
class AscendCUtils {
public:
	template <class T, MaskMode mode = MaskMode::NORMAL> ASCENDSIM_NOCOV static void SetMask(int32_t len)
	{
		SetVectorMask<T, mode>(len);
	}
	template <class T, MaskMode mode = MaskMode::NORMAL>
	ASCENDSIM_NOCOV static void SetMask(const uint64_t maskHigh, const uint64_t maskLow)
	{
		SetVectorMask<T, mode>(maskHigh, maskLow);
	}
	template <class T> ASCENDSIM_NOCOV static void SetMaskCount() { AscendC::SetMaskCount(); }
	template <class T> ASCENDSIM_NOCOV static void SetMaskNorm() { AscendC::SetMaskNorm(); }
	ASCENDSIM_NOCOV static void ResetMask() { AscendC::ResetMask(); }
};

// The system workspace: the kernel entry hands the launch's workspace to
// SetSysWorkspace, and library code asks for it with GetSysWorkSpacePtr.
ASCENDSIM_NOCOV inline GM_ADDR &ascendsim_sys_workspace()
{
	static GM_ADDR workspace = nullptr;
	return workspace;
}

ASCENDSIM_NOCOV inline void SetSysWorkspace(GM_ADDR workspace)
{
	ascendsim_sys_workspace() = workspace;
}

ASCENDSIM_NOCOV inline GM_ADDR GetSysWorkSpacePtr()
{
	return ascendsim_sys_workspace();
}

// SetFlag/WaitFlag between two pipes named by the template, as an object.
template <pipe_t src, pipe_t dst> class TQueSync {
public:
	ASCENDSIM_NOCOV void SetFlag(TEventID id, ascendsim::srcloc loc = {}) { issue(true, id, loc); }
	ASCENDSIM_NOCOV void WaitFlag(TEventID id, ascendsim::srcloc loc = {}) { issue(false, id, loc); }

private:
	ASCENDSIM_NOCOV static void issue(bool set, TEventID id, ascendsim::srcloc loc)
	{
		constexpr HardEvent evt = event();
		static_assert(evt != HardEvent::MAX, "TQueSync: these two pipes have no HardEvent between them");
		if (set)
			AscendC::SetFlag<evt>(id, loc);
		else
			AscendC::WaitFlag<evt>(id, loc);
	}
	static constexpr HardEvent event()
	{
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
};

} // namespace AscendC

// The intrinsic spellings and the global GetTPipePtr kernels call without
// the namespace.
ASCENDSIM_NOCOV inline int64_t get_block_idx()
{
	return AscendC::GetBlockIdx();
}

ASCENDSIM_NOCOV inline int64_t get_block_num()
{
	return AscendC::GetBlockNum();
}

using AscendC::GetTPipePtr;

#endif
