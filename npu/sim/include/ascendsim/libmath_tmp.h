// SPDX-License-Identifier: MIT
//
// How much temporary UB the library math APIs (Sin, Cos, ..., Power, Sign,
// Floor) need on the 910B: one table that the kernel side checks a
// sharedTmpBuffer (or the UB left for the framework's own temp space)
// against, and that the host helpers GetXxxMaxMinTmpSize /
// GetXxxTmpBufferFactorSize report, so that the two always agree.
//
// The figures are facts of the public asc-devkit host tiling library
// (impl/adv_api/tiling/math/*_tiling*.cpp and activation/sigmoid_tiling_impl.cpp,
// the ASCEND910B / V220 branches): an API working on n elements of
// typeSize bytes needs `live` * n * typeSize + `extra` bytes to do it in one
// pass, and at least `min` bytes (one 256-byte repeat per live node) to do
// it at all; with less than the whole it works through the input in
// passes of (tmp - extra) / (live * typeSize) elements.
#ifndef ASCENDSIM_LIBMATH_TMP_H
#define ASCENDSIM_LIBMATH_TMP_H

#include <cstdint>

namespace ascendsim {

enum class libmath_api : uint8_t {
	SIN,
	COS,
	TAN,
	ASIN,
	ACOS,
	ATAN,
	SINH,
	COSH,
	TANH,
	ERF,
	ERFC,
	LOG,
	LOG2,
	LOG10,
	SIGN,
	FLOOR,
	CEIL,
	TRUNC,
	SIGMOID,
	EXP, /* the library Exp<T, taylorExpandLevel> */
	POWER_TENSOR_TENSOR,
	POWER_TENSOR_SCALAR, /* and scalar ^ tensor, which needs the same */
};

struct tmp_need {
	uint32_t live;  /* maxLiveNodeCount: temp bytes per element, in elements of typeSize */
	uint32_t min;   /* the smallest temp space the API works with, bytes */
	uint32_t extra; /* extraBuf: bytes on top of live * n * typeSize */
};

// The need of `api` on elements of `type_size` bytes (4: float or int32_t,
// anything else: half, as the host library reads it); `is_int` selects
// Power's int32_t path, `reuse` the isReuseSource template parameter.
constexpr tmp_need libmath_tmp_need(libmath_api api, uint32_t type_size, bool is_int, bool reuse)
{
	const bool f32 = type_size == 4;
	switch (api) {
	case libmath_api::SIN:
	case libmath_api::COS:
		return f32 ? (reuse ? tmp_need{2, 512, 0} : tmp_need{3, 768, 0}) : tmp_need{8, 2048, 0};
	case libmath_api::TAN: return f32 ? tmp_need{4, 1024, 0} : tmp_need{10, 2560, 0};
	case libmath_api::ASIN:
	case libmath_api::ACOS: return f32 ? tmp_need{2, 512, 0} : tmp_need{6, 1536, 0};
	case libmath_api::ATAN: return f32 ? tmp_need{5, 1280, 0} : tmp_need{12, 3072, 0};
	case libmath_api::SINH:
	case libmath_api::TANH: return f32 ? tmp_need{1, 256, 0} : tmp_need{4, 1024, 0};
	case libmath_api::COSH: return f32 ? tmp_need{2, 512, 0} : tmp_need{6, 1536, 0};
	case libmath_api::ERF: return f32 ? tmp_need{3, 768, 0} : tmp_need{8, 2048, 0};
	case libmath_api::ERFC: return f32 ? tmp_need{7, 1792, 0} : tmp_need{16, 4096, 0};
	case libmath_api::LOG:
	case libmath_api::LOG10: return tmp_need{0, 0, 0};
	case libmath_api::LOG2: return f32 ? tmp_need{0, 0, 0} : tmp_need{2, 256, 0};
	case libmath_api::SIGN: return tmp_need{3, 768, 0};
	case libmath_api::FLOOR: return f32 ? tmp_need{0, 0, 0} : tmp_need{2, 512, 0};
	case libmath_api::CEIL:
	case libmath_api::TRUNC: return f32 ? tmp_need{1, 256, 0} : tmp_need{2, 512, 0};
	case libmath_api::SIGMOID: return tmp_need{1, 256, 0};
	case libmath_api::EXP:
		return f32 ? (reuse ? tmp_need{2, 512, 0} : tmp_need{3, 768, 0}) : tmp_need{8, 1024, 0};
	case libmath_api::POWER_TENSOR_TENSOR:
		return is_int ? tmp_need{6, 1536, 0} : f32 ? tmp_need{4, 1280, 256} : tmp_need{14, 2048, 256};
	case libmath_api::POWER_TENSOR_SCALAR:
		return is_int ? tmp_need{7, 1792, 0} : f32 ? tmp_need{5, 1536, 256} : tmp_need{14, 2048, 256};
	}
	return tmp_need{0, 0, 0};
}

// The temp space that lets the API do n elements in one pass (the host
// helpers' maxValue); never below the minimum, 0 when it needs none.
constexpr uint64_t libmath_tmp_max(const tmp_need &t, uint64_t n, uint32_t type_size)
{
	if (t.live == 0)
		return 0;
	uint64_t whole = (uint64_t)t.live * n * type_size + t.extra;
	return whole > t.min ? whole : t.min;
}

} // namespace ascendsim

#endif
