// SPDX-License-Identifier: MIT
//
// Tiling data registration, clean-room from the documented macros.
// BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF builds one standard-layout
// class used on both sides: the host fills it with set_<f>() and
// SaveToBuffer(); the kernel reads the same bytes back with GET_TILING_DATA,
// so field order and alignment are the natural C++ layout.  The host API
// comes with it, as with CANN's header: tiling headers, which the kernel
// unit sees too, declare their tiling functions on gert:: types.
#ifndef ASCENDSIM_REGISTER_TILINGDATA_BASE_H
#define ASCENDSIM_REGISTER_TILINGDATA_BASE_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ascendsim/host.h"
#include "ascendsim/tiling_rank.h"

#include <map>
#include <string>
#include <vector>

// Host tiling code in namespace optiling names these containers without
// std::, as CANN's own headers let it (ge_glu_grad_v2, scatter_list).  A
// kernel unit sees only the tiling classes of optiling (the glue's
// using-declarations), so these never clash with a kernel's own names.
namespace optiling {
using std::map;
using std::string;
using std::vector;
} // namespace optiling

#define ASCENDSIM_CAT2(a, b) a##b
#define ASCENDSIM_CAT(a, b) ASCENDSIM_CAT2(a, b)

#define BEGIN_TILING_DATA_DEF(class_name)                                                                             \
	class class_name {                                                                                            \
	public:

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                                                  \
	data_type field_name{};                                                                                       \
	void set_##field_name(data_type v) { field_name = v; }                                                        \
	data_type get_##field_name() const { return field_name; }

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                                     \
	arr_type field_name[arr_size]{};                                                                              \
	void set_##field_name(const arr_type *v) { std::memcpy(field_name, v, sizeof(field_name)); }                  \
	arr_type *get_##field_name() { return field_name; }

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                                         \
	struct_type field_name{};                                                                                     \
	void set_##field_name(const struct_type &v) { field_name = v; }                                               \
	struct_type &get_##field_name() { return field_name; }

#define END_TILING_DATA_DEF                                                                                           \
	void SaveToBuffer(void *buf, size_t capacity) const                                                           \
	{                                                                                                             \
		if (buf && sizeof(*this) <= capacity)                                                                 \
			std::memcpy(buf, this, sizeof(*this));                                                        \
	}                                                                                                             \
	size_t GetDataSize() const { return sizeof(*this); }                                                          \
	};

// Register `class_name` for operator `op_type`.  GET_TILING_DATA declares
// the class registered for the operator its kernel function is named after,
// else the first class the translation unit registers.  Both macros
// end their declaration themselves: operators write them with and without
// a semicolon after.
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                                               \
	class_name ascendsim_pick_tiling(::ascendsim::tiling_rank<(__COUNTER__ < 250 ? 1 + __COUNTER__ : 252)>);      \
	class_name ascendsim_pick_tiling_named(::ascendsim::op_tag<::ascendsim::op_name_hash(#op_type)>,              \
					       ::ascendsim::tiling_rank<(__COUNTER__ < 250 ? 1 + __COUNTER__ : 252)>);

#endif
