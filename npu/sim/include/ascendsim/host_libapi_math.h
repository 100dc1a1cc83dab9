// SPDX-License-Identifier: MIT
//
// Host helpers of the library math APIs that tiling functions call to size
// the temporary space (GetXxxMaxMinTmpSize: the least and the most the
// kernel-side API can use; GetXxxTmpBufferFactorSize: maxLiveNodeCount and
// extraBuf, from which (space - extraBuf) / maxLiveNodeCount / typeSize
// elements fit in one pass).  Signatures from the AscendC API reference;
// the figures come from ascendsim/libmath_tmp.h, the same table the kernel
// side checks a sharedTmpBuffer against.  typeSize 4 means float (or
// int32_t for Power), anything else half, as the library reads it.  A shape
// with no elements leaves the outputs untouched, as the library's host
// assertion does.
#ifndef ASCENDSIM_HOST_LIBAPI_MATH_H
#define ASCENDSIM_HOST_LIBAPI_MATH_H

#include <cstdint>

#include "ascendsim/libmath_tmp.h"
#include "graph/tensor.h"

namespace ascendsim {

inline void host_tmp_size(libmath_api api, int64_t elems, uint32_t type_size, bool is_int, bool reuse,
			  uint32_t &ret_max, uint32_t &ret_min)
{
	if (elems <= 0)
		return;
	tmp_need t = libmath_tmp_need(api, type_size, is_int, reuse);
	uint64_t max = libmath_tmp_max(t, (uint64_t)elems, type_size);
	ret_max = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	ret_min = t.min;
}

inline void host_tmp_factor(libmath_api api, uint32_t type_size, bool is_int, uint32_t &ret_live, uint32_t &ret_extra)
{
	tmp_need t = libmath_tmp_need(api, type_size, is_int, false);
	ret_live = t.live;
	ret_extra = t.extra;
}

} // namespace ascendsim

namespace AscendC {

#define ASCENDSIM_HOST_TMP_SIZE(NAME, API)                                                                             \
	inline void Get##NAME##MaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize,                     \
					     const bool isReuseSource, uint32_t &maxValue, uint32_t &minValue)       \
	{                                                                                                             \
		ascendsim::host_tmp_size(ascendsim::libmath_api::API, srcShape.GetShapeSize(), typeSize, false,      \
					 isReuseSource, maxValue, minValue);                                          \
	}

#define ASCENDSIM_HOST_TMP_FACTOR(NAME, API)                                                                           \
	inline void Get##NAME##TmpBufferFactorSize(const uint32_t typeSize, uint32_t &maxLiveNodeCount,              \
						   uint32_t &extraBuf)                                                \
	{                                                                                                             \
		ascendsim::host_tmp_factor(ascendsim::libmath_api::API, typeSize, false, maxLiveNodeCount, extraBuf); \
	}

#define ASCENDSIM_HOST_TMP(NAME, API) ASCENDSIM_HOST_TMP_SIZE(NAME, API) ASCENDSIM_HOST_TMP_FACTOR(NAME, API)

ASCENDSIM_HOST_TMP(Sin, SIN)
ASCENDSIM_HOST_TMP(Cos, COS)
ASCENDSIM_HOST_TMP(Tan, TAN)
ASCENDSIM_HOST_TMP(Asin, ASIN)
ASCENDSIM_HOST_TMP(Acos, ACOS)
ASCENDSIM_HOST_TMP(Atan, ATAN)
ASCENDSIM_HOST_TMP(Sinh, SINH)
ASCENDSIM_HOST_TMP(Cosh, COSH)
ASCENDSIM_HOST_TMP(Tanh, TANH)
ASCENDSIM_HOST_TMP(Erf, ERF)
ASCENDSIM_HOST_TMP(Erfc, ERFC)
ASCENDSIM_HOST_TMP(Log, LOG)
ASCENDSIM_HOST_TMP(Log2, LOG2)
ASCENDSIM_HOST_TMP(Log10, LOG10)
ASCENDSIM_HOST_TMP(Sign, SIGN)
ASCENDSIM_HOST_TMP(Floor, FLOOR)
ASCENDSIM_HOST_TMP(Ceil, CEIL)
ASCENDSIM_HOST_TMP(Trunc, TRUNC)
ASCENDSIM_HOST_TMP_SIZE(Sigmoid, SIGMOID)
ASCENDSIM_HOST_TMP_FACTOR(Exp, EXP)

#undef ASCENDSIM_HOST_TMP
#undef ASCENDSIM_HOST_TMP_FACTOR
#undef ASCENDSIM_HOST_TMP_SIZE

// The library Exp's helper returns whether it could tell (always, here).
inline bool GetExpMaxMinTmpSize(const ge::Shape &srcShape, const uint32_t typeSize, const bool isReuseSource,
				uint32_t &maxValue, uint32_t &minValue)
{
	ascendsim::host_tmp_size(ascendsim::libmath_api::EXP, srcShape.GetShapeSize(), typeSize, false, isReuseSource,
				 maxValue, minValue);
	return true;
}

// Power's operands are tensors unless their shape is the one-element {1}
// (a scalar); the elements are those of the first tensor operand.
inline void GetPowerMaxMinTmpSize(const ge::Shape &srcShape1, const ge::Shape &srcShape2, const bool typeIsInt,
				  const uint32_t typeSize, const bool isReuseSource, uint32_t &maxValue, uint32_t &minValue)
{
	auto is_tensor = [](const ge::Shape &s) { return !(s.GetDimNum() == 1 && s.GetDim(0) == 1); };
	bool t1 = is_tensor(srcShape1), t2 = is_tensor(srcShape2);
	ascendsim::host_tmp_size(t1 && t2 ? ascendsim::libmath_api::POWER_TENSOR_TENSOR
					  : ascendsim::libmath_api::POWER_TENSOR_SCALAR,
				 t1 ? srcShape1.GetShapeSize() : srcShape2.GetShapeSize(), typeSize, typeIsInt, isReuseSource,
				 maxValue, minValue);
}

inline void GetPowerTmpBufferFactorSize(const bool baseIsTensor, const bool expIsTensor, const bool typeIsInt,
					const uint32_t typeSize, uint32_t &maxLiveNodeCount, uint32_t &extraBuffer)
{
	ascendsim::host_tmp_factor(baseIsTensor && expIsTensor ? ascendsim::libmath_api::POWER_TENSOR_TENSOR
							     : ascendsim::libmath_api::POWER_TENSOR_SCALAR,
				   typeSize, typeIsInt, maxLiveNodeCount, extraBuffer);
}

} // namespace AscendC

#endif
