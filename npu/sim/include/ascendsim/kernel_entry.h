// SPDX-License-Identifier: MIT
//
// Kernel entry registration (ASCENDSIM_KERNEL_ENTRY, used by the generated
// glue file), the kernel-side tiling macros (GET_TILING_DATA and friends,
// TILING_KEY_IS), KERNEL_TASK_TYPE_DEFAULT, dynamic-input tables
// (ListTensorDesc) and stubs for APIs that exist on hardware but are not
// emulated, so that using them reports `unsupported` instead of failing to
// compile.
#ifndef ASCENDSIM_KERNEL_ENTRY_H
#define ASCENDSIM_KERNEL_ENTRY_H

#include <type_traits>
#include <utility>

#include "ascendsim/kernel_pipe.h"
#include "ascendsim/tiling_rank.h"

namespace ascendsim {

using kernel_thunk = void (*)(void (*fn)(), uint8_t **args);

// Registers the kernel the glue names.  `arity` is the number of GM_ADDR
// parameters; the runtime checks it against the spec before launching.
void register_entry(void (*fn)(), kernel_thunk thunk, int arity, const char *expr, const char *file);

template <class... A, size_t... I> ASCENDSIM_NOCOV inline void call_entry(void (*fn)(A...), uint8_t **args, std::index_sequence<I...>)
{
	fn(reinterpret_cast<A>(args[I])...);
}

template <class... A> struct entry_registration {
	ASCENDSIM_NOCOV entry_registration(void (*fn)(A...), const char *expr, const char *file)
	{
		static_assert((std::is_pointer<A>::value && ...), "kernel entry parameters must all be GM_ADDR");
		register_entry(
		    reinterpret_cast<void (*)()>(fn),
		    [](void (*f)(), uint8_t **args) ASCENDSIM_NOCOV {
			    call_entry(reinterpret_cast<void (*)(A...)>(f), args, std::index_sequence_for<A...>{});
		    },
		    (int)sizeof...(A), expr, file);
	}
};
template <class... A> entry_registration(void (*)(A...), const char *, const char *) -> entry_registration<A...>;

template <class T> ASCENDSIM_NOCOV inline void load_tiling_into(T *dst, const uint8_t *tiling, srcloc loc)
{
	static_assert(!std::is_same<T, no_tiling_class>::value,
		      "GET_TILING_DATA: no tiling data class is registered; the op_host tiling header needs "
		      "REGISTER_TILING_DATA_CLASS, or the kernel REGISTER_TILING_DEFAULT");
	static_assert(std::is_trivially_copyable<T>::value, "tiling data must be trivially copyable");
	load_tiling(dst, tiling, sizeof(T), loc);
}

} // namespace ascendsim

#define ASCENDSIM_KERNEL_ENTRY(...)                                                                                   \
	static ::ascendsim::entry_registration ascendsim_kernel_entry_registration(__VA_ARGS__, #__VA_ARGS__, __FILE__)

// A declaration only (it is used in decltype), so that it is legal both at
// namespace scope and inside the kernel function, where hicann kernels put it.
#define REGISTER_TILING_DEFAULT(T)                                                                                    \
	T ascendsim_pick_tiling(::ascendsim::tiling_rank<0>);                                                         \
	T ascendsim_pick_tiling_default(int)
#define REGISTER_TILING_FOR_TILINGKEY(cond, T)

// Whose tiling class GET_TILING_DATA takes: the operator type the build
// names (as a real build generates the kernel's struct from the class
// registered for it), else the function it is expanded in, the kernel entry.
#ifdef ASCENDSIM_OP_TYPE
#define ASCENDSIM_STR2(x) #x
#define ASCENDSIM_STR(x) ASCENDSIM_STR2(x)
#define ASCENDSIM_TILING_OWNER ASCENDSIM_STR(ASCENDSIM_OP_TYPE)
#else
#define ASCENDSIM_TILING_OWNER __builtin_FUNCTION()
#endif

#define GET_TILING_DATA(var, tiling)                                                                                  \
	typename ::ascendsim::tiling_pick<                                                                            \
	    decltype(ascendsim_pick_tiling_default(0)),                                                               \
	    decltype(ascendsim_pick_tiling_named(::ascendsim::op_tag<::ascendsim::op_name_hash(ASCENDSIM_TILING_OWNER)>{}, \
						 ::ascendsim::tiling_rank<0>{})),                                     \
	    decltype(ascendsim_pick_tiling(::ascendsim::tiling_rank<0>{}))>::type var;                                \
	::ascendsim::load_tiling_into(&var, (const uint8_t *)(tiling), ::ascendsim::srcloc())

#define GET_TILING_DATA_WITH_STRUCT(T, var, tiling)                                                                   \
	T var;                                                                                                        \
	::ascendsim::load_tiling_into(&var, (const uint8_t *)(tiling), ::ascendsim::srcloc())

#define GET_TILING_DATA_PTR_WITH_STRUCT(T, var, tiling) const T *var = reinterpret_cast<const T *>(tiling)

#define GET_TILING_DATA_MEMBER(T, member, var, tiling)                                                                \
	decltype(T::member) var;                                                                                      \
	::ascendsim::load_tiling((void *)&var, (const uint8_t *)(tiling) + offsetof(T, member), sizeof(var),          \
				 ::ascendsim::srcloc())

#define TILING_KEY_VAR (::ascendsim::g_run.tiling_key)
#define TILING_KEY_IS(k) (::ascendsim::g_run.tiling_key == (uint64_t)(k))

#define KERNEL_TASK_TYPE_DEFAULT(t) ::ascendsim::set_task_type((int)(t), ::ascendsim::srcloc())
#define KERNEL_TASK_TYPE(key, t)                                                                                      \
	do {                                                                                                          \
		if (TILING_KEY_IS(key))                                                                               \
			::ascendsim::set_task_type((int)(t), ::ascendsim::srcloc());                                  \
	} while (0)

// Template-argument selection macros of the newer tiling-key headers; the
// simulator takes the kernel specialisation from the manifest instead.
#define ASCENDC_TPL_ARGS_DECL(...)
#define ASCENDC_TPL_ARGS_SEL(...)
#define ASCENDC_TPL_SEL(...)
#define ASCENDC_TPL_DTYPE_DECL(...)
#define ASCENDC_TPL_UINT_DECL(...)
#define ASCENDC_TPL_BOOL_DECL(...)
#define ASCENDC_TPL_DTYPE_SEL(...)
#define ASCENDC_TPL_UINT_SEL(...)
#define ASCENDC_TPL_BOOL_SEL(...)

namespace AscendC {

// A dynamic (list) input arrives as a GM table of little-endian uint64 words:
//   [0]            byte offset from the table start to the pointer array
//   [1]            N, the number of tensors
//   then per tensor: dim count D, then D dims
//   then N data addresses (the pointer array)
// Kernels that read word 0 and index the pointer array work unchanged.
class ListTensorDesc {
public:
	ListTensorDesc() = default;
	ASCENDSIM_NOCOV ListTensorDesc(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff)
	{
		Init(data, length, shapeSize);
	}
	ASCENDSIM_NOCOV void Init(__gm__ void *data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff)
	{
		(void)length;
		(void)shapeSize;
		table_ = (const uint64_t *)data;
	}
	template <class T> ASCENDSIM_NOCOV __gm__ T *GetDataPtr(uint32_t index, ascendsim::srcloc loc = {}) const
	{
		if (index >= GetSize())
			ascendsim::fail("out_of_bounds", loc, "ListTensorDesc::GetDataPtr(%u) of a %u-tensor list", index, GetSize());
		const uint64_t *ptrs = table_ + table_[0] / 8;
		return reinterpret_cast<T *>((uintptr_t)ptrs[index]);
	}
	ASCENDSIM_NOCOV uint32_t GetSize() const { return table_ ? (uint32_t)table_[1] : 0; }

private:
	const uint64_t *table_ = nullptr;
};

#define ASCENDSIM_UNSUPPORTED_API(NAME)                                                                               \
	template <class... A> ASCENDSIM_NOCOV inline void NAME(A &&...)                                                               \
	{                                                                                                             \
		ascendsim::unsupported(ascendsim::srcloc(), "AscendC::" #NAME " is not emulated by the simulator");   \
	}

// Documented as not available on Atlas A2 (910B).
template <class... A> ASCENDSIM_NOCOV inline void Scatter(A &&...)
{
	ascendsim::unsupported(ascendsim::srcloc(), "AscendC::Scatter is not available on Atlas A2 (910B)");
}

ASCENDSIM_UNSUPPORTED_API(Mmad)
ASCENDSIM_UNSUPPORTED_API(LoadData)
ASCENDSIM_UNSUPPORTED_API(Fixpipe)
ASCENDSIM_UNSUPPORTED_API(SoftMax)
ASCENDSIM_UNSUPPORTED_API(LayerNorm)

} // namespace AscendC

#endif
