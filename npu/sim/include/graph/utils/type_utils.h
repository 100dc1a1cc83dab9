// SPDX-License-Identifier: MIT
//
// ge::TypeUtils: data type sizes and names, clean-room from the documented
// behaviour.
#ifndef ASCENDSIM_GRAPH_UTILS_TYPE_UTILS_H
#define ASCENDSIM_GRAPH_UTILS_TYPE_UTILS_H

#include <string>

#include "ascendsim/host.h"

namespace ge {

class TypeUtils {
public:
	// Bytes per element; false for types without a fixed size.
	static bool GetDataTypeLength(DataType dt, uint32_t &length)
	{
		int n = GetSizeByDataType(dt);
		if (n <= 0)
			return false;
		length = (uint32_t)n;
		return true;
	}

	static std::string DataTypeToSerialString(DataType dt)
	{
		switch (dt) {
		case DT_FLOAT: return "DT_FLOAT";
		case DT_FLOAT16: return "DT_FLOAT16";
		case DT_BF16: return "DT_BF16";
		case DT_INT8: return "DT_INT8";
		case DT_UINT8: return "DT_UINT8";
		case DT_INT16: return "DT_INT16";
		case DT_UINT16: return "DT_UINT16";
		case DT_INT32: return "DT_INT32";
		case DT_UINT32: return "DT_UINT32";
		case DT_INT64: return "DT_INT64";
		case DT_UINT64: return "DT_UINT64";
		case DT_BOOL: return "DT_BOOL";
		case DT_DOUBLE: return "DT_DOUBLE";
		default: return "DT_UNDEFINED";
		}
	}

	static std::string FormatToSerialString(Format f)
	{
		switch (f) {
		case FORMAT_NCHW: return "NCHW";
		case FORMAT_NHWC: return "NHWC";
		case FORMAT_ND: return "ND";
		default: return "RESERVED";
		}
	}
};

} // namespace ge

#endif
