// SPDX-License-Identifier: MIT
//
// ge::Shape, the plain shape (a list of dims) that host helpers such as the
// library APIs' GetXxxMaxMinTmpSize take; clean-room from the documented GE
// Shape interface.  gert::Shape, which tiling contexts hand out, is in
// ascendsim/host.h.
#ifndef ASCENDSIM_GRAPH_TENSOR_H
#define ASCENDSIM_GRAPH_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ascendsim/host.h"

namespace ge {

class Shape {
public:
	Shape() = default;
	explicit Shape(const std::vector<int64_t> &dims) : dims_(dims) {}

	size_t GetDimNum() const { return dims_.size(); }
	// 0 for an index past the last dim.
	int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
	graphStatus SetDim(size_t idx, int64_t value)
	{
		if (idx >= dims_.size())
			return GRAPH_FAILED;
		dims_[idx] = value;
		return GRAPH_SUCCESS;
	}
	std::vector<int64_t> GetDims() const { return dims_; }
	// The product of the dims: 0 without dims, -1 if a dim is unknown
	// (negative) or the product overflows.
	int64_t GetShapeSize() const
	{
		if (dims_.empty())
			return 0;
		int64_t n = 1;
		for (int64_t d : dims_) {
			if (d < 0 || (d != 0 && n > INT64_MAX / d))
				return -1;
			n *= d;
		}
		return n;
	}

private:
	std::vector<int64_t> dims_;
};

} // namespace ge

#endif
