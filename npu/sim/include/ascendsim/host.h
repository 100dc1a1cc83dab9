// SPDX-License-Identifier: MIT
//
// Host-side API of the shim, clean-room from the documented interfaces: ge
// data types and statuses, gert shapes, tensors, attributes and contexts
// (tiling, shape and dtype inference, tiling-parse), fe::PlatFormInfos, the
// PlatformAscendC queries, the OpDef builder and the registries the harness
// reads (OP_ADD, IMPL_OP_OPTILING).  Everything is header-only except the
// registries' storage in libascendsim.  It brings the parts of the C++
// library CANN's host headers bring (code such as a shared tiling_base.h
// uses std::unique_ptr and std::ostringstream without including them).
#ifndef ASCENDSIM_HOST_H
#define ASCENDSIM_HOST_H

#include <cstdint>
#include <cstddef>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFu;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649u;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304u;
constexpr uint32_t SUCCESS = 0;
constexpr uint32_t FAILED = 0xFFFFFFFFu;
constexpr int64_t UNKNOWN_DIM = -1;
constexpr int64_t UNKNOWN_DIM_NUM = -2;
using char_t = char;

enum DataType {
	DT_FLOAT = 0,
	DT_FLOAT16 = 1,
	DT_INT8 = 2,
	DT_INT32 = 3,
	DT_UINT8 = 4,
	DT_INT16 = 6,
	DT_UINT16 = 7,
	DT_UINT32 = 8,
	DT_INT64 = 9,
	DT_UINT64 = 10,
	DT_DOUBLE = 11,
	DT_BOOL = 12,
	DT_STRING = 13,
	DT_COMPLEX64 = 16,
	DT_COMPLEX128 = 17,
	DT_BF16 = 27,
	DT_UNDEFINED = 28,
	DT_INT4 = 29,
	DT_MAX = 100,
};

enum Format {
	FORMAT_NCHW = 0,
	FORMAT_NHWC = 1,
	FORMAT_ND = 2,
	FORMAT_NC1HWC0 = 3,
	FORMAT_FRACTAL_Z = 4,
	FORMAT_HWCN = 16,
	FORMAT_DHWCN = 25,
	FORMAT_NDHWC = 27,
	FORMAT_FRACTAL_NZ = 29,
	FORMAT_NCDHW = 30,
	FORMAT_NDC1HWC0 = 32,
	FORMAT_RESERVED = 40,
	FORMAT_ALL = 41,
	FORMAT_NULL = 42,
};

// The format without its sub-format and C0 bits (the low byte holds it).
inline Format GetPrimaryFormat(int32_t format)
{
	return static_cast<Format>(format & 0xff);
}

// Bytes per element; 0 for types the simulator does not know.
inline int GetSizeByDataType(DataType dt)
{
	switch (dt) {
	case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
	case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: return 2;
	case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
	case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
	case DT_COMPLEX128: return 16;
	default: return 0;
	}
}

class AscendString {
public:
	AscendString() = default;
	AscendString(const char *s) : s_(s ? s : "") {}
	const char *GetString() const { return s_.c_str(); }
	size_t GetLength() const { return s_.size(); }

private:
	std::string s_;
};

// A graph-level tensor's bytes, as shape functions read constant inputs.
class Tensor {
public:
	const uint8_t *GetData() const { return data_.data(); }
	uint8_t *GetData() { return data_.data(); }
	size_t GetSize() const { return data_.size(); }
	graphStatus SetData(const uint8_t *data, size_t size)
	{
		data_.assign(data, data + size);
		return GRAPH_SUCCESS;
	}

private:
	std::vector<uint8_t> data_;
};

// A graph-level shape: a list of dims, -1 for an unknown one.
class Shape {
public:
	Shape() = default;
	explicit Shape(const std::vector<int64_t> &dims) : dims_(dims) {}
	size_t GetDimNum() const { return dims_.size(); }
	int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
	graphStatus SetDim(size_t idx, int64_t v)
	{
		if (idx >= dims_.size())
			return GRAPH_FAILED;
		dims_[idx] = v;
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

// A graph-level tensor description (graph/tensor.h in the GE API
// reference, ascendgraphapi TensorDesc): shape, format and dtype.  A
// default one is float in NCHW, as GetInputDesc documents for a missing
// input (atlasgeapi_07_0647).
class TensorDesc {
public:
	TensorDesc() = default;
	explicit TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT)
	    : shape_(std::move(shape)), format_(format), dtype_(dt) {}
	Shape GetShape() const { return shape_; }
	void SetShape(const Shape &shape) { shape_ = shape; }
	Format GetFormat() const { return format_; }
	void SetFormat(Format format) { format_ = format; }
	DataType GetDataType() const { return dtype_; }
	void SetDataType(DataType dt) { dtype_ = dt; }

private:
	Shape shape_;
	Format format_ = FORMAT_NCHW;
	DataType dtype_ = DT_FLOAT;
};

// The graph-level operator a check-support or op-select-format function
// reads (graph/operator.h, ascendgraphapi Operator): its input and output
// descriptions by name and its attributes.  The reads follow the reference:
// GetInputDescByName / GetOutputDescByName give a default TensorDesc for a
// name the operator lacks (atlasgeapi_07_0647), TryGetInputDesc and
// GetAttr fail for one.  The simulator runs no graph: the harness calls
// tiling and inference only, so the descriptions are those its fields
// hold, empty unless it fills them.
class Operator {
public:
	const char *GetName() const { return name_.c_str(); }
	graphStatus GetName(AscendString &name) const
	{
		name = AscendString(name_.c_str());
		return GRAPH_SUCCESS;
	}
	TensorDesc GetInputDescByName(const char_t *name) const { return find(inputs_, name); }
	TensorDesc GetInputDesc(const std::string &name) const { return find(inputs_, name); }
	TensorDesc GetInputDesc(uint32_t index) const { return index < inputs_.size() ? inputs_[index].second : TensorDesc(); }
	TensorDesc GetOutputDescByName(const char_t *name) const { return find(outputs_, name); }
	TensorDesc GetOutputDesc(const std::string &name) const { return find(outputs_, name); }
	TensorDesc GetOutputDesc(uint32_t index) const
	{
		return index < outputs_.size() ? outputs_[index].second : TensorDesc();
	}
	graphStatus TryGetInputDesc(const char_t *name, TensorDesc &desc) const
	{
		for (const auto &p : inputs_)
			if (p.first == name)
				return desc = p.second, GRAPH_SUCCESS;
		return GRAPH_FAILED;
	}
	graphStatus GetAttr(const char_t *name, int64_t &v) const { return attr(name, v); }
	graphStatus GetAttr(const char_t *name, int32_t &v) const { return attr(name, v); }
	graphStatus GetAttr(const char_t *name, float &v) const { return attr(name, v); }
	graphStatus GetAttr(const char_t *name, bool &v) const { return attr(name, v); }

	/* Harness state: (name, description) per IR input and output, in order; scalar attributes. */
	std::string name_;
	std::vector<std::pair<std::string, TensorDesc>> inputs_, outputs_;
	std::map<std::string, double> attrs_;

private:
	static TensorDesc find(const std::vector<std::pair<std::string, TensorDesc>> &v, const std::string &name)
	{
		for (const auto &p : v)
			if (p.first == name)
				return p.second;
		return TensorDesc();
	}
	template <class T> graphStatus attr(const char_t *name, T &v) const
	{
		auto it = attrs_.find(name);
		if (it == attrs_.end())
			return GRAPH_FAILED;
		v = static_cast<T>(it->second);
		return GRAPH_SUCCESS;
	}
};

} // namespace ge

namespace fe {

enum class LocalMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };

// The platform profile the harness loads from npu/sim/platforms/<soc>.json.
class PlatFormInfos {
public:
	// Vector cores on the split 910B architecture, as PlatformAscendC::GetCoreNum.
	uint32_t GetCoreNum() const { return aiv_cores; }
	void GetLocalMemSize(const LocalMemType &type, uint64_t &size) const
	{
		switch (type) {
		case LocalMemType::UB: size = ub_reported; break;
		case LocalMemType::L1: size = l1; break;
		case LocalMemType::L0_A: size = l0a; break;
		case LocalMemType::L0_B: size = l0b; break;
		case LocalMemType::L0_C: size = l0c; break;
		case LocalMemType::L2: size = l2; break;
		case LocalMemType::HBM: size = hbm; break;
		default: size = 0; break;
		}
	}

	std::string soc_version;       /* e.g. "Ascend910B2" */
	std::string short_soc_version; /* e.g. "ascend910b", matched against AddConfig */
	uint32_t aic_cores = 0;
	uint32_t aiv_cores = 0;
	uint64_t ub_reported = 0;
	uint64_t l1 = 0, l0a = 0, l0b = 0, l0c = 0, l2 = 0, hbm = 0;
	uint64_t hbm_bw_bytes_per_cycle = 0;
	uint64_t l2_bw_bytes_per_cycle = 0;
	uint64_t system_workspace = 0;
	uint32_t clock_mhz = 0;

	bool GetPlatformRes(const std::string &label, const std::string &key, std::string &val) const
	{
		if (label == "SoCInfo" && (key == "ai_core_cnt" || key == "cube_core_cnt")) {
			val = std::to_string(aic_cores);
			return true;
		}
		if (label == "SoCInfo" && key == "vector_core_cnt") {
			val = std::to_string(aiv_cores);
			return true;
		}
		if (label == "AICoreSpec" && key == "ub_size") {
			val = std::to_string(ub_reported);
			return true;
		}
		if (label == "version" && key == "Short_SoC_version") {
			val = short_soc_version;
			return true;
		}
		if (label == "version" && key == "SoC_version") {
			val = soc_version;
			return true;
		}
		return false;
	}
};

} // namespace fe

namespace gert {

class Shape {
public:
	static constexpr size_t kMaxDimNum = 25;

	Shape() = default;
	Shape(std::initializer_list<int64_t> dims)
	{
		for (int64_t d : dims)
			AppendDim(d);
	}

	size_t GetDimNum() const { return dim_num_; }
	int64_t GetDim(size_t idx) const { return idx < dim_num_ ? dims_[idx] : INT64_MIN; }
	void SetDimNum(size_t n) { dim_num_ = n <= kMaxDimNum ? n : kMaxDimNum; }
	void SetDim(size_t idx, int64_t v)
	{
		if (idx < kMaxDimNum)
			dims_[idx] = v;
	}
	Shape &AppendDim(int64_t v)
	{
		if (dim_num_ < kMaxDimNum)
			dims_[dim_num_++] = v;
		return *this;
	}
	bool IsScalar() const { return dim_num_ == 0; }
	// Product of the dims; 1 for a scalar, -1 if any dim is unknown.
	int64_t GetShapeSize() const
	{
		int64_t n = 1;
		for (size_t i = 0; i < dim_num_; i++) {
			if (dims_[i] < 0)
				return -1;
			n *= dims_[i];
		}
		return n;
	}
	const int64_t &operator[](size_t idx) const { return dims_[idx]; }
	int64_t &operator[](size_t idx) { return dims_[idx]; }
	bool operator==(const Shape &o) const
	{
		if (dim_num_ != o.dim_num_)
			return false;
		for (size_t i = 0; i < dim_num_; i++)
			if (dims_[i] != o.dims_[i])
				return false;
		return true;
	}
	bool operator!=(const Shape &o) const { return !(*this == o); }

private:
	int64_t dims_[kMaxDimNum] = {};
	size_t dim_num_ = 0;
};

class StorageShape {
public:
	StorageShape() = default;
	StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
	    : origin_(origin), storage_(storage) {}
	const Shape &GetOriginShape() const { return origin_; }
	const Shape &GetStorageShape() const { return storage_; }
	Shape &MutableOriginShape() { return origin_; }
	Shape &MutableStorageShape() { return storage_; }
	bool operator==(const StorageShape &o) const { return origin_ == o.origin_ && storage_ == o.storage_; }

private:
	Shape origin_, storage_;
};

// A tensor's origin and storage formats (the simulator lays out both as given).
class StorageFormat {
public:
	StorageFormat() = default;
	explicit StorageFormat(ge::Format f) : origin_(f), storage_(f) {}
	ge::Format GetOriginFormat() const { return origin_; }
	ge::Format GetStorageFormat() const { return storage_; }

private:
	ge::Format origin_ = ge::FORMAT_ND, storage_ = ge::FORMAT_ND;
};

class CompileTimeTensorDesc {
public:
	ge::DataType GetDataType() const { return dtype_; }
	ge::Format GetStorageFormat() const { return format_; }
	ge::Format GetOriginFormat() const { return format_; }
	StorageFormat GetFormat() const { return StorageFormat(format_); }
	void SetDataType(ge::DataType dt) { dtype_ = dt; }

	ge::DataType dtype_ = ge::DT_FLOAT;
	ge::Format format_ = ge::FORMAT_ND;
};

class Tensor {
public:
	const StorageShape &GetShape() const { return shape_; }
	const Shape &GetStorageShape() const { return shape_.GetStorageShape(); }
	const Shape &GetOriginShape() const { return shape_.GetOriginShape(); }
	int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
	ge::DataType GetDataType() const { return dtype_; }
	ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
	ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
	StorageFormat GetFormat() const { return StorageFormat(ge::FORMAT_ND); }
	template <class T> const T *GetData() const { return static_cast<const T *>(data_); }
	const void *GetAddr() const { return data_; }
	size_t GetSize() const { return size_; }

	StorageShape shape_;
	ge::DataType dtype_ = ge::DT_FLOAT;
	const void *data_ = nullptr;
	size_t size_ = 0;
};

// A list attribute: the element count followed by the elements.
template <class T> class TypedContinuousVector {
public:
	size_t GetSize() const { return size_; }
	const T *GetData() const { return reinterpret_cast<const T *>(this + 1); }

	size_t size_ = 0;
	size_t pad_ = 0;
};
using ContinuousVector = TypedContinuousVector<int64_t>;

class RuntimeAttrs {
public:
	template <class T> const T *GetAttrPointer(size_t idx) const
	{
		return idx < blobs_.size() && !blobs_[idx].empty() ? reinterpret_cast<const T *>(blobs_[idx].data()) : nullptr;
	}
	const int64_t *GetInt(size_t idx) const { return GetAttrPointer<int64_t>(idx); }
	const float *GetFloat(size_t idx) const { return GetAttrPointer<float>(idx); }
	const bool *GetBool(size_t idx) const { return GetAttrPointer<bool>(idx); }
	const char *GetStr(size_t idx) const { return GetAttrPointer<char>(idx); }
	const TypedContinuousVector<int64_t> *GetListInt(size_t idx) const
	{
		return GetAttrPointer<TypedContinuousVector<int64_t>>(idx);
	}
	const TypedContinuousVector<float> *GetListFloat(size_t idx) const
	{
		return GetAttrPointer<TypedContinuousVector<float>>(idx);
	}
	size_t GetAttrNum() const { return blobs_.size(); }

	/* One aligned blob per attribute, in OpDef declaration order. */
	std::vector<std::vector<uint64_t>> blobs_;
};

class TilingData {
public:
	void *GetData() { return data_; }
	const void *GetData() const { return data_; }
	size_t GetCapacity() const { return capacity_; }
	size_t GetDataSize() const { return size_; }
	void SetDataSize(size_t size) { size_ = size; }

	void *data_ = nullptr;
	size_t capacity_ = 0;
	size_t size_ = 0;
};

} // namespace gert

namespace ascendsim {

// What the harness knows about one operator invocation; shared by every
// context it builds.  Input/output instances are flattened: a dynamic input
// with k tensors takes k consecutive instance indexes.
struct host_io {
	std::vector<gert::StorageShape> in_shapes, out_shapes;
	std::vector<gert::CompileTimeTensorDesc> in_desc, out_desc;
	std::vector<gert::Tensor> in_tensors;
	std::vector<int> in_ir_first, in_ir_count;  /* per IR input */
	std::vector<int> out_ir_first, out_ir_count; /* per IR output */
	gert::RuntimeAttrs attrs;
	fe::PlatFormInfos *platform = nullptr;
	const void *compile_info = nullptr;
	std::string node_name, node_type;
};

} // namespace ascendsim

namespace gert {

// Where one IR input's instances start among the flattened inputs, and how many.
class AnchorInstanceInfo {
public:
	AnchorInstanceInfo() = default;
	AnchorInstanceInfo(uint32_t start, uint32_t num) : start_(start), num_(num) {}
	size_t GetInstanceStart() const { return start_; }
	size_t GetInstanceNum() const { return num_; }

	uint32_t start_ = 0, num_ = 0;
};

// The node a context belongs to: its names and its inputs and outputs.
class ComputeNodeInfo {
public:
	const char *GetNodeName() const { return io_->node_name.c_str(); }
	const char *GetNodeType() const { return io_->node_type.c_str(); }
	size_t GetInputsNum() const { return io_->in_shapes.size(); }
	size_t GetOutputsNum() const { return io_->out_shapes.size(); }
	size_t GetIrInputsNum() const { return io_->in_ir_first.size(); }
	size_t GetIrOutputsNum() const { return io_->out_ir_first.size(); }
	const AnchorInstanceInfo *GetInputInstanceInfo(size_t ir) const
	{
		if (ir >= io_->in_ir_first.size())
			return nullptr;
		instance_ = AnchorInstanceInfo((uint32_t)io_->in_ir_first[ir], (uint32_t)io_->in_ir_count[ir]);
		return &instance_;
	}
	const AnchorInstanceInfo *GetOutputInstanceInfo(size_t ir) const
	{
		if (ir >= io_->out_ir_first.size())
			return nullptr;
		instance_ = AnchorInstanceInfo((uint32_t)io_->out_ir_first[ir], (uint32_t)io_->out_ir_count[ir]);
		return &instance_;
	}
	const CompileTimeTensorDesc *GetInputTdInfo(size_t i) const
	{
		return i < io_->in_desc.size() ? &io_->in_desc[i] : nullptr;
	}
	const CompileTimeTensorDesc *GetOutputTdInfo(size_t i) const
	{
		return i < io_->out_desc.size() ? &io_->out_desc[i] : nullptr;
	}
	const RuntimeAttrs *GetAttrs() const { return &io_->attrs; }

	const ascendsim::host_io *io_ = nullptr;
	mutable AnchorInstanceInfo instance_;
};

// The part every runtime context shares: the node's inputs, outputs,
// attributes and names.  CANN documents it as the base of the tiling and
// inference contexts, which add no data of their own, so code may view any
// of them as one (reinterpret_cast<ExtendedKernelContext *>(context), as
// the basicdataapi reference's examples for GetComputeNodeInputNum and
// GetComputeNodeOutputNum do, atlasopapi_07_00078 and _00079).
class ExtendedKernelContext {
public:
	const CompileTimeTensorDesc *GetInputDesc(size_t i) const { return at(io_->in_desc, i); }
	const CompileTimeTensorDesc *GetOutputDesc(size_t i) const { return at(io_->out_desc, i); }
	const CompileTimeTensorDesc *GetOptionalInputDesc(size_t ir) const { return ir_at(io_->in_desc, ir, 0); }
	const CompileTimeTensorDesc *GetDynamicInputDesc(size_t ir, size_t rel) const
	{
		return ir_at(io_->in_desc, ir, rel);
	}
	// A required input's description by its IR index (its one instance).
	const CompileTimeTensorDesc *GetRequiredInputDesc(size_t ir) const { return ir_at(io_->in_desc, ir, 0); }
	const AnchorInstanceInfo *GetIrInputInstanceInfo(size_t ir) const
	{
		return GetComputeNodeInfo()->GetInputInstanceInfo(ir);
	}
	const AnchorInstanceInfo *GetIrOutputInstanceInfo(size_t ir) const
	{
		return GetComputeNodeInfo()->GetOutputInstanceInfo(ir);
	}
	size_t GetComputeNodeInputNum() const { return io_->in_ir_first.size(); }
	size_t GetComputeNodeOutputNum() const { return io_->out_ir_first.size(); }
	const RuntimeAttrs *GetAttrs() const { return &io_->attrs; }
	const char *GetNodeName() const { return io_->node_name.c_str(); }
	const char *GetNodeType() const { return io_->node_type.c_str(); }
	const ComputeNodeInfo *GetComputeNodeInfo() const
	{
		node_info_.io_ = io_;
		return &node_info_;
	}

	/* Harness state. */
	ascendsim::host_io *io_ = nullptr;
	mutable ComputeNodeInfo node_info_;

protected:
	template <class T> const T *at(const std::vector<T> &v, size_t i) const { return i < v.size() ? &v[i] : nullptr; }
	template <class T> const T *ir_at(const std::vector<T> &v, size_t ir, size_t rel) const
	{
		if (ir >= io_->in_ir_first.size() || (int)rel >= io_->in_ir_count[ir])
			return nullptr;
		return at(v, (size_t)io_->in_ir_first[ir] + rel);
	}
};

class TilingContext : public ExtendedKernelContext {
public:
	const StorageShape *GetInputShape(size_t i) const { return at(io_->in_shapes, i); }
	const StorageShape *GetOutputShape(size_t i) const { return at(io_->out_shapes, i); }
	const StorageShape *GetOptionalInputShape(size_t ir) const { return ir_at(io_->in_shapes, ir, 0); }
	const StorageShape *GetDynamicInputShape(size_t ir, size_t rel) const { return ir_at(io_->in_shapes, ir, rel); }
	const Tensor *GetInputTensor(size_t i) const { return at(io_->in_tensors, i); }
	const Tensor *GetOptionalInputTensor(size_t ir) const { return ir_at(io_->in_tensors, ir, 0); }
	const Tensor *GetDynamicInputTensor(size_t ir, size_t rel) const { return ir_at(io_->in_tensors, ir, rel); }
	ge::graphStatus SetBlockDim(uint32_t block_dim)
	{
		block_dim_ = block_dim;
		block_dim_set_ = true;
		return ge::GRAPH_SUCCESS;
	}
	uint32_t GetBlockDim() const { return block_dim_; }
	ge::graphStatus SetTilingKey(uint64_t key)
	{
		tiling_key_ = key;
		return ge::GRAPH_SUCCESS;
	}
	uint64_t GetTilingKey() const { return tiling_key_; }
	ge::graphStatus SetScheduleMode(uint32_t mode)
	{
		schedule_mode_ = mode;
		return ge::GRAPH_SUCCESS;
	}
	ge::graphStatus SetNeedAtomic(bool atomic)
	{
		need_atomic_ = atomic;
		return ge::GRAPH_SUCCESS;
	}
	int32_t GetDeterministic() const { return 1; }

	TilingData *GetRawTilingData() { return &raw_; }
	// The plain-struct style: the tiling buffer viewed as T, sized to T.
	template <class T> T *GetTilingData()
	{
		if (sizeof(T) > raw_.capacity_)
			return nullptr;
		raw_.size_ = sizeof(T);
		return static_cast<T *>(raw_.data_);
	}

	size_t *GetWorkspaceSizes(size_t num)
	{
		if (workspace_.size() < num)
			workspace_.resize(num, 0);
		return workspace_.data();
	}
	size_t GetWorkspaceNum() const { return workspace_.size(); }

	fe::PlatFormInfos *GetPlatformInfo() const { return io_->platform; }
	template <class T> const T *GetCompileInfo() const { return static_cast<const T *>(io_->compile_info); }
	const void *GetCompileInfo() const { return io_->compile_info; }

	/* Harness state. */
	uint32_t block_dim_ = 0;
	bool block_dim_set_ = false;
	uint64_t tiling_key_ = 0;
	uint32_t schedule_mode_ = 0;
	bool need_atomic_ = false;
	TilingData raw_;
	std::vector<size_t> workspace_;
};

class InferShapeContext : public ExtendedKernelContext {
public:
	const Shape *GetInputShape(size_t i) const
	{
		return i < io_->in_shapes.size() ? &io_->in_shapes[i].GetOriginShape() : nullptr;
	}
	const Shape *GetOptionalInputShape(size_t ir) const
	{
		if (ir >= io_->in_ir_first.size() || io_->in_ir_count[ir] == 0)
			return nullptr;
		return GetInputShape((size_t)io_->in_ir_first[ir]);
	}
	const Shape *GetDynamicInputShape(size_t ir, size_t rel) const
	{
		if (ir >= io_->in_ir_first.size() || (int)rel >= io_->in_ir_count[ir])
			return nullptr;
		return GetInputShape((size_t)io_->in_ir_first[ir] + rel);
	}
	Shape *GetOutputShape(size_t i) { return i < out_.size() ? &out_[i] : nullptr; }
	const Tensor *GetInputTensor(size_t i) const { return i < io_->in_tensors.size() ? &io_->in_tensors[i] : nullptr; }

	std::vector<Shape> out_;
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
	ge::DataType GetInputDataType(size_t i) const
	{
		return i < io_->in_desc.size() ? io_->in_desc[i].GetDataType() : ge::DT_UNDEFINED;
	}
	ge::DataType GetOptionalInputDataType(size_t ir) const
	{
		if (ir >= io_->in_ir_first.size() || io_->in_ir_count[ir] == 0)
			return ge::DT_UNDEFINED;
		return GetInputDataType((size_t)io_->in_ir_first[ir]);
	}
	ge::DataType GetOutputDataType(size_t i) const { return i < out_.size() ? out_[i] : ge::DT_UNDEFINED; }
	ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt)
	{
		if (i >= out_.size())
			return ge::GRAPH_FAILED;
		out_[i] = dt;
		return ge::GRAPH_SUCCESS;
	}

	std::vector<ge::DataType> out_;
};

// A shape range (the simulator runs known shapes: inference of ranges is
// compiled, never called).
template <class T> class Range {
public:
	Range() = default;
	Range(T *min, T *max) : min_(min), max_(max) {}
	const T *GetMin() const { return min_; }
	const T *GetMax() const { return max_; }
	T *GetMin() { return min_; }
	T *GetMax() { return max_; }

private:
	T *min_ = nullptr, *max_ = nullptr;
};

class InferShapeRangeContext {
public:
	const Range<Shape> *GetInputShapeRange(size_t) const { return nullptr; }
	const Range<Shape> *GetOptionalInputShapeRange(size_t) const { return nullptr; }
	Range<Shape> *GetOutputShapeRange(size_t) { return nullptr; }
	const RuntimeAttrs *GetAttrs() const { return nullptr; }
	const char *GetNodeName() const { return ""; }
	const char *GetNodeType() const { return ""; }
};

class TilingParseContext {
public:
	template <class T> T *GetCompiledInfo() { return static_cast<T *>(compile_info_); }
	fe::PlatFormInfos *GetPlatformInfo() const { return platform_; }
	const char *GetCompiledJson() const { return "{}"; }
	const char *GetNodeName() const { return node_name_.c_str(); }
	const char *GetNodeType() const { return node_type_.c_str(); }

	void *compile_info_ = nullptr;
	fe::PlatFormInfos *platform_ = nullptr;
	std::string node_name_, node_type_;
};

using TilingKernelFunc = ge::graphStatus (*)(TilingContext *);
using InferShapeKernelFunc = ge::graphStatus (*)(InferShapeContext *);
using InferDataTypeKernelFunc = ge::graphStatus (*)(InferDataTypeContext *);
using InferShapeRangeKernelFunc = ge::graphStatus (*)(InferShapeRangeContext *);
using TilingParseFunc = ge::graphStatus (*)(TilingParseContext *);

// IMPL_OP_OPTILING / IMPL_OP registrations, chained by value.
class OpImplRegister {
public:
	explicit OpImplRegister(const char *op_type);
	OpImplRegister &Tiling(TilingKernelFunc fn);
	OpImplRegister &Tiling(TilingKernelFunc fn, size_t max_tiling_data_size) { return Tiling(fn), (void)max_tiling_data_size, *this; }
	OpImplRegister &InferShape(InferShapeKernelFunc fn);
	OpImplRegister &InferDataType(InferDataTypeKernelFunc fn);
	OpImplRegister &InferShapeRange(InferShapeRangeKernelFunc) { return *this; }
	OpImplRegister &InputsDataDependency(std::initializer_list<int32_t>) { return *this; }
	template <class T> OpImplRegister &PrivateAttr(const char *, const T &) { return *this; }
	template <class T> OpImplRegister &TilingParse(TilingParseFunc fn)
	{
		return set_parse(fn, [] { return (void *)new T(); }, [](void *p) { delete static_cast<T *>(p); });
	}
	template <class T> OpImplRegister &TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }
	OpImplRegister &TilingInputsDataDependency(std::initializer_list<int32_t>) { return *this; }

private:
	OpImplRegister &set_parse(TilingParseFunc fn, void *(*make)(), void (*drop)(void *));
	int index_;
};

} // namespace gert

#define IMPL_OP(op_type)                                                                                              \
	static ::gert::OpImplRegister ASCENDSIM_IMPL_CAT(ascendsim_op_impl_, __COUNTER__) __attribute__((unused)) =   \
	    ::gert::OpImplRegister(#op_type)
#define IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
#define IMPL_OP_INFERSHAPE(op_type) IMPL_OP(op_type)
#define ASCENDSIM_IMPL_CAT2(a, b) a##b
#define ASCENDSIM_IMPL_CAT(a, b) ASCENDSIM_IMPL_CAT2(a, b)

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };
// What ReserveLocalMemory sets aside in the UB (CANN documents 8, 16 and 32 KiB).
enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

enum class SocVersion {
	ASCEND910 = 0,
	ASCEND910B,
	ASCEND910_93,
	ASCEND910_95,
	ASCEND310P,
	ASCEND310B,
	BS9SX1A,
	ASCEND610Lite,
	ASCEND031,
	ASCEND035,
	ASCEND910_55,
	MC61AM21A,
	RESERVED_VERSION = 99999,
};

class PlatformAscendC {
public:
	PlatformAscendC() = default;
	explicit PlatformAscendC(fe::PlatFormInfos *info) : info_(info) {}

	// On the split 910B architecture these count vector cores.
	uint32_t GetCoreNum() const { return info_ ? info_->aiv_cores : 0; }
	uint32_t GetCoreNumAic() const { return info_ ? info_->aic_cores : 0; }
	uint32_t GetCoreNumAiv() const { return info_ ? info_->aiv_cores : 0; }
	uint32_t GetCoreNumVector() const { return 0; }
	void GetCoreMemSize(const CoreMemType &type, uint64_t &size) const
	{
		size = 0;
		if (!info_)
			return;
		switch (type) {
		case CoreMemType::UB: size = info_->ub_reported - reserved_ub_; break;
		case CoreMemType::L1: size = info_->l1; break;
		case CoreMemType::L0_A: size = info_->l0a; break;
		case CoreMemType::L0_B: size = info_->l0b; break;
		case CoreMemType::L0_C: size = info_->l0c; break;
		case CoreMemType::L2: size = info_->l2; break;
		case CoreMemType::HBM: size = info_->hbm; break;
		default: break;
		}
	}
	// Bytes per cycle.
	void GetCoreMemBw(const CoreMemType &type, uint64_t &bw) const
	{
		bw = 0;
		if (info_ && type == CoreMemType::HBM)
			bw = info_->hbm_bw_bytes_per_cycle;
		else if (info_ && type == CoreMemType::L2)
			bw = info_->l2_bw_bytes_per_cycle;
	}
	SocVersion GetSocVersion() const
	{
		if (!info_)
			return SocVersion::RESERVED_VERSION;
		return info_->short_soc_version == "ascend910b" ? SocVersion::ASCEND910B : SocVersion::RESERVED_VERSION;
	}
	uint32_t GetLibApiWorkSpaceSize() const { return info_ ? (uint32_t)info_->system_workspace : 0; }
	uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
	{
		if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum)
			return sliceNum;
		uint32_t ratio = aivCoreNum / aicCoreNum;
		return (sliceNum + ratio - 1) / ratio;
	}
	fe::PlatFormInfos *GetPlatformInfos() const { return info_; }
	// Sets UB aside for the kernel's own use: GetCoreMemSize(UB) reports the
	// rest.  Only the last call counts, as documented.
	void ReserveLocalMemory(ReservedSize size)
	{
		reserved_ub_ = size == ReservedSize::RESERVED_SIZE_32K   ? 32 * 1024
			       : size == ReservedSize::RESERVED_SIZE_16K ? 16 * 1024
									 : 8 * 1024;
	}

private:
	fe::PlatFormInfos *info_ = nullptr;
	uint64_t reserved_ub_ = 0;
};

class PlatformAscendCManager {
public:
	static PlatformAscendC *GetInstance();
	static PlatformAscendC *GetInstance(const char *customSocVersion) { return (void)customSocVersion, GetInstance(); }
};

} // namespace platform_ascendc

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };

// An output's initial value per dtype (InitValue): the framework fills the
// output before the launch, so the simulator counts all of it as written
// (its GM starts zeroed; a value other than 0 is not applied).
enum class ScalarType { UINT64 = 0, INT64, UINT32, INT32, UINT16, INT16, UINT8, INT8, FLOAT32, FLOAT16, INVALID_DTYPE };
struct ScalarVar {
	ScalarType scalar_type = ScalarType::INVALID_DTYPE;
	double scalar_num = 0;
	ScalarVar() = default;
	ScalarVar(ScalarType type, double num) : scalar_type(type), scalar_num(num) {}
};

class OpParamDef {
public:
	explicit OpParamDef(const char *name) : name_(name) {}
	OpParamDef &ParamType(Option type) { return param_type_ = type, *this; }
	OpParamDef &DataType(std::vector<ge::DataType> types) { return dtypes_ = std::move(types), *this; }
	OpParamDef &DataTypeList(std::vector<ge::DataType> types) { return dtypes_ = std::move(types), *this; }
	OpParamDef &Format(std::vector<ge::Format> formats) { return formats_ = std::move(formats), *this; }
	OpParamDef &FormatList(std::vector<ge::Format> formats) { return formats_ = std::move(formats), *this; }
	OpParamDef &UnknownShapeFormat(std::vector<ge::Format> formats) { return (void)formats, *this; }
	OpParamDef &ValueDepend(Option) { return *this; }
	OpParamDef &ValueDepend(Option, DependScope) { return *this; }
	OpParamDef &IgnoreContiguous() { return *this; }
	OpParamDef &AutoContiguous() { return *this; }
	OpParamDef &Scalar() { return *this; }
	OpParamDef &ScalarList() { return *this; }
	OpParamDef &To(ge::DataType) { return *this; }
	OpParamDef &To(const char *) { return *this; }
	OpParamDef &Follow(const char *) { return *this; }
	OpParamDef &Follow(const char *, FollowType) { return *this; }
	OpParamDef &InitValue(uint64_t) { return init_value_ = true, *this; }
	OpParamDef &InitValue(const ScalarVar &) { return init_value_ = true, *this; }
	OpParamDef &InitValue(const std::vector<ScalarVar> &) { return init_value_ = true, *this; }
	OpParamDef &OutputShapeDependOnCompute() { return *this; }
	OpParamDef &Comment(const char *) { return *this; }

	std::string name_;
	Option param_type_ = REQUIRED;
	std::vector<ge::DataType> dtypes_;
	std::vector<ge::Format> formats_;
	bool init_value_ = false; /* InitValue was given */
};

enum attr_kind { ATTR_INT, ATTR_FLOAT, ATTR_BOOL, ATTR_STRING, ATTR_LIST_INT, ATTR_LIST_FLOAT, ATTR_LIST_BOOL, ATTR_NONE };

class OpAttrDef {
public:
	explicit OpAttrDef(const char *name) : name_(name) {}
	OpAttrDef &AttrType(Option type) { return required_ = type == REQUIRED, *this; }
	OpAttrDef &Int() { return kind_ = ATTR_INT, *this; }
	OpAttrDef &Int(int64_t v) { return kind_ = ATTR_INT, has_default_ = true, i_ = v, *this; }
	OpAttrDef &Float() { return kind_ = ATTR_FLOAT, *this; }
	OpAttrDef &Float(float v) { return kind_ = ATTR_FLOAT, has_default_ = true, f_ = v, *this; }
	OpAttrDef &Bool() { return kind_ = ATTR_BOOL, *this; }
	OpAttrDef &Bool(bool v) { return kind_ = ATTR_BOOL, has_default_ = true, b_ = v, *this; }
	OpAttrDef &String() { return kind_ = ATTR_STRING, *this; }
	OpAttrDef &String(const char *v) { return kind_ = ATTR_STRING, has_default_ = true, s_ = v, *this; }
	OpAttrDef &ListInt() { return kind_ = ATTR_LIST_INT, *this; }
	OpAttrDef &ListInt(std::vector<int64_t> v) { return kind_ = ATTR_LIST_INT, has_default_ = true, li_ = std::move(v), *this; }
	OpAttrDef &ListFloat() { return kind_ = ATTR_LIST_FLOAT, *this; }
	OpAttrDef &ListFloat(std::vector<float> v) { return kind_ = ATTR_LIST_FLOAT, has_default_ = true, lf_ = std::move(v), *this; }
	OpAttrDef &ListBool() { return kind_ = ATTR_LIST_BOOL, *this; }
	OpAttrDef &ListBool(std::vector<bool> v)
	{
		kind_ = ATTR_LIST_BOOL;
		has_default_ = true;
		for (bool b : v)
			li_.push_back(b);
		return *this;
	}
	OpAttrDef &Version(uint32_t) { return *this; }
	OpAttrDef &Comment(const char *) { return *this; }

	std::string name_;
	bool required_ = true;
	attr_kind kind_ = ATTR_NONE;
	bool has_default_ = false;
	int64_t i_ = 0;
	float f_ = 0;
	bool b_ = false;
	std::string s_;
	std::vector<int64_t> li_;
	std::vector<float> lf_;
};

class OpAICoreConfig {
public:
	OpAICoreConfig() = default;
	explicit OpAICoreConfig(const char *) {}
	OpParamDef &Input(const char *name) { return params_.emplace_back(name); }
	OpParamDef &Output(const char *name) { return params_.emplace_back(name); }
	OpAICoreConfig &DynamicCompileStaticFlag(bool) { return *this; }
	OpAICoreConfig &DynamicFormatFlag(bool) { return *this; }
	OpAICoreConfig &DynamicRankSupportFlag(bool) { return *this; }
	OpAICoreConfig &DynamicShapeSupportFlag(bool) { return *this; }
	OpAICoreConfig &NeedCheckSupportFlag(bool) { return *this; }
	OpAICoreConfig &PrecisionReduceFlag(bool) { return *this; }
	OpAICoreConfig &ExtendCfgInfo(const char *, const char *) { return *this; }

private:
	std::deque<OpParamDef> params_;
};

using CheckSupportFunc = ge::graphStatus (*)(const ge::Operator &, ge::AscendString &);

class OpAICoreDef {
public:
	OpAICoreDef &SetTiling(gert::TilingKernelFunc fn) { return tiling_ = fn, *this; }
	OpAICoreDef &SetCheckSupport(CheckSupportFunc) { return *this; }
	OpAICoreDef &SetOpSelectFormat(CheckSupportFunc) { return *this; }
	OpAICoreDef &SetOpSupportInfo(CheckSupportFunc) { return *this; }
	OpAICoreDef &SetOpSpecInfo(CheckSupportFunc) { return *this; }
	OpAICoreDef &AddConfig(const char *soc) { return socs_.emplace_back(soc), *this; }
	OpAICoreDef &AddConfig(const char *soc, OpAICoreConfig &) { return socs_.emplace_back(soc), *this; }

	gert::TilingKernelFunc tiling_ = nullptr;
	std::vector<std::string> socs_;
};

class OpMC2Def {
public:
	OpMC2Def &HcclGroup(const char *) { return *this; }
	OpMC2Def &HcclGroup(std::vector<const char *>) { return *this; }
};

class OpDef {
public:
	explicit OpDef(const char *type) : type_(type) {}
	virtual ~OpDef() = default;

	OpParamDef &Input(const char *name) { return inputs_.emplace_back(name); }
	OpParamDef &Output(const char *name) { return outputs_.emplace_back(name); }
	OpAttrDef &Attr(const char *name) { return attrs_.emplace_back(name); }
	OpDef &SetInferShape(gert::InferShapeKernelFunc fn) { return infer_shape_ = fn, *this; }
	OpDef &SetInferShapeRange(gert::InferShapeRangeKernelFunc) { return *this; }
	OpDef &SetInferDataType(gert::InferDataTypeKernelFunc fn) { return infer_dtype_ = fn, *this; }
	OpAICoreDef &AICore() { return aicore_; }
	OpMC2Def &MC2() { return mc2_; }
	OpDef &Comment(const char *) { return *this; }

	std::string type_;
	std::deque<OpParamDef> inputs_, outputs_;
	std::deque<OpAttrDef> attrs_;
	gert::InferShapeKernelFunc infer_shape_ = nullptr;
	gert::InferDataTypeKernelFunc infer_dtype_ = nullptr;
	OpAICoreDef aicore_;
	OpMC2Def mc2_;
};

// OP_ADD registers a factory; the harness builds the OpDef it needs by name.
struct op_def_registration {
	op_def_registration(const char *type, OpDef *(*make)());
};

} // namespace ops

#define OP_ADD(op_type, ...)                                                                                          \
	static ::ops::op_def_registration ascendsim_op_def_##op_type(                                                 \
	    #op_type, []() -> ::ops::OpDef * { return new op_type(#op_type); })

namespace ascendsim {

// Registry entries the runtime reads (defined in libascendsim).
struct op_impl_entry {
	std::string type;
	gert::TilingKernelFunc tiling = nullptr;
	gert::InferShapeKernelFunc infer_shape = nullptr;
	gert::InferDataTypeKernelFunc infer_dtype = nullptr;
	gert::TilingParseFunc parse = nullptr;
	void *(*make_compile_info)() = nullptr;
	void (*drop_compile_info)(void *) = nullptr;
};

struct op_def_entry {
	std::string type;
	ops::OpDef *(*make)();
};

std::deque<op_impl_entry> &op_impl_registry();
std::deque<op_def_entry> &op_def_registry();

} // namespace ascendsim

#endif
