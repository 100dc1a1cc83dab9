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
// The kernel assert: assert(expr) or assert(expr, fmt, args...).  A false
// expr stops the kernel with the condition and the formatted message (CPU
// printf conversions), as a trap would.  <assert.h> included after this
// header brings back the one-argument C macro.
#undef assert
#define assert(expr, ...) ((expr) ? (void)0 : ::ascendsim::kernel_assert(#expr, ::ascendsim::srcloc(), ##__VA_ARGS__))

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace ascendsim {

template <class... A>
[[noreturn]] ASCENDSIM_NOCOV inline void kernel_assert(const char *expr, srcloc loc, const char *fmt = nullptr, A... args)
{
	char msg[512] = "";
	if (fmt) {
		if constexpr (sizeof...(A) == 0)
			std::snprintf(msg, sizeof msg, "%s", fmt);
		else
			std::snprintf(msg, sizeof msg, fmt, args...);
	}
	fail("crash", loc, "the kernel's assert(%s) failed%s%s", expr, *msg ? ": " : "", msg);
}

} // namespace ascendsim

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
	// Elements of `dtypeSize` bytes in one 32-byte block.
	ASCENDSIM_NOCOV static uint32_t GetC0Count(const uint32_t dtypeSize, ascendsim::srcloc loc = {})
	{
		if (dtypeSize == 0 || dtypeSize > ONE_BLK_SIZE)
			ascendsim::fail("invalid_argument", loc, "GetC0Count: element size %u is outside 1..32", dtypeSize);
		return ONE_BLK_SIZE / dtypeSize;
	}
};

// A scalar's bits, zero-extended, as DataCopyPadParams::paddingValue takes
// them.
template <class T> ASCENDSIM_NOCOV inline uint64_t GetScalarBitcodeValue(T scalarValue)
{
	static_assert(sizeof(T) <= 8, "GetScalarBitcodeValue takes a scalar of at most 8 bytes");
	uint64_t v = 0;
	std::memcpy(&v, &scalarValue, sizeof(T));
	return v;
}

// The rounding helpers of the kernel utilities, on 32-bit values as
// declared there: DivCeil rounds a / b up, AlignUp rounds a up to a multiple
// of b.  A zero divisor is a kernel bug the device would trap on.
ASCENDSIM_NOCOV inline uint32_t DivCeil(uint32_t a, uint32_t b, ascendsim::srcloc loc = {})
{
	if (b == 0)
		ascendsim::fail("invalid_argument", loc, "DivCeil(%u, 0): division by zero", a);
	return (a + b - 1) / b;
}

ASCENDSIM_NOCOV inline uint32_t AlignUp(uint32_t a, uint32_t b, ascendsim::srcloc loc = {})
{
	return DivCeil(a, b, loc) * b;
}

// The other 32-bit rounding helper CANN's kernel utilities (asc-devkit,
// beside DivCeil and AlignUp) put in AscendC: Ceil(a, b) = a / b rounded up,
// a plain function on uint32_t, so kernels call it on any integers, which
// convert (adaptive_max_pool3d's on int64_t).  The element-wise Ceil on
// LocalTensors is a different overload.
ASCENDSIM_NOCOV inline uint32_t Ceil(uint32_t a, uint32_t b, ascendsim::srcloc loc = {})
{
	if (b == 0)
		ascendsim::fail("invalid_argument", loc, "Ceil(%u, 0): division by zero", a);
	return (a + b - 1) / b;
}

// Trap stops the kernel (documented among the debugging interfaces: the
// AI Core stops; a CPU build asserts): the run ends as a crash at the call.
[[noreturn]] ASCENDSIM_NOCOV inline void Trap(ascendsim::srcloc loc = {})
{
	ascendsim::fail("crash", loc, "the kernel called Trap()");
}

// The size of one data block in bytes (documented among the system
// variable accessors, constexpr int16_t): 32 on Atlas A2.
constexpr int16_t GetDataBlockSizeInBytes()
{
	return ONE_BLK_SIZE;
}

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
	static constexpr HardEvent event() { return ascendsim::hard_event_between(src, dst); }
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

// block_idx and block_num, the per-core variables kernels read directly.
struct ascendsim_block_var {
	bool idx;
	ASCENDSIM_NOCOV operator int64_t() const { return idx ? AscendC::GetBlockIdx() : AscendC::GetBlockNum(); }
};
inline constexpr ascendsim_block_var block_idx{true};
inline constexpr ascendsim_block_var block_num{false};

#endif
