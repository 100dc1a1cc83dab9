// SPDX-License-Identifier: MIT
//
// Storage behind the registration macros: OpDef factories (OP_ADD), tiling
// and inference functions (IMPL_OP_OPTILING / IMPL_OP), the kernel entry
// (ASCENDSIM_KERNEL_ENTRY), PlatformAscendCManager, and the half table.
#include <cstdio>
#include <cstdlib>

#include "internal.h"

namespace ascendsim {

float half_to_float_table[65536];

// Built before any static constructor of the operator can run a kernel.
static struct half_table_init {
	half_table_init()
	{
		for (uint32_t h = 0; h < 65536; h++) {
			uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
			float f;
			if (e == 0) {
				f = (float)m * 0x1p-24f;
				if (sign)
					f = -f;
			} else if (e == 31) {
				f = bits_float(sign | 0x7f800000u | (m << 13));
			} else {
				f = bits_float(sign | ((e + 112) << 23) | (m << 13));
			}
			half_to_float_table[h] = f;
		}
	}
} half_table_init_instance __attribute__((init_priority(101)));

const char *dtype_name(uint8_t code)
{
	static const char *const names[DTYPE_COUNT] = {"none",   "float16", "bfloat16", "float32", "int8",
						       "uint8",  "int16",   "uint16",   "int32",   "uint32",
						       "int64",  "uint64",  "bool",     "float64", "complex64"};
	return code < DTYPE_COUNT ? names[code] : "?";
}

std::deque<op_impl_entry> &op_impl_registry()
{
	static std::deque<op_impl_entry> r;
	return r;
}

std::deque<op_def_entry> &op_def_registry()
{
	static std::deque<op_def_entry> r;
	return r;
}

kernel_entry g_entry;

void register_entry(void (*fn)(), kernel_thunk thunk, int arity, const char *expr, const char *file)
{
	if (g_entry.fn) {
		std::fprintf(stderr, "ascendsim: two kernel entries registered (%s and %s)\n", g_entry.expr, expr);
		std::exit(70);
	}
	g_entry.fn = fn;
	g_entry.thunk = thunk;
	g_entry.arity = arity;
	g_entry.expr = expr;
	g_entry.file = file;
}

platform_info g_platform;

} // namespace ascendsim

namespace ops {

op_def_registration::op_def_registration(const char *type, OpDef *(*make)())
{
	ascendsim::op_def_registry().push_back({type, make});
}

} // namespace ops

namespace gert {

OpImplRegister::OpImplRegister(const char *op_type)
{
	auto &r = ascendsim::op_impl_registry();
	index_ = -1;
	for (size_t i = 0; i < r.size(); i++)
		if (r[i].type == op_type)
			index_ = (int)i;
	if (index_ < 0) {
		ascendsim::op_impl_entry e;
		e.type = op_type;
		r.push_back(e);
		index_ = (int)r.size() - 1;
	}
}

OpImplRegister &OpImplRegister::Tiling(TilingKernelFunc fn)
{
	ascendsim::op_impl_registry()[index_].tiling = fn;
	return *this;
}

OpImplRegister &OpImplRegister::InferShape(InferShapeKernelFunc fn)
{
	ascendsim::op_impl_registry()[index_].infer_shape = fn;
	return *this;
}

OpImplRegister &OpImplRegister::InferDataType(InferDataTypeKernelFunc fn)
{
	ascendsim::op_impl_registry()[index_].infer_dtype = fn;
	return *this;
}

OpImplRegister &OpImplRegister::set_parse(TilingParseFunc fn, void *(*make)(), void (*drop)(void *))
{
	auto &e = ascendsim::op_impl_registry()[index_];
	e.parse = fn;
	e.make_compile_info = make;
	e.drop_compile_info = drop;
	return *this;
}

} // namespace gert

namespace platform_ascendc {

PlatformAscendC *PlatformAscendCManager::GetInstance()
{
	static PlatformAscendC instance(&ascendsim::g_platform.infos);
	return &instance;
}

} // namespace platform_ascendc
