// SPDX-License-Identifier: MIT
//
// The program an operator is linked into: `prog SPEC.json OUTDIR` reads the
// spec, builds the OpDef and a TilingContext, runs the tiling function,
// allocates GM, generates seeded inputs, launches the kernel on simulated
// cores and writes OUTDIR/result.json plus raw in_/out_ files.  It exits 0
// whenever result.json was written, even for errors in the operator; other
// exits are harness failures (64 usage, 65 bad spec, 70 internal).
// `prog --describe` prints the registered OpDefs and kernel entry as JSON.
// With "tiling_only": true in the spec the run stops after the tiling
// function, writing an ok result with its block_dim and tiling_key: a
// program linked without a kernel (its host code built with gcov
// instrumentation) says which host lines the case runs, and it exits
// through exit() so that the instrumentation writes its counts.  Either
// way, once the tiling ran, OUTDIR/launch.bin holds what the launch gets
// from the host code (write_launch) and the result names it "launch_file".
// An input the spec leaves out is absent (OPTIONAL ones only): a null kernel
// argument and no instance.  An output with "ref": true is the input of its
// name: no allocation, its argument is that input's buffer (if the OpDef
// declares the output; else none), and out_<name>.bin is that buffer after
// the run.
//
// Timing fields of an ok result (written by timing_result(), timing.cpp).
// All times are µs at the platform clock; "per core" means the mean over the
// blocks of the launch.
//   cycles              device cycles of the slowest core (launch excluded)
//   latency_us          launch_us + cycles / clock, or with jitter_pct the
//                       median of samples_us
//   launch_us           launch overhead (grows with blockDim; AIV-only is cheaper)
//   samples_us[], iqr_us  one sample unless jitter_pct is set (then `samples`,
//                       default 5, seeded by jitter_seed)
//   roofline_us         from the spec only: input + output bytes / peak HBM
//                       bandwidth vs output bytes at the peak vector rate of all
//                       cores, plus the smallest launch (1 block, AIV-only)
//   roofline_fraction   roofline_us / latency_us, <= 1 for every correct run
//   profile {
//     cycles, latency_us, model_latency_us (unjittered), launch_us, kernel_us,
//     clock_mhz, kernel_type ("aiv_only" | "mix"), block_dim, cores, waves,
//     pipes { s | v | mte2 | mte3: { busy_us (per core), utilisation (busy /
//            the core's own span, mean over cores, 0..1) } },
//     stalls_us { per core, summed over the pipes that waited:
//       mte2_v        V waited for MTE2 data (DeQue, MTE2_V flags, auto-sync)
//       v_mte3        MTE3 waited for V results
//       buffer_free   a producer waited for a consumer to release a buffer
//                     (AllocTensor, V_MTE2 / MTE3_V flags, auto-sync WAR)
//       pipe_all      S drained every pipe at PipeBarrier<PIPE_ALL>
//       sync_all      waiting for the other cores at SyncAll
//       scalar_issue  a pipe idled because S had not issued its next instruction
//       v_dependency  V waited for its own result (PIPE_V barrier, auto-sync RAW)
//       auto_sync     other waits auto-sync inserted for UB hazards
//       other_flag    other explicit SetFlag/WaitFlag pairs
//       issue_queue   S waited for room in a pipe's instruction queue },
//     ub_peak_bytes, ub_capacity_bytes,
//     bytes_in, bytes_out (GM<->UB), copies, mean_copy_bytes,
//     gm_aligned_fraction (GM bytes whose row starts on 512 B),
//     vector_repeats, vector_instructions,
//     scalar_basic_blocks, basic_block_counting (the kernel unit was built
//       with -fsanitize-coverage=trace-pc),
//     core_imbalance (slowest core's end / mean core end, per physical core),
//     roofline_us, roofline_fraction,
//     jitter_pct (when set), trace_path, trace_events, trace_truncated (with a trace) }
// Spec fields read for timing: trace_path (Chrome trace-event JSON, one
// process per block with S/V/MTE2/MTE3 tracks), trace_max_events (default
// 1e6), jitter_pct in [0, 100), jitter_seed, samples, and slow_after_us: a
// launch whose simulated time passes it stops with status "slow".
#include <jansson.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "internal.h"

namespace ascendsim {

void last_instruction(const char **name, srcloc *loc);

// ---- result bookkeeping ----------------------------------------------------------

namespace {

struct tensor_inst {
	std::string name;  /* IR name */
	int index = -1;    /* position within a list, -1 for a plain tensor */
	uint8_t dtype = 0; /* dtype_code */
	std::vector<int64_t> shape;
	uint64_t elems = 0, bytes = 0;
	uint8_t *gm = nullptr;
	std::string file;
	std::string data_file; /* the input's bytes come from here instead of the generator */
	bool ref = false;      /* an output that is an input's buffer, updated in place */
	bool have_range = false;
	double lo = 0, hi = 0;
	written_summary written; /* an output's written elements, after the launch */
};

struct io_param {
	std::string name;
	bool list = false;
	bool present = false;
	uint8_t dtype = 0;
	std::vector<int> inst; /* indexes into the instance vector */
	uint8_t *arg = nullptr;
};

struct result_state {
	std::string out_dir;
	std::string op;
	std::string kernel;
	uint64_t seed = 0;
	bool tiled = false;
	uint32_t block_dim = 0;
	uint64_t tiling_key = 0;
	uint64_t workspace = 0;
	int task_type = 0;
	json_t *warnings = nullptr;
	json_t *attrs = nullptr; /* the attribute values used, defaults included */
	std::set<std::string> warning_seen;
	std::vector<std::string> permissive;
	std::vector<tensor_inst> inputs, outputs;
	bool inputs_dumped = false;
	bool outputs_dumped = false;
	bool writing = false;
	bool op_only_tiled = false; /* tiling_only: no kernel ran, so no timing */
	bool launch_written = false; /* launch.bin is in out_dir (write_launch) */
};

result_state R;
std::vector<gm_region> regions;

json_t *tensor_list_json(const std::vector<tensor_inst> &v, bool with_files)
{
	json_t *a = json_array();
	for (const tensor_inst &t : v) {
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(t.name.c_str()));
		if (t.index >= 0)
			json_object_set_new(o, "index", json_integer(t.index));
		json_object_set_new(o, "dtype", json_string(dtype_name(t.dtype)));
		json_t *s = json_array();
		for (int64_t d : t.shape)
			json_array_append_new(s, json_integer(d));
		json_object_set_new(o, "shape", s);
		if (with_files)
			json_object_set_new(o, "file", json_string(t.file.c_str()));
		written_json(o, t.written);
		json_array_append_new(a, o);
	}
	return a;
}

double roofline_us();

void write_result(const char *status, const char *kind, const char *file, int line, const std::string &msg)
{
	if (R.writing)
		_exit(70); /* a crash while writing the result */
	R.writing = true;
	json_t *o = json_object();
	json_object_set_new(o, "status", json_string(status));
	if (kind) {
		json_t *e = json_object();
		json_object_set_new(e, "kind", json_string(kind));
		json_object_set_new(e, "message", json_string(msg.c_str()));
		json_object_set_new(e, "file", json_string(file ? file : ""));
		json_object_set_new(e, "line", json_integer(line));
		json_object_set_new(o, "error", e);
	}
	json_object_set_new(o, "op", json_string(R.op.c_str()));
	json_object_set_new(o, "kernel", json_string(R.kernel.c_str()));
	json_object_set_new(o, "seed", json_integer((json_int_t)R.seed));
	json_object_set_new(o, "block_dim", R.tiled ? json_integer(R.block_dim) : json_null());
	json_object_set_new(o, "tiling_key", R.tiled ? json_integer((json_int_t)R.tiling_key) : json_null());
	json_object_set_new(o, "workspace_bytes", R.tiled ? json_integer((json_int_t)R.workspace) : json_null());
	if (R.launch_written)
		json_object_set_new(o, "launch_file", json_string("launch.bin"));
	json_object_set_new(o, "instructions", json_integer((json_int_t)g_run.instructions));
	json_object_set_new(o, "auto_sync", json_boolean(g_run.auto_sync));
	json_object_set_new(o, "attrs", R.attrs ? json_incref(R.attrs) : json_object());
	json_object_set_new(o, "warnings", R.warnings ? json_incref(R.warnings) : json_array());
	json_object_set_new(o, "inputs", tensor_list_json(R.inputs, R.inputs_dumped));
	json_object_set_new(o, "outputs", R.outputs_dumped ? tensor_list_json(R.outputs, true) : json_array());
	if (!kind && std::strcmp(status, "ok") == 0 && !R.op_only_tiled)
		timing_result(o, roofline_us());
	std::string path = R.out_dir + "/result.json";
	errno = 0;
	if (json_dump_file(o, path.c_str(), JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) != 0) {
		std::fprintf(stderr, "ascendsim: cannot write %s: %s\n", path.c_str(),
			     errno ? std::strerror(errno) : "unknown error");
		_exit(73);
	}
	json_decref(o);
}

// The case's roofline, from the spec alone: every input read once and every
// output written once at the platform's peak HBM bandwidth, against one
// vector repeat per 256 output bytes at the peak rate of all vector cores,
// plus the smallest launch overhead (one block, AIV-only).  Nothing the
// candidate does enters it.
double roofline_us()
{
	double in = 0, out = 0;
	for (const tensor_inst &t : R.inputs)
		in += (double)t.bytes;
	for (const tensor_inst &t : R.outputs)
		out += (double)t.bytes;
	double mem_us = (in + out) / timing_hbm_peak_bytes_per_s() * 1e6;
	double vec_us = out / timing_vector_peak_bytes_per_s() * 1e6;
	return std::max(mem_us, vec_us) + timing_launch_us(1, true);
}

std::string vformat(const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof buf, fmt, ap);
	return buf;
}

std::string with_context(const std::string &msg)
{
	std::string s = R.op;
	if (g_core)
		s += strprintf(", core %u", g_core->block_idx);
	return s + ": " + msg;
}

bool is_permissive(const char *kind)
{
	for (const std::string &p : R.permissive)
		if (p == kind)
			return true;
	return false;
}

[[noreturn]] void spec_error(const std::string &msg)
{
	std::fprintf(stderr, "ascendsim: spec: %s\n", msg.c_str());
	std::exit(65);
}

} // namespace

void finish_error(const char *status, const char *kind, const char *file, int line, const std::string &msg)
{
	write_result(status, kind, file, line, with_context(msg));
	std::fflush(stdout); /* what the operator printed, for the error's context */
	std::fflush(stderr);
	_exit(0);
}

void fail(const char *kind, srcloc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string msg = vformat(fmt, ap);
	va_end(ap);
	finish_error("runtime_error", kind, loc.file, loc.line, msg);
}

void violation(const char *kind, srcloc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string msg = vformat(fmt, ap);
	va_end(ap);
	if (is_permissive(kind)) {
		warn(loc, "%s (%s, permitted)", msg.c_str(), kind);
		return;
	}
	finish_error("runtime_error", kind, loc.file, loc.line, msg);
}

void warn(srcloc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string msg = vformat(fmt, ap);
	va_end(ap);
	std::string key = strprintf("%s:%d: ", loc.file ? loc.file : "", loc.line) + msg;
	if (R.warning_seen.count(key) || R.warning_seen.size() >= 100)
		return;
	R.warning_seen.insert(key);
	if (!R.warnings)
		R.warnings = json_array();
	json_array_append_new(R.warnings, json_string(key.c_str()));
}

void unsupported(srcloc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string msg = vformat(fmt, ap);
	va_end(ap);
	finish_error("unsupported", "unsupported", loc.file, loc.line, msg);
}

void set_task_type(int type, srcloc loc)
{
	R.task_type = type;
	timing_task_type(type);
	if (type != KERNEL_TYPE_AIV_ONLY && type != KERNEL_TYPE_MIX_AIV_1_0)
		unsupported(loc, "kernel type %d needs the cube core (AIC or MIX); the simulator runs vector cores only", type);
}

// CrossCoreSetFlag/WaitFlag.  Only mode 0 (all the launch's AIV cores)
// exists without a cube core, and only in a MIX launch: an AIV-only kernel
// does not enable the scheduling module it counts on.  A set counts per
// flagId; its wait, which the kernel must pair with it, is modelled as a
// SyncAll of all the cores (hardware lets a core that has set go on until
// its wait, which only the timing can tell apart).
void cross_core_flag(int mode, int flag, bool set, srcloc loc)
{
	const char *api = set ? "CrossCoreSetFlag" : "CrossCoreWaitFlag";
	if (mode != 0)
		unsupported(loc, "%s mode %d synchronises inside an AI Core (its AIV pair, or AIC with AIV); the simulator "
				 "runs vector cores only",
			    api, mode);
	if (R.task_type != KERNEL_TYPE_MIX_AIV_1_0)
		unsupported(loc, "%s needs the scheduling module, which a kernel that is not a MIX kernel does not enable "
				 "(KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0))",
			    api);
	core_private *p = g_core->priv;
	int id = flag & 15;
	if (set) {
		if (p->cross_pending[id] == 15)
			fail("invalid_argument", loc, "%s(%d): the flag's counter is at its limit of 15", api, id);
		p->cross_pending[id]++;
		p->cross_loc[id] = loc;
		instr r{};
		r.name = api;
		r.loc = loc;
		r.kind = INSTR_CONTROL;
		r.pipe = PIPE_ID_S;
		r.event_id = -1;
		issue(r);
		return;
	}
	if (p->cross_pending[id] == 0)
		fail("unpaired_flag", loc, "%s(%d) with no CrossCoreSetFlag(%d) before it on this core", api, id, id);
	p->cross_pending[id]--;
	sync_all(loc);
}

void load_tiling(void *dst, const uint8_t *tiling, size_t bytes, srcloc loc)
{
	if (bytes > g_run.tiling_bytes)
		warn(loc, "the kernel reads %zu bytes of tiling data but the host saved only %u (SetDataSize)", bytes,
		     g_run.tiling_bytes);
	std::memcpy(dst, tiling, bytes);
	instr r{};
	r.name = "GET_TILING_DATA";
	r.loc = loc;
	r.kind = INSTR_CONTROL;
	r.pipe = PIPE_ID_S;
	r.bytes = bytes;
	r.gm = tiling;
	r.event_id = -1;
	issue(r);
}

uint8_t *user_workspace(uint8_t *workspace)
{
	return workspace ? workspace + g_run.system_workspace : nullptr;
}

const gm_region *gm_find(const void *p)
{
	const uint8_t *a = (const uint8_t *)p;
	for (const gm_region &r : regions)
		if (a >= r.begin && a <= r.end)
			return &r;
	return nullptr;
}

// ---- GM allocation ------------------------------------------------------------

namespace {

// Page-aligned (so 512-byte aligned) with an unmapped guard page after the
// rounded-up size, so raw pointer overruns fault instead of corrupting.
// The allocation is what torch_npu's caching allocator, through which most
// operators meet their tensors, hands out on Atlas A2: the size plus 32
// bytes, rounded up to 512 (NPUCachingAllocator: kMinBlockSize 512,
// AddPadSize 32 before Ascend910_95).  Kernels that read a whole block past
// a tensor's end (CANN's own equal, kl_div_target_backward) stay inside it.
uint8_t *gm_alloc(uint64_t bytes, const std::string &name)
{
	uint64_t alloc = (bytes + 32 + 511) & ~511ULL;
	uint64_t rounded = (alloc + 4095) & ~4095ULL;
	if (bytes > g_run.gm_budget || alloc > g_run.gm_budget - g_run.gm_bytes)
		finish_error("runtime_error", "case_too_large", "", 0,
			     strprintf("%s needs %llu bytes of GM, past the %llu GiB one case may take in all (its inputs, "
				       "outputs and workspace; %llu bytes are taken)",
				       name.c_str(), (unsigned long long)bytes, (unsigned long long)(g_run.gm_budget >> 30),
				       (unsigned long long)g_run.gm_bytes));
	g_run.gm_bytes += alloc;
	void *p = mmap(nullptr, rounded + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		finish_error("infra_error", "infra_error", "", 0,
			     strprintf("cannot allocate %llu bytes of GM for %s", (unsigned long long)bytes, name.c_str()));
	mprotect((uint8_t *)p + rounded, 4096, PROT_NONE);
	// A bench case's tensors are tens of megabytes: in 2 MiB pages where the
	// kernel has them (transparent huge pages in "madvise" mode, Debian's
	// default), a 64 MiB tensor takes 32 page faults instead of 16384, and
	// under a hypervisor each fault is dear.  Advice only: ignored elsewhere.
	if (rounded >= (2u << 20))
		madvise(p, rounded, MADV_HUGEPAGE);
	gm_region r;
	r.begin = (uint8_t *)p;
	r.data_end = r.begin + bytes;
	r.end = r.begin + alloc;
	r.name = strdup(name.c_str());
	r.written = nullptr;
	regions.reserve(256);
	if (regions.size() == regions.capacity())
		finish_error("infra_error", "infra_error", "", 0, "too many GM allocations");
	regions.push_back(r);
	return r.begin;
}

// ---- dtypes ----------------------------------------------------------------------

uint8_t dtype_from_string(const char *s)
{
	for (uint8_t c = 1; c < DTYPE_COUNT; c++)
		if (std::strcmp(dtype_name(c), s) == 0)
			return c;
	return 0;
}

uint32_t dtype_size(uint8_t c)
{
	switch (c) {
	case DTYPE_F16: case DTYPE_BF16: case DTYPE_I16: case DTYPE_U16: return 2;
	case DTYPE_F32: case DTYPE_I32: case DTYPE_U32: return 4;
	case DTYPE_I64: case DTYPE_U64: case DTYPE_F64: case DTYPE_C64: return 8;
	default: return 1;
	}
}

ge::DataType dtype_to_ge(uint8_t c)
{
	switch (c) {
	case DTYPE_F16: return ge::DT_FLOAT16;
	case DTYPE_BF16: return ge::DT_BF16;
	case DTYPE_F32: return ge::DT_FLOAT;
	case DTYPE_I8: return ge::DT_INT8;
	case DTYPE_U8: return ge::DT_UINT8;
	case DTYPE_I16: return ge::DT_INT16;
	case DTYPE_U16: return ge::DT_UINT16;
	case DTYPE_I32: return ge::DT_INT32;
	case DTYPE_U32: return ge::DT_UINT32;
	case DTYPE_I64: return ge::DT_INT64;
	case DTYPE_U64: return ge::DT_UINT64;
	case DTYPE_BOOL: return ge::DT_BOOL;
	case DTYPE_F64: return ge::DT_DOUBLE;
	case DTYPE_C64: return ge::DT_COMPLEX64;
	default: return ge::DT_UNDEFINED;
	}
}

bool dtype_is_float(uint8_t c)
{
	return c == DTYPE_F16 || c == DTYPE_BF16 || c == DTYPE_F32 || c == DTYPE_F64 || c == DTYPE_C64;
}

// ---- inputs ---------------------------------------------------------------------
//
// Input k (instances numbered in spec order, each element of a list counting
// as one) is filled from splitmix64 seeded with
//   state = seed XOR (0xD1B54A32D192ED03 * (k + 1))  (mod 2^64),
// one output x per element, in element order:
//   floats:  u = (x >> 11) * 2^-53;  v = lo + (hi - lo) * u  in double, then
//            rounded to float (nearest even), and from that float to half or
//            bfloat16 (nearest even); float64 keeps v.  complex64 takes two
//            draws per element, real then imaginary, each as a float32.
//            Default range [-1, 1).
//   ints:    lo + (x mod (hi - lo + 1)), default [-100, 100] clipped to the
//            type; bool defaults to [0, 1].
// `input_ranges` in the spec overrides [lo, hi] per input name.

uint64_t splitmix64(uint64_t &s)
{
	uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void int_limits(uint8_t c, double *lo, double *hi)
{
	switch (c) {
	case DTYPE_I8: *lo = -128; *hi = 127; break;
	case DTYPE_U8: *lo = 0; *hi = 255; break;
	case DTYPE_I16: *lo = -32768; *hi = 32767; break;
	case DTYPE_U16: *lo = 0; *hi = 65535; break;
	case DTYPE_I32: *lo = -2147483648.0; *hi = 2147483647.0; break;
	case DTYPE_U32: *lo = 0; *hi = 4294967295.0; break;
	case DTYPE_BOOL: *lo = 0; *hi = 1; break;
	case DTYPE_U64: *lo = 0; *hi = 9.2e18; break; /* the arithmetic below is signed */
	default: *lo = -9.2e18; *hi = 9.2e18; break;
	}
}

void fill_input(tensor_inst &t, uint64_t seed, uint32_t k)
{
	uint64_t s = seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(k + 1));
	uint8_t *p = t.gm;
	if (dtype_is_float(t.dtype)) {
		double lo = t.have_range ? t.lo : -1.0, hi = t.have_range ? t.hi : 1.0;
		uint64_t parts = t.dtype == DTYPE_C64 ? 2 * t.elems : t.elems;
		for (uint64_t i = 0; i < parts; i++) {
			double u = (double)(splitmix64(s) >> 11) * 0x1p-53;
			double d = lo + (hi - lo) * u;
			float f = (float)d;
			if (t.dtype == DTYPE_F64) {
				std::memcpy(p + 8 * i, &d, 8);
			} else if (t.dtype == DTYPE_F32 || t.dtype == DTYPE_C64) {
				std::memcpy(p + 4 * i, &f, 4);
			} else {
				uint16_t b = t.dtype == DTYPE_F16 ? float_to_half_bits(f) : float_to_bf16_bits(f);
				std::memcpy(p + 2 * i, &b, 2);
			}
		}
		return;
	}
	double tlo, thi;
	int_limits(t.dtype, &tlo, &thi);
	double lo = t.have_range ? std::ceil(t.lo) : (t.dtype == DTYPE_BOOL ? 0 : -100);
	double hi = t.have_range ? std::floor(t.hi) : (t.dtype == DTYPE_BOOL ? 1 : 100);
	lo = lo < tlo ? tlo : lo;
	hi = hi > thi ? thi : hi;
	if (hi < lo)
		hi = lo;
	int64_t ilo = (int64_t)lo;
	uint64_t span = (uint64_t)((int64_t)hi - ilo) + 1;
	uint32_t sz = dtype_size(t.dtype);
	for (uint64_t i = 0; i < t.elems; i++) {
		uint64_t x = splitmix64(s);
		int64_t v = ilo + (int64_t)(span ? x % span : x);
		std::memcpy(p + sz * i, &v, sz); /* little-endian: low bytes */
	}
}

// Fills an input from its data file, which must hold exactly its bytes.
void read_input_file(tensor_inst &t)
{
	FILE *f = std::fopen(t.data_file.c_str(), "rb");
	uint64_t got = 0;
	if (f) {
		got = std::fread(t.gm, 1, t.bytes, f);
		if (got == t.bytes && std::fgetc(f) != EOF)
			got++; /* longer than the tensor */
		std::fclose(f);
	}
	if (!f || got != t.bytes)
		finish_error("runtime_error", "manifest_mismatch", "", 0,
			     strprintf("input '%s': %s %s, not the %llu bytes of its shape", t.name.c_str(),
				       t.data_file.c_str(), f ? "has another size" : "cannot be read",
				       (unsigned long long)t.bytes));
}

void dump_file(const std::string &path, const void *data, uint64_t bytes)
{
	FILE *f = std::fopen(path.c_str(), "wb");
	if (!f || (bytes && std::fwrite(data, 1, bytes, f) != bytes) || std::fclose(f) != 0)
		finish_error("infra_error", "infra_error", "", 0, "cannot write " + path + ": " + std::strerror(errno));
}

// What the host code hands the kernel's launch, written to OUTDIR/launch.bin
// for the evaluator's launch memo (npu/evaluator.c): the block dim, tiling
// key, schedule mode, atomic flag, workspace sizes, which parameters are
// bound (and a list's length), which outputs the framework initialises, and
// the tiling buffer up to its last non-zero byte (the rest of the buffer is
// the zeroed GM it started as).  Two candidates whose kernel objects are the
// same and whose cases write the same launch.bin run the same kernel on the
// same arguments.  The result names it as "launch_file".
static void write_launch(const gert::TilingContext &tctx, const uint8_t *tiling, uint64_t capacity,
			 const std::vector<io_param> &pin, const std::vector<io_param> &pout,
			 const ops::OpDef *def)
{
	std::string text = strprintf("ascendsim launch 1\nblock_dim %u\ntiling_key %llu\nschedule_mode %u\n"
				     "need_atomic %d\nworkspace",
				     tctx.block_dim_, (unsigned long long)tctx.tiling_key_, tctx.schedule_mode_,
				     tctx.need_atomic_ ? 1 : 0);
	for (size_t s : tctx.workspace_)
		text += strprintf(" %zu", s);
	text += "\n";
	for (const auto *params : {&pin, &pout})
		for (const auto &p : *params)
			text += strprintf("param %s %d %d %zu\n", p.name.c_str(), p.present ? 1 : 0, p.list ? 1 : 0,
					  p.inst.size());
	if (def)
		for (const auto &d : def->outputs_)
			if (d.init_value_)
				text += "init " + d.name_ + "\n";
	uint64_t used = capacity;
	while (used > 0 && tiling[used - 1] == 0)
		used--;
	text += strprintf("tiling %llu\n", (unsigned long long)used);
	text.append(reinterpret_cast<const char *>(tiling), used);
	dump_file(R.out_dir + "/launch.bin", text.data(), text.size());
	R.launch_written = true;
}

// ---- spec parsing ------------------------------------------------------------------

std::vector<int64_t> parse_shape(json_t *a, const std::string &where)
{
	if (!json_is_array(a))
		spec_error(where + ": shape must be an array of integers");
	std::vector<int64_t> s;
	size_t i;
	json_t *d;
	json_array_foreach(a, i, d)
	{
		if (!json_is_integer(d) || json_integer_value(d) < 0)
			spec_error(where + ": shape must be an array of non-negative integers");
		s.push_back(json_integer_value(d));
	}
	return s;
}

uint64_t shape_elems(const std::vector<int64_t> &s)
{
	uint64_t n = 1;
	for (int64_t d : s)
		n *= (uint64_t)d;
	return n;
}

gert::StorageShape to_storage_shape(const std::vector<int64_t> &s)
{
	gert::StorageShape ss;
	for (int64_t d : s) {
		ss.MutableOriginShape().AppendDim(d);
		ss.MutableStorageShape().AppendDim(d);
	}
	return ss;
}

struct spec_tensor {
	std::string name;
	uint8_t dtype = 0;
	bool list = false;
	bool has_shape = false;
	bool ref = false; /* an output: the input of its name, updated in place */
	std::vector<std::vector<int64_t>> shapes;
	std::vector<std::string> data_files; /* "data_files": one per shape, or none */
};

std::vector<spec_tensor> parse_tensors(json_t *spec, const char *field, bool shape_required)
{
	json_t *a = json_object_get(spec, field);
	if (!json_is_array(a))
		spec_error(std::string("'") + field + "' must be an array");
	std::vector<spec_tensor> v;
	size_t i;
	json_t *e;
	json_array_foreach(a, i, e)
	{
		std::string where = strprintf("%s[%zu]", field, i);
		spec_tensor t;
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *dt = json_string_value(json_object_get(e, "dtype"));
		if (!name)
			spec_error(where + ".name is missing");
		if (!dt || !(t.dtype = dtype_from_string(dt)))
			spec_error(where + ".dtype is missing or not one of float16, float32, bfloat16, int8, int16, int32, "
					   "int64, uint8, uint16, uint32, uint64, bool, float64, complex64");
		t.name = name;
		json_t *list = json_object_get(e, "list");
		json_t *shape = json_object_get(e, "shape");
		// A ref output is CANN's ref tensor: the input of its name, which the
		// kernel updates in place; its shapes are the input's.
		json_t *ref = json_object_get(e, "ref");
		if (ref && (!json_is_boolean(ref) || std::strcmp(field, "outputs") != 0))
			spec_error(where + ".ref must be a boolean, on an output");
		t.ref = json_is_true(ref);
		if (t.ref && (list || shape))
			spec_error(where + ": a ref output takes its input's shape and gives none of its own");
		if (t.ref) {
			t.has_shape = true;
		} else if (list) {
			if (!json_is_array(list))
				spec_error(where + ".list must be an array of shapes");
			t.list = true;
			t.has_shape = true;
			size_t j;
			json_t *s;
			json_array_foreach(list, j, s) t.shapes.push_back(parse_shape(s, where + ".list"));
		} else if (shape) {
			t.has_shape = true;
			t.shapes.push_back(parse_shape(shape, where + ".shape"));
		} else if (shape_required) {
			spec_error(where + ".shape is missing");
		}
		// An input's data given as raw little-endian files (an operator's own
		// example data), one per shape; the seeded generator fills the others.
		json_t *files = json_object_get(e, "data_files");
		if (files) {
			size_t j;
			json_t *f;
			if (!json_is_array(files) || json_array_size(files) != t.shapes.size())
				spec_error(where + ".data_files must list one file per shape");
			json_array_foreach(files, j, f)
			{
				if (!json_is_string(f))
					spec_error(where + ".data_files must be file names");
				t.data_files.push_back(json_string_value(f));
			}
		}
		v.push_back(t);
	}
	return v;
}

uint64_t json_u64(json_t *o, const char *key, uint64_t dflt)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return dflt;
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	if (json_is_string(v))
		return std::strtoull(json_string_value(v), nullptr, 0);
	if (json_is_real(v) && json_real_value(v) >= 0)
		return (uint64_t)json_real_value(v);
	spec_error(std::string("'") + key + "' must be an integer");
}

void load_platform(json_t *p)
{
	if (!json_is_object(p))
		spec_error("'platform' must be the platform profile object");
	auto num = [&](json_t *obj, const char *key) -> uint64_t {
		json_t *v = json_object_get(obj, key);
		if (!json_is_integer(v) && !json_is_real(v))
			spec_error(std::string("platform field '") + key + "' is missing or not a number");
		return json_is_integer(v) ? (uint64_t)json_integer_value(v) : (uint64_t)json_real_value(v);
	};
	auto str = [&](json_t *obj, const char *key) -> std::string {
		const char *s = json_string_value(json_object_get(obj, key));
		if (!s)
			spec_error(std::string("platform field '") + key + "' is missing or not a string");
		return s;
	};
	fe::PlatFormInfos &f = g_platform.infos;
	f.soc_version = str(p, "soc_version");
	f.short_soc_version = str(p, "short_soc_version");
	json_t *cores = json_object_get(p, "cores");
	json_t *mem = json_object_get(p, "memory");
	json_t *bw = json_object_get(p, "bandwidth");
	if (!json_is_object(cores) || !json_is_object(mem) || !json_is_object(bw))
		spec_error("platform needs 'cores', 'memory' and 'bandwidth' objects");
	f.aic_cores = (uint32_t)num(cores, "aic");
	f.aiv_cores = (uint32_t)num(cores, "aiv");
	g_platform.ub_total = (uint32_t)num(mem, "ub_total_bytes");
	f.ub_reported = num(mem, "ub_reported_bytes");
	g_platform.ub_init_limit = (uint32_t)num(mem, "ub_init_buffer_limit_bytes");
	f.l1 = num(mem, "l1_bytes");
	f.l0a = num(mem, "l0a_bytes");
	f.l0b = num(mem, "l0b_bytes");
	f.l0c = num(mem, "l0c_bytes");
	f.l2 = num(mem, "l2_bytes");
	f.hbm = num(mem, "hbm_bytes");
	f.system_workspace = num(mem, "system_workspace_bytes");
	f.clock_mhz = (uint32_t)num(p, "clock_mhz");
	double clock_hz = f.clock_mhz * 1e6;
	f.hbm_bw_bytes_per_cycle = (uint64_t)(num(bw, "hbm_peak_bytes_per_s") / clock_hz);
	f.l2_bw_bytes_per_cycle = (uint64_t)(num(bw, "l2_peak_bytes_per_s") / clock_hz);
	json_t *ev = json_object_get(p, "events");
	g_platform.event_ids = ev ? (uint32_t)num(ev, "ids_per_event") : 8;
	g_platform.user_event_ids = ev ? (uint32_t)num(ev, "user_ids_per_event") : 6;
	if (g_platform.ub_total % 32 || g_platform.ub_init_limit > g_platform.ub_total || f.aiv_cores == 0 ||
	    g_platform.event_ids > EVENT_IDS || g_platform.user_event_ids > g_platform.event_ids)
		spec_error("platform figures are inconsistent (UB sizes, core count or event ids)");
	timing_configure(p);
}

// Attribute value from JSON, stored the way RuntimeAttrs hands it out.
bool attr_blob(ops::attr_kind kind, json_t *v, std::vector<uint64_t> &blob)
{
	auto put = [&](const void *p, size_t n) {
		blob.assign((n + 7) / 8 + 1, 0);
		std::memcpy(blob.data(), p, n);
	};
	auto put_list = [&](auto elem_example, json_t *arr, auto conv) -> bool {
		using E = decltype(elem_example);
		if (!json_is_array(arr))
			return false;
		size_t n = json_array_size(arr);
		std::vector<uint8_t> buf(sizeof(gert::TypedContinuousVector<E>) + n * sizeof(E) + 8, 0);
		auto *hdr = reinterpret_cast<gert::TypedContinuousVector<E> *>(buf.data());
		hdr->size_ = n;
		E *data = reinterpret_cast<E *>(hdr + 1);
		for (size_t i = 0; i < n; i++)
			if (!conv(json_array_get(arr, i), &data[i]))
				return false;
		put(buf.data(), buf.size());
		return true;
	};
	switch (kind) {
	case ops::ATTR_INT: {
		if (!json_is_integer(v))
			return false;
		int64_t x = json_integer_value(v);
		put(&x, 8);
		return true;
	}
	case ops::ATTR_FLOAT: {
		if (!json_is_number(v))
			return false;
		float x = (float)json_number_value(v);
		put(&x, 4);
		return true;
	}
	case ops::ATTR_BOOL: {
		if (!json_is_boolean(v))
			return false;
		bool x = json_is_true(v);
		put(&x, 1);
		return true;
	}
	case ops::ATTR_STRING: {
		if (!json_is_string(v))
			return false;
		put(json_string_value(v), json_string_length(v) + 1);
		return true;
	}
	case ops::ATTR_LIST_INT:
		return put_list((int64_t)0, v, [](json_t *e, int64_t *o) {
			return json_is_integer(e) ? (*o = json_integer_value(e), true) : false;
		});
	case ops::ATTR_LIST_FLOAT:
		return put_list(0.0f, v, [](json_t *e, float *o) {
			return json_is_number(e) ? (*o = (float)json_number_value(e), true) : false;
		});
	case ops::ATTR_LIST_BOOL:
		return put_list(false, v, [](json_t *e, bool *o) {
			return json_is_boolean(e) ? (*o = json_is_true(e), true) : false;
		});
	default:
		if (json_is_integer(v))
			return attr_blob(ops::ATTR_INT, v, blob);
		if (json_is_real(v))
			return attr_blob(ops::ATTR_FLOAT, v, blob);
		if (json_is_boolean(v))
			return attr_blob(ops::ATTR_BOOL, v, blob);
		if (json_is_string(v))
			return attr_blob(ops::ATTR_STRING, v, blob);
		if (json_is_array(v) && json_array_size(v) && json_is_real(json_array_get(v, 0)))
			return attr_blob(ops::ATTR_LIST_FLOAT, v, blob);
		if (json_is_array(v))
			return attr_blob(ops::ATTR_LIST_INT, v, blob);
		return false;
	}
}

json_t *attr_default_json(const ops::OpAttrDef &a)
{
	switch (a.kind_) {
	case ops::ATTR_INT: return json_integer(a.i_);
	case ops::ATTR_FLOAT: return json_real(a.f_);
	case ops::ATTR_BOOL: return json_boolean(a.b_);
	case ops::ATTR_STRING: return json_string(a.s_.c_str());
	case ops::ATTR_LIST_INT:
	case ops::ATTR_LIST_BOOL: {
		json_t *l = json_array();
		for (int64_t x : a.li_)
			json_array_append_new(l, a.kind_ == ops::ATTR_LIST_BOOL ? json_boolean(x) : json_integer(x));
		return l;
	}
	case ops::ATTR_LIST_FLOAT: {
		json_t *l = json_array();
		for (float x : a.lf_)
			json_array_append_new(l, json_real(x));
		return l;
	}
	default: return json_null();
	}
}

const char *attr_kind_name(ops::attr_kind k)
{
	static const char *const n[] = {"int", "float", "bool", "string", "list_int", "list_float", "list_bool", "any"};
	return n[k];
}

const char *option_name(ops::Option o)
{
	return o == ops::OPTIONAL ? "optional" : o == ops::DYNAMIC ? "dynamic" : "required";
}

// ---- --describe ---------------------------------------------------------------------

int describe()
{
	json_t *o = json_object();
	json_t *defs = json_array();
	for (auto &e : op_def_registry()) {
		ops::OpDef *d = e.make();
		json_t *j = json_object();
		json_object_set_new(j, "type", json_string(d->type_.c_str()));
		for (int io = 0; io < 2; io++) {
			json_t *a = json_array();
			for (auto &p : io ? d->outputs_ : d->inputs_) {
				json_t *pj = json_object();
				json_object_set_new(pj, "name", json_string(p.name_.c_str()));
				json_object_set_new(pj, "param_type", json_string(option_name(p.param_type_)));
				json_t *dts = json_array();
				for (ge::DataType dt : p.dtypes_) {
					const char *n = nullptr;
					for (uint8_t c = 1; c < DTYPE_COUNT; c++)
						if (dtype_to_ge(c) == dt)
							n = dtype_name(c);
					json_array_append_new(dts, n ? json_string(n) : json_integer(dt));
				}
				json_object_set_new(pj, "dtypes", dts);
				json_array_append_new(a, pj);
			}
			json_object_set_new(j, io ? "outputs" : "inputs", a);
		}
		json_t *attrs = json_array();
		for (auto &a : d->attrs_) {
			json_t *aj = json_object();
			json_object_set_new(aj, "name", json_string(a.name_.c_str()));
			json_object_set_new(aj, "type", json_string(attr_kind_name(a.kind_)));
			json_object_set_new(aj, "required", json_boolean(a.required_));
			if (a.has_default_)
				json_object_set_new(aj, "default", attr_default_json(a));
			json_array_append_new(attrs, aj);
		}
		json_object_set_new(j, "attrs", attrs);
		json_t *socs = json_array();
		for (auto &s : d->aicore_.socs_)
			json_array_append_new(socs, json_string(s.c_str()));
		json_object_set_new(j, "configs", socs);
		json_object_set_new(j, "has_tiling", json_boolean(d->aicore_.tiling_ != nullptr));
		json_object_set_new(j, "has_infer_shape", json_boolean(d->infer_shape_ != nullptr));
		json_array_append_new(defs, j);
		delete d;
	}
	json_object_set_new(o, "op_defs", defs);
	json_t *impls = json_array();
	for (auto &e : op_impl_registry()) {
		json_t *j = json_object();
		json_object_set_new(j, "type", json_string(e.type.c_str()));
		json_object_set_new(j, "has_tiling", json_boolean(e.tiling != nullptr));
		json_object_set_new(j, "has_tiling_parse", json_boolean(e.parse != nullptr));
		json_object_set_new(j, "has_infer_shape", json_boolean(e.infer_shape != nullptr));
		json_array_append_new(impls, j);
	}
	json_object_set_new(o, "op_impls", impls);
	json_t *k = json_object();
	json_object_set_new(k, "expr", g_entry.expr ? json_string(g_entry.expr) : json_null());
	json_object_set_new(k, "gm_args", json_integer(g_entry.arity));
	json_object_set_new(o, "kernel", k);
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	std::fputc('\n', stdout);
	json_decref(o);
	return 0;
}

// ---- signals ------------------------------------------------------------------------

// The operator's host function running now (InferShape, TilingParse, the
// tiling function), so that a crash in it names it instead of the kernel.
static const char *host_function;

void on_fatal_signal(int sig, siginfo_t *si, void *)
{
	const char *name = nullptr;
	srcloc loc;
	last_instruction(&name, &loc);
	const uint8_t *a = (const uint8_t *)si->si_addr;
	if (sig == SIGALRM)
		finish_error("timeout", "timeout", loc.file, loc.line,
			     "the run exceeded its wall-clock limit (max_seconds); the kernel may never finish");
	if (sig == SIGSEGV || sig == SIGBUS) {
		for (const gm_region &r : regions) {
			const uint8_t *guard = r.begin + ((uint64_t)(r.end - r.begin + 4095) & ~4095ULL);
			if (a >= guard && a < guard + 4096)
				finish_error("runtime_error", "out_of_bounds", loc.file, loc.line,
					     strprintf("a raw pointer access %lld bytes past the end of GM buffer '%s' "
						       "(%llu bytes) faulted; last API call: %s",
						       (long long)(a - r.data_end), r.name,
						       (unsigned long long)(r.data_end - r.begin), name ? name : "none"));
		}
	}
	if (host_function && !g_core)
		finish_error("runtime_error", "tiling_error", "", 0,
			     strprintf("%s crashed: %s at address %p%s", host_function, strsignal(sig), si->si_addr,
				       sig == SIGFPE || sig == SIGILL
					       ? " (an integer division by zero, which the compiler may turn into a "
						 "trap, or another undefined operation)"
					       : ""));
	finish_error("runtime_error", "crash", loc.file, loc.line,
		     strprintf("%s at address %p%s; last API call before it: %s at the given line", strsignal(sig),
			       si->si_addr, g_core ? " while a kernel was running" : "", name ? name : "none"));
}

void install_signals()
{
	static uint8_t altstack[1 << 16];
	stack_t ss{};
	ss.ss_sp = altstack;
	ss.ss_size = sizeof altstack;
	sigaltstack(&ss, nullptr);
	struct sigaction sa{};
	sa.sa_sigaction = on_fatal_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM})
		sigaction(s, &sa, nullptr);
}

// The GM table a dynamic input or output is passed as (see ListTensorDesc).
uint8_t *make_list_table(const std::string &name, const std::vector<int> &inst, std::vector<tensor_inst> &all)
{
	std::vector<uint64_t> words;
	words.push_back(0);
	words.push_back(inst.size());
	for (int k : inst) {
		words.push_back(all[k].shape.size());
		for (int64_t d : all[k].shape)
			words.push_back((uint64_t)d);
	}
	words[0] = words.size() * 8;
	for (int k : inst)
		words.push_back((uint64_t)(uintptr_t)all[k].gm);
	uint8_t *t = gm_alloc(words.size() * 8, name + " (list table)");
	std::memcpy(t, words.data(), words.size() * 8);
	return t;
}

} // namespace

int harness_main(int argc, char **argv)
{
	if (argc == 2 && std::strcmp(argv[1], "--describe") == 0)
		return describe();
	if (argc != 3) {
		std::fprintf(stderr, "usage: %s SPEC.json OUTDIR\n       %s --describe\n", argv[0], argv[0]);
		return 64;
	}
	R.out_dir = argv[2];
	json_error_t jerr;
	json_t *spec = json_load_file(argv[1], 0, &jerr);
	if (!spec)
		spec_error(strprintf("%s:%d: %s", argv[1], jerr.line, jerr.text));
	const char *op = json_string_value(json_object_get(spec, "op"));
	if (!op)
		spec_error("'op' (the OpDef name) is missing");
	R.op = op;
	const char *kexpr = json_string_value(json_object_get(spec, "kernel"));
	R.kernel = kexpr ? kexpr : (g_entry.expr ? g_entry.expr : "");
	R.seed = json_u64(spec, "seed", 0);
	json_t *as = json_object_get(spec, "auto_sync");
	g_run.auto_sync = as ? json_is_true(as) : true;
	g_run.track_sync = !g_run.auto_sync;
	g_run.instruction_budget = json_u64(spec, "max_instructions", 4000000000ULL);
	g_run.gm_budget = json_u64(spec, "max_gm_bytes", UINT64_MAX);
	uint64_t max_seconds = json_u64(spec, "max_seconds", 0);
	const char *trace_path = json_string_value(json_object_get(spec, "trace_path"));
	if (trace_path)
		timing_set_trace(trace_path, json_u64(spec, "trace_max_events", 1000000));
	json_t *jit = json_object_get(spec, "jitter_pct");
	if (jit && (!json_is_number(jit) || json_number_value(jit) < 0 || json_number_value(jit) >= 100))
		spec_error("'jitter_pct' must be a number in [0, 100)");
	double jitter = jit ? json_number_value(jit) : 0;
	uint64_t samples = json_u64(spec, "samples", jitter > 0 ? 5 : 1);
	if (samples < 1 || samples > 1000)
		spec_error("'samples' must be 1..1000");
	timing_set_jitter(jitter, json_u64(spec, "jitter_seed", 0), (uint32_t)samples);
	json_t *slow = json_object_get(spec, "slow_after_us");
	if (slow && (!json_is_number(slow) || json_number_value(slow) < 0))
		spec_error("'slow_after_us' must be a number >= 0");
	timing_set_slow_limit(slow ? json_number_value(slow) : 0);
	json_t *dump = json_object_get(spec, "dump_inputs");
	bool dump_inputs = dump ? json_is_true(dump) : true;
	bool tiling_only = json_is_true(json_object_get(spec, "tiling_only"));
	json_t *perm = json_object_get(spec, "permissive");
	if (perm) {
		size_t i;
		json_t *v;
		json_array_foreach(perm, i, v) if (json_is_string(v)) R.permissive.push_back(json_string_value(v));
	}
	load_platform(json_object_get(spec, "platform"));
	g_run.ub_limit = g_platform.ub_init_limit;
	g_run.event_ids = g_platform.event_ids;
	g_run.user_event_ids = g_platform.user_event_ids;
	g_run.system_workspace = g_platform.infos.system_workspace;
	g_run.op_name = R.op.c_str();
	std::vector<spec_tensor> sin = parse_tensors(spec, "inputs", true);
	std::vector<spec_tensor> sout = parse_tensors(spec, "outputs", false);
	json_t *sattrs = json_object_get(spec, "attrs");
	json_t *ranges = json_object_get(spec, "input_ranges");

	install_signals();
	if (max_seconds)
		alarm((unsigned)max_seconds);
	srcloc none(loc_tag(), "", 0);

	if (!g_entry.fn && !tiling_only)
		finish_error("runtime_error", "manifest_mismatch", "", 0,
			     "no kernel entry was registered (the glue file's ASCENDSIM_KERNEL_ENTRY)");

	// The operator definition, if its host source has one.
	ops::OpDef *def = nullptr;
	for (auto &e : op_def_registry())
		if (e.type == R.op)
			def = e.make();
	const op_impl_entry *impl = nullptr;
	for (auto &e : op_impl_registry())
		if (e.type == R.op)
			impl = &e;
	if (!def && !impl) {
		std::string known;
		for (auto &e : op_def_registry())
			known += " " + e.type;
		finish_error("runtime_error", "manifest_mismatch", "", 0,
			     "no OpDef (OP_ADD) or IMPL_OP_OPTILING named '" + R.op + "' is registered; found:" +
				 (known.empty() ? std::string(" none") : known));
	}
	if (def && !def->aicore_.socs_.empty()) {
		bool ok = false;
		for (auto &s : def->aicore_.socs_)
			ok |= s == g_platform.infos.short_soc_version;
		if (!ok)
			finish_error("unsupported", "unsupported", "", 0,
				     "the OpDef has no AddConfig(\"" + g_platform.infos.short_soc_version + "\")");
	}

	// Parameters in OpDef order (or spec order without an OpDef).
	std::vector<io_param> pin, pout;
	auto bind = [&](std::vector<io_param> &params, std::vector<spec_tensor> &st, const std::deque<ops::OpParamDef> *defs,
			const char *what) {
		if (defs) {
			for (auto &d : *defs) {
				io_param p;
				p.name = d.name_;
				p.list = d.param_type_ == ops::DYNAMIC;
				params.push_back(p);
			}
			for (auto &t : st) {
				bool found = false;
				for (size_t i = 0; i < params.size(); i++) {
					if (params[i].name != t.name)
						continue;
					found = true;
					if (t.list != params[i].list && !t.ref)
						finish_error("runtime_error", "manifest_mismatch", "", 0,
							     strprintf("%s '%s' is %s in the OpDef but %s in the spec", what,
								       t.name.c_str(), params[i].list ? "dynamic" : "not dynamic",
								       t.list ? "a list" : "a single tensor"));
					const ops::OpParamDef &d = (*defs)[i];
					if (!d.dtypes_.empty()) {
						bool listed = false;
						for (ge::DataType dt : d.dtypes_)
							listed |= dt == dtype_to_ge(t.dtype);
						if (!listed)
							warn(none, "the OpDef's %s '%s' does not list dtype %s", what, t.name.c_str(),
							     dtype_name(t.dtype));
					}
				}
				// a ref output the OpDef does not declare (an operator that
				// declares no outputs) takes no argument: its input is read back
				if (!found && !t.ref)
					finish_error("runtime_error", "manifest_mismatch", "", 0,
						     strprintf("the spec names %s '%s', which the OpDef of %s does not declare", what,
							       t.name.c_str(), R.op.c_str()));
			}
			for (size_t i = 0; i < params.size(); i++) {
				bool given = false;
				for (auto &t : st)
					given |= t.name == params[i].name;
				if (!given && (*defs)[i].param_type_ == ops::REQUIRED)
					finish_error("runtime_error", "manifest_mismatch", "", 0,
						     strprintf("required %s '%s' of %s is missing from the spec", what,
							       params[i].name.c_str(), R.op.c_str()));
			}
		} else {
			for (auto &t : st) {
				io_param p;
				p.name = t.name;
				p.list = t.list;
				params.push_back(p);
			}
		}
	};
	bind(pin, sin, def ? &def->inputs_ : nullptr, "input");
	bind(pout, sout, def ? &def->outputs_ : nullptr, "output");

	// Instances of inputs.
	host_io io;
	io.platform = &g_platform.infos;
	io.node_name = R.op;
	io.node_type = R.op;
	for (auto &p : pin) {
		io.in_ir_first.push_back((int)R.inputs.size());
		for (auto &t : sin) {
			if (t.name != p.name)
				continue;
			p.present = true;
			p.dtype = t.dtype;
			for (size_t j = 0; j < t.shapes.size(); j++) {
				tensor_inst ti;
				ti.name = t.name;
				ti.index = t.list ? (int)j : -1;
				ti.dtype = t.dtype;
				ti.shape = t.shapes[j];
				ti.elems = shape_elems(ti.shape);
				ti.bytes = ti.elems * dtype_size(ti.dtype);
				if (j < t.data_files.size())
					ti.data_file = t.data_files[j];
				json_t *rg = ranges ? json_object_get(ranges, t.name.c_str()) : nullptr;
				if (rg) {
					if (!json_is_array(rg) || json_array_size(rg) != 2 ||
					    !json_is_number(json_array_get(rg, 0)) || !json_is_number(json_array_get(rg, 1)))
						spec_error("input_ranges." + t.name + " must be [lo, hi]");
					ti.have_range = true;
					ti.lo = json_number_value(json_array_get(rg, 0));
					ti.hi = json_number_value(json_array_get(rg, 1));
				}
				p.inst.push_back((int)R.inputs.size());
				R.inputs.push_back(ti);
			}
		}
		io.in_ir_count.push_back((int)R.inputs.size() - io.in_ir_first.back());
	}
	for (auto &ti : R.inputs) {
		io.in_shapes.push_back(to_storage_shape(ti.shape));
		gert::CompileTimeTensorDesc d;
		d.dtype_ = dtype_to_ge(ti.dtype);
		io.in_desc.push_back(d);
	}

	// Attributes in OpDef order.
	if (def) {
		for (auto &a : def->attrs_) {
			json_t *v = sattrs ? json_object_get(sattrs, a.name_.c_str()) : nullptr;
			json_t *owned = nullptr;
			if (!v && a.has_default_)
				v = owned = attr_default_json(a);
			std::vector<uint64_t> blob;
			if (v) {
				if (!R.attrs)
					R.attrs = json_object();
				json_object_set(R.attrs, a.name_.c_str(), v);
			}
			if (!v) {
				if (a.required_)
					finish_error("runtime_error", "manifest_mismatch", "", 0,
						     "required attribute '" + a.name_ + "' has no value in the spec and no default");
			} else if (!attr_blob(a.kind_, v, blob)) {
				finish_error("runtime_error", "manifest_mismatch", "", 0,
					     strprintf("attribute '%s' must be of type %s", a.name_.c_str(), attr_kind_name(a.kind_)));
			}
			if (owned)
				json_decref(owned);
			io.attrs.blobs_.push_back(blob);
		}
		if (sattrs) {
			const char *k;
			json_t *v;
			json_object_foreach(sattrs, k, v)
			{
				bool known = false;
				for (auto &a : def->attrs_)
					known |= a.name_ == k;
				if (!known)
					warn(none, "the spec sets attribute '%s', which the OpDef does not declare", k);
			}
		}
	} else if (sattrs) {
		R.attrs = json_incref(sattrs);
		const char *k;
		json_t *v;
		json_object_foreach(sattrs, k, v)
		{
			std::vector<uint64_t> blob;
			if (!attr_blob(ops::ATTR_NONE, v, blob))
				spec_error(std::string("attrs.") + k + " has an unsupported type");
			io.attrs.blobs_.push_back(blob);
		}
	}

	// Inputs: allocate, fill, dump.
	for (size_t k = 0; k < R.inputs.size(); k++) {
		tensor_inst &t = R.inputs[k];
		t.gm = gm_alloc(t.bytes, t.index >= 0 ? strprintf("%s[%d]", t.name.c_str(), t.index) : t.name);
		if (t.data_file.empty())
			fill_input(t, R.seed, (uint32_t)k);
		else
			read_input_file(t);
		t.file = t.index >= 0 ? strprintf("in_%s_%d.bin", t.name.c_str(), t.index) : "in_" + t.name + ".bin";
		if (dump_inputs)
			dump_file(R.out_dir + "/" + t.file, t.gm, t.bytes);
		gert::Tensor gt;
		gt.shape_ = io.in_shapes[k];
		gt.dtype_ = dtype_to_ge(t.dtype);
		gt.data_ = t.gm;
		gt.size_ = t.bytes;
		io.in_tensors.push_back(gt);
	}
	R.inputs_dumped = dump_inputs;

	// Output shapes: from the spec, else from the operator's InferShape.
	bool need_infer = false;
	for (auto &t : sout)
		need_infer |= !t.has_shape && !t.ref;
	std::vector<gert::Shape> inferred;
	if (need_infer) {
		gert::InferShapeKernelFunc fn = def && def->infer_shape_ ? def->infer_shape_ : impl ? impl->infer_shape : nullptr;
		if (!fn)
			finish_error("runtime_error", "manifest_mismatch", "", 0,
				     "an output has no shape in the spec and the operator registers no InferShape");
		gert::InferShapeContext ictx;
		ictx.io_ = &io;
		ictx.out_.resize(pout.size());
		host_function = "InferShape";
		ge::graphStatus inferred_ok = fn(&ictx);
		host_function = nullptr;
		if (inferred_ok != ge::GRAPH_SUCCESS)
			finish_error("runtime_error", "tiling_error", "", 0, "InferShape returned a failure");
		inferred = ictx.out_;
	}
	// A ref output's instances are its input's, sharing their GM buffers.
	auto ref_instances = [&](const spec_tensor &t) {
		const io_param *in = nullptr;
		for (auto &q : pin)
			if (q.name == t.name)
				in = &q;
		if (!in || !in->present)
			finish_error("runtime_error", "manifest_mismatch", "", 0,
				     strprintf("ref output '%s' names no input given in the spec (it is the input of its "
					       "name, updated in place)",
					       t.name.c_str()));
		if (in->dtype != t.dtype)
			finish_error("runtime_error", "manifest_mismatch", "", 0,
				     strprintf("ref output '%s' is %s but its input is %s", t.name.c_str(),
					       dtype_name(t.dtype), dtype_name(in->dtype)));
		std::vector<int> made;
		for (int k : in->inst) {
			tensor_inst to = R.inputs[k];
			to.ref = true;
			to.data_file.clear();
			made.push_back((int)R.outputs.size());
			R.outputs.push_back(to);
		}
		return made;
	};
	for (size_t i = 0; i < pout.size(); i++) {
		auto &p = pout[i];
		io.out_ir_first.push_back((int)R.outputs.size());
		for (auto &t : sout) {
			if (t.name != p.name)
				continue;
			p.present = true;
			p.dtype = t.dtype;
			if (t.ref) {
				p.inst = ref_instances(t);
				continue;
			}
			std::vector<std::vector<int64_t>> shapes = t.shapes;
			if (!t.has_shape) {
				std::vector<int64_t> s;
				for (size_t d = 0; d < inferred[i].GetDimNum(); d++)
					s.push_back(inferred[i].GetDim(d));
				shapes.push_back(s);
			}
			for (size_t j = 0; j < shapes.size(); j++) {
				tensor_inst to;
				to.name = t.name;
				to.index = t.list ? (int)j : -1;
				to.dtype = t.dtype;
				to.shape = shapes[j];
				to.elems = shape_elems(to.shape);
				to.bytes = to.elems * dtype_size(to.dtype);
				p.inst.push_back((int)R.outputs.size());
				R.outputs.push_back(to);
			}
		}
		io.out_ir_count.push_back((int)R.outputs.size() - io.out_ir_first.back());
	}
	for (auto &to : R.outputs) {
		io.out_shapes.push_back(to_storage_shape(to.shape));
		gert::CompileTimeTensorDesc d;
		d.dtype_ = dtype_to_ge(to.dtype);
		io.out_desc.push_back(d);
	}
	// Ref outputs the OpDef does not declare: no argument, read back after the run.
	for (auto &t : sout) {
		bool bound = false;
		for (auto &p : pout)
			bound |= p.name == t.name;
		if (t.ref && !bound)
			ref_instances(t);
	}

	// Compile info (IMPL_OP_OPTILING(...).TilingParse<T>).
	void *compile_info = nullptr;
	if (impl && impl->parse) {
		compile_info = impl->make_compile_info();
		gert::TilingParseContext pctx;
		pctx.compile_info_ = compile_info;
		pctx.platform_ = &g_platform.infos;
		pctx.node_name_ = io.node_name;
		pctx.node_type_ = io.node_type;
		host_function = "the TilingParse function";
		ge::graphStatus parsed = impl->parse(&pctx);
		host_function = nullptr;
		if (parsed != ge::GRAPH_SUCCESS)
			finish_error("runtime_error", "tiling_error", "", 0, "the TilingParse function returned a failure");
	}
	io.compile_info = compile_info;

	// Tiling.
	const uint64_t tiling_capacity = 64 * 1024;
	uint8_t *tiling_gm = gm_alloc(tiling_capacity, "tiling");
	gert::TilingContext tctx;
	tctx.io_ = &io;
	tctx.raw_.data_ = tiling_gm;
	tctx.raw_.capacity_ = tiling_capacity;
	gert::TilingKernelFunc tiling = def && def->aicore_.tiling_ ? def->aicore_.tiling_ : impl ? impl->tiling : nullptr;
	if (!tiling)
		finish_error("runtime_error", "tiling_error", "", 0,
			     "no tiling function: neither AICore().SetTiling nor IMPL_OP_OPTILING(...).Tiling registers one");
	host_function = "the tiling function";
	ge::graphStatus st = tiling(&tctx);
	host_function = nullptr;
	if (st != ge::GRAPH_SUCCESS)
		finish_error("runtime_error", "tiling_error", "", 0,
			     strprintf("the tiling function returned %u instead of GRAPH_SUCCESS", st));
	if (!tctx.block_dim_set_ || tctx.block_dim_ == 0 || tctx.block_dim_ > 65535)
		finish_error("runtime_error", "tiling_error", "", 0,
			     tctx.block_dim_set_ ? strprintf("SetBlockDim(%u) is outside 1..65535", tctx.block_dim_)
						 : std::string("the tiling function never called SetBlockDim"));
	if (tctx.raw_.size_ > tiling_capacity)
		finish_error("runtime_error", "tiling_error", "", 0,
			     strprintf("tiling data size %zu exceeds the %llu-byte capacity", tctx.raw_.size_,
				       (unsigned long long)tiling_capacity));
	if (tctx.raw_.size_ == 0)
		warn(none, "the tiling function saved no tiling data (SetDataSize was never called or was 0)");
	uint64_t ws = 0;
	for (size_t s : tctx.workspace_)
		ws += s;
	write_launch(tctx, tiling_gm, tiling_capacity, pin, pout, def);
	R.tiled = true;
	R.block_dim = tctx.block_dim_;
	R.tiling_key = tctx.tiling_key_;
	R.workspace = ws;
	g_run.tiling_key = tctx.tiling_key_;
	g_run.tiling_bytes = (uint32_t)tctx.raw_.size_;
	if (tiling_only) {
		R.op_only_tiled = true;
		write_result("ok", nullptr, nullptr, 0, "");
		std::fflush(stdout);
		std::exit(0); /* not _exit: gcov's counts are written at exit */
	}

	// Outputs, workspace, and the argument vector.  An output that is not a
	// ref tracks which of its bytes the kernel writes; one the OpDef gives an
	// InitValue is filled by the framework before the launch, so all of it is
	// written (the simulator's GM starts zeroed, which is the common value).
	for (auto &to : R.outputs) {
		if (!to.ref) {
			to.gm = gm_alloc(to.bytes, to.index >= 0 ? strprintf("%s[%d]", to.name.c_str(), to.index) : to.name);
			gm_region &reg = regions.back();
			reg.written = written_bitmap_new(to.bytes);
			if (!reg.written)
				finish_error("infra_error", "infra_error", "", 0,
					     strprintf("cannot map the written-bytes bitmap of output %s", to.name.c_str()));
			if (def)
				for (auto &d : def->outputs_)
					if (d.name_ == to.name && d.init_value_)
						gm_mark_all_written(&reg);
		}
		to.file = to.index >= 0 ? strprintf("out_%s_%d.bin", to.name.c_str(), to.index) : "out_" + to.name + ".bin";
	}
	uint8_t *ws_gm = gm_alloc(ws, "workspace");
	std::vector<uint8_t *> args;
	for (auto *params : {&pin, &pout}) {
		std::vector<tensor_inst> &all = params == &pin ? R.inputs : R.outputs;
		for (auto &p : *params) {
			if (!p.present)
				args.push_back(nullptr);
			else if (p.list)
				args.push_back(make_list_table(p.name, p.inst, all));
			else
				args.push_back(all[p.inst[0]].gm);
		}
	}
	size_t n_io = args.size();
	if ((size_t)g_entry.arity == n_io + 2) {
		args.push_back(ws_gm);
		args.push_back(tiling_gm);
	} else if ((size_t)g_entry.arity == n_io + 1) {
		args.push_back(tiling_gm);
	} else {
		finish_error("runtime_error", "manifest_mismatch", g_entry.file, 0,
			     strprintf("kernel %s takes %d GM_ADDR arguments but %s has %zu inputs and outputs, so it should "
				       "take %zu (..., workspace, tiling)",
				       g_entry.expr, g_entry.arity, R.op.c_str(), n_io, n_io + 2));
	}

	launch_kernel(R.block_dim, g_platform.infos.aiv_cores, args.data());

	for (auto &to : R.outputs) {
		dump_file(R.out_dir + "/" + to.file, to.gm, to.bytes);
		const gm_region *reg = to.ref ? nullptr : gm_find(to.gm);
		if (reg && reg->written)
			to.written = written_summarize(reg->written, to.elems, dtype_size(to.dtype), R.out_dir,
						       to.index >= 0 ? strprintf("written_%s_%d.bits", to.name.c_str(), to.index)
								     : "written_" + to.name + ".bits");
	}
	R.outputs_dumped = true;
	write_result("ok", nullptr, nullptr, 0, "");
	std::fflush(stdout);
	_exit(0);
}

} // namespace ascendsim
