/* SPDX-License-Identifier: MIT */
/*
 * Goldens: checking the simulator's outputs against the operator authors'
 * own oracle (docs/manifest.md, "Goldens").  A case's golden is either an msOpSt
 * expectation function (tests/st/test_*.py, "calc_expect_func_file"),
 * called on the inputs the simulator ran, or an example's gen_data.py,
 * whose input files the simulator reads instead of its seeded inputs and
 * whose golden.bin it is compared with.  The operator's Python runs in the
 * sandbox, in a scratch directory under the evaluation's work directory,
 * with a time limit; a golden that needs a module that is not installed
 * (TensorFlow, ONNX) is "unavailable", counted and not failed.
 */
#include "golden.h"
#include "inputs.h"
#include "sim-run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GOLDEN_TIMEOUT_S 300
#define GOLDEN_MAX_BYTES (4ull << 30)

/* The runner the sandboxed Python executes; see the job fields below. */
static const char runner_py[] =
    "# ascendopt's golden runner (npu/golden.c writes it into a scratch directory\n"
    "# and runs it in the sandbox): one JSON job in argv[1], one JSON answer in\n"
    "# golden-answer.json in the working directory.\n"
    "import importlib.util, inspect, json, os, runpy, sys, traceback\n"
    "\n"
    "def answer(doc):\n"
    "    with open(\"golden-answer.json\", \"w\") as f:\n"
    "        json.dump(doc, f)\n"
    "    sys.exit(0)\n"
    "\n"
    "def missing_module(e):\n"
    "    name = getattr(e, \"name\", None) or str(e)\n"
    "    return {\"status\": \"unavailable\",\n"
    "            \"why\": \"the golden imports %s, which is not installed\" % name}\n"
    "\n"
    "def failed(where):\n"
    "    last = traceback.format_exc().strip().splitlines()[-1]\n"
    "    return {\"status\": \"unavailable\", \"why\": \"%s failed: %s\" % (where, last[:400])}\n"
    "\n"
    "job = json.load(open(sys.argv[1]))\n"
    "try:\n"
    "    import numpy as np\n"
    "except ImportError as e:\n"
    "    answer(missing_module(e))\n"
    "\n"
    "NP = {\"float16\": \"float16\", \"float32\": \"float32\", \"int8\": \"int8\", \"int16\": "
    "\"int16\",\n"
    "      \"int32\": \"int32\", \"int64\": \"int64\", \"uint8\": \"uint8\", \"uint16\": "
    "\"uint16\",\n"
    "      \"uint32\": \"uint32\", \"bool\": \"bool\", \"uint64\": \"uint64\",\n"
    "      \"float64\": \"float64\", \"complex64\": \"complex64\"}\n"
    "\n"
    "def to_bf16_bits(a):\n"
    "    # float32 to bfloat16, rounding to nearest even; NaN stays NaN\n"
    "    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)\n"
    "    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))\n"
    "    out = (rounded >> np.uint32(16)).astype(np.uint16)\n"
    "    nan = np.isnan(a.astype(np.float32))\n"
    "    out[nan] = np.uint16(0x7FC0)\n"
    "    return out\n"
    "\n"
    "def read(path, dtype, shape):\n"
    "    if dtype == \"bfloat16\":\n"
    "        raw = np.fromfile(path, dtype=np.uint16).astype(np.uint32) << np.uint32(16)\n"
    "        data = raw.view(np.float32)\n"
    "    else:\n"
    "        data = np.fromfile(path, dtype=NP[dtype])\n"
    "    return data.reshape(shape)\n"
    "\n"
    "def write(path, value, dtype):\n"
    "    if hasattr(value, \"detach\"):  # a torch tensor\n"
    "        value = value.detach().cpu()\n"
    "        if str(value.dtype) == \"torch.bfloat16\":\n"
    "            value = value.float()\n"
    "        value = value.numpy()\n"
    "    a = np.asarray(value)\n"
    "    if dtype == \"bfloat16\":\n"
    "        to_bf16_bits(a.astype(np.float32)).tofile(path)\n"
    "    else:\n"
    "        a.astype(NP[dtype]).tofile(path)\n"
    "    return int(a.size)\n"
    "\n"
    "def run_function():\n"
    "    path, name = job[\"file\"], job[\"function\"]\n"
    "    sys.path.insert(0, os.path.dirname(path))\n"
    "    try:\n"
    "        spec = importlib.util.spec_from_file_location(\"ascendopt_golden_module\", path)\n"
    "        module = importlib.util.module_from_spec(spec)\n"
    "        spec.loader.exec_module(module)\n"
    "    except ImportError as e:\n"
    "        answer(missing_module(e))\n"
    "    except BaseException:\n"
    "        answer(failed(\"importing %s\" % os.path.basename(path)))\n"
    "    fn = getattr(module, name, None)\n"
    "    if not callable(fn):\n"
    "        answer({\"status\": \"unavailable\", \"why\": \"%s has no function %s\" % "
    "(os.path.basename(path), name)})\n"
    "    given = {}\n"
    "    for t in job[\"inputs\"]:\n"
    "        if t.get(\"absent\"):  # an optional input the case leaves out\n"
    "            given[t[\"arg\"]] = None\n"
    "            continue\n"
    "        value = [read(f, t[\"dtype\"], s) for f, s in zip(t[\"files\"], t[\"shapes\"])]\n"
    "        value = value if t.get(\"list\") else value[0]\n"
    "        given[t[\"arg\"]] = {\"value\": value, \"dtype\": t[\"dtype\"], \"shape\": "
    "t[\"shapes\"][0],\n"
    "                           \"ori_shape\": t[\"shapes\"][0], \"format\": \"ND\", "
    "\"ori_format\": \"ND\",\n"
    "                           \"param_type\": \"input\"}\n"
    "    for t in job[\"outputs\"]:\n"
    "        # a ref output is its input, which keeps its value\n"
    "        given.setdefault(t[\"arg\"], {\"value\": None, \"dtype\": t[\"dtype\"], \"shape\": "
    "t[\"shapes\"][0],\n"
    "                           \"ori_shape\": t[\"shapes\"][0], \"format\": \"ND\", "
    "\"ori_format\": \"ND\",\n"
    "                           \"param_type\": \"output\"})\n"
    "    given.update(job.get(\"attrs\", {}))\n"
    "    kwargs, params = given, inspect.signature(fn).parameters\n"
    "    if not any(p.kind == p.VAR_KEYWORD for p in params.values()):\n"
    "        kwargs = {k: v for k, v in given.items() if k in params}\n"
    "        for p in params.values():\n"
    "            if p.name not in kwargs and p.default is p.empty and \\\n"
    "               p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):\n"
    "                answer({\"status\": \"unavailable\",\n"
    "                        \"why\": \"the golden's parameter %s names no input, output or "
    "attribute of the case\" % p.name})\n"
    "    try:\n"
    "        got = fn(**kwargs)\n"
    "    except ImportError as e:\n"
    "        answer(missing_module(e))\n"
    "    except BaseException:\n"
    "        answer(failed(\"%s\" % name))\n"
    "    if isinstance(got, dict):\n"
    "        got = [got.get(t[\"arg\"]) for t in job[\"outputs\"]]\n"
    "    elif not isinstance(got, (list, tuple)):\n"
    "        got = [got]\n"
    "    outputs = []\n"
    "    for t, value in zip(job[\"outputs\"], got):\n"
    "        if value is None:\n"
    "            continue\n"
    "        f = \"golden_%s.bin\" % t[\"name\"]\n"
    "        try:\n"
    "            n = write(f, value, t[\"dtype\"])\n"
    "        except BaseException:\n"
    "            answer(failed(\"writing the golden's output %s\" % t[\"name\"]))\n"
    "        outputs.append({\"name\": t[\"name\"], \"files\": [os.path.abspath(f)], \"elements\": "
    "n})\n"
    "    answer({\"status\": \"ok\", \"outputs\": outputs, \"returned\": len(got)})\n"
    "\n"
    "def run_example():\n"
    "    for name, v in job.get(\"values\", {}).items():\n"
    "        write(v[\"file\"], np.array(v[\"values\"], dtype=np.float64), v[\"dtype\"])\n"
    "    directory = job[\"example\"]\n"
    "    sys.path.insert(0, directory)\n"
    "    sys.argv = [os.path.join(directory, \"gen_data.py\")]\n"
    "    try:\n"
    "        runpy.run_path(sys.argv[0], run_name=\"__main__\")\n"
    "    except ImportError as e:\n"
    "        answer(missing_module(e))\n"
    "    except SystemExit as e:\n"
    "        if e.code not in (None, 0):\n"
    "            answer({\"status\": \"unavailable\", \"why\": \"gen_data.py exited with %s\" % "
    "e.code})\n"
    "    except BaseException:\n"
    "        answer(failed(\"gen_data.py\"))\n"
    "    files = {}\n"
    "    for root, _, names in os.walk(\".\"):\n"
    "        for n in names:\n"
    "            p = os.path.relpath(os.path.join(root, n), \".\")\n"
    "            if n.endswith(\".bin\") or n.endswith(\".npy\"):\n"
    "                files[p] = os.path.getsize(p)\n"
    "    # small files whose values init takes (attributes, shapes, int arrays)\n"
    "    contents = {}\n"
    "    for p, dtype in job.get(\"read\", {}).items():\n"
    "        if p in files and dtype in NP and files[p] <= 65536 * 8:\n"
    "            contents[p] = np.fromfile(p, dtype=NP[dtype]).tolist()\n"
    "    answer({\"status\": \"ok\", \"files\": files, \"contents\": contents})\n"
    "\n"
    "def run_fuzz():\n"
    "    # an msOpSt fuzz_impl: the shapes and attributes it draws for a case\n"
    "    sys.path.insert(0, os.path.dirname(job[\"file\"]))\n"
    "    try:\n"
    "        spec = importlib.util.spec_from_file_location(\"ascendopt_fuzz_module\", "
    "job[\"file\"])\n"
    "        module = importlib.util.module_from_spec(spec)\n"
    "        spec.loader.exec_module(module)\n"
    "        drawn = getattr(module, job[\"function\"])()\n"
    "    except ImportError as e:\n"
    "        answer(missing_module(e))\n"
    "    except BaseException:\n"
    "        answer(failed(job[\"function\"]))\n"
    "    def plain(v):\n"
    "        return v.tolist() if hasattr(v, \"tolist\") else v\n"
    "    out = {}\n"
    "    for part in (\"input_desc\", \"output_desc\"):\n"
    "        out[part] = {k: {\"shape\": [int(d) for d in plain(v.get(\"shape\", []))]}\n"
    "                     for k, v in (drawn.get(part) or {}).items() if isinstance(v, dict)}\n"
    "    out[\"attr\"] = {k: plain(v.get(\"value\") if isinstance(v, dict) else v)\n"
    "                   for k, v in (drawn.get(\"attr\") or {}).items()}\n"
    "    answer({\"status\": \"ok\", \"drawn\": out})\n"
    "\n"
    "{\"function\": run_function, \"example\": run_example, \"fuzz\": run_fuzz}[job[\"mode\"]]()\n";

struct golden_case {
        size_t index; /* into the manifest's cases */
        char dir[PATH_MAX];
        json_t *verdict; /* {case, verdict, ...} once known */
        json_t *inputs;  /* example: {input: [paths]} the simulator reads */
};

struct npu_golden {
        struct child_runner *runner;
        const struct npu_manifest *manifest;
        struct npu_golden_options options;
        char work_dir[PATH_MAX]; /* options.work_dir without links in its path */
        struct golden_case *cases;
        size_t n_cases, next;
        json_t *input_files; /* {case: {input: [paths]}} */
        json_t *result;      /* borrowed, during the check */
        bool checking;
        bool cancelled;      /* npu_golden_cancel: no more jobs start */
        struct child *child; /* the job in flight, or NULL */
        npu_golden_done_fn done;
        void *userdata;
};

static const char *python_program(void)
{
        const char *env = getenv("ASCENDOPT_PYTHON");

        if (env && *env)
                return env;
        /* Debian's, where install-deps puts numpy and torch, ahead of any other on PATH */
        return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

bool npu_manifest_has_golden(const struct npu_manifest *m)
{
        for (size_t i = 0; i < m->n_cases; i++)
                if (m->cases[i].golden)
                        return true;
        return false;
}

static bool case_selected(const struct npu_golden_options *o, const struct npu_manifest *m,
                          size_t i)
{
        if (o->only_case >= 0)
                return (size_t)o->only_case == i;
        return !(o->skip_bench && m->cases[i].bench);
}

static json_t *unavailable(const struct npu_case *c, const char *why)
{
        return json_pack("{s:s, s:s, s:s}", "case", c->name, "verdict", "unavailable", "why", why);
}

static const char *golden_source(const json_t *golden, char *buf, size_t size)
{
        const char *function = json_string_value(json_object_get(golden, "function"));

        if (function)
                snprintf(buf, size, "msOpSt %s", function);
        else
                snprintf(buf, size, "example %s",
                         json_string_value(json_object_get(golden, "example")));
        return buf;
}

/* The runner goes into each case's directory: the only one its sandbox can see. */
static int write_runner(const char *dir)
{
        char path[PATH_MAX];

        if (format_path(path, sizeof(path), "%s/ascendopt_golden.py", dir) < 0)
                return -ENAMETOOLONG;
        /* the directory is one sandboxed children write: never through a link left there */
        return write_file_exclusive(path, runner_py, strlen(runner_py), 0644);
}

/* A JSON object a sandboxed child wrote, read without following links; NULL otherwise. */
static json_t *load_untrusted_json(const char *path)
{
        char *text = NULL;
        size_t len;
        json_t *j = NULL;

        if (read_untrusted_file(path, 64u << 20, &text, &len) == 0)
                j = json_loadb(text, len, 0, NULL);
        free(text);
        if (j && !json_is_object(j)) {
                json_decref(j);
                j = NULL;
        }
        return j;
}

int npu_golden_new(struct child_runner *runner, const struct npu_manifest *manifest,
                   const struct npu_golden_options *options, struct npu_golden **ret)
{
        struct npu_golden *g = calloc(1, sizeof(*g));
        char dir[PATH_MAX];
        int r = 0;

        if (!g)
                return -ENOMEM;
        g->runner = runner;
        g->manifest = manifest;
        g->options = *options;
        g->input_files = json_object();
        g->cases = calloc(manifest->n_cases ? manifest->n_cases : 1, sizeof(*g->cases));
        if (!g->cases || !g->input_files) {
                npu_golden_free(g);
                return -ENOMEM;
        }
        /* the evaluator makes a --work-dir that does not exist yet; so does this */
        r = mkdir_p(options->work_dir);
        if (r == 0 && !realpath(options->work_dir, g->work_dir))
                r = -errno;
        else if (format_path(dir, sizeof(dir), "%s/golden", g->work_dir) < 0)
                r = -ENAMETOOLONG;
        g->options.work_dir = g->work_dir;
        for (size_t i = 0; r == 0 && i < manifest->n_cases; i++) {
                struct golden_case *gc;
                if (!manifest->cases[i].golden || !case_selected(options, manifest, i))
                        continue;
                gc = &g->cases[g->n_cases++];
                gc->index = i;
                if (format_path(gc->dir, sizeof(gc->dir), "%s/case_%zu", dir, i) < 0)
                        r = -ENAMETOOLONG;
                else
                        r = mkdir_p(gc->dir);
                if (r == 0)
                        r = write_runner(gc->dir);
        }
        if (r < 0) {
                npu_golden_free(g);
                return r;
        }
        *ret = g;
        return 0;
}

struct npu_golden *npu_golden_free(struct npu_golden *g)
{
        if (!g)
                return NULL;
        for (size_t i = 0; g->cases && i < g->n_cases; i++) {
                json_decref(g->cases[i].verdict);
                json_decref(g->cases[i].inputs);
        }
        free(g->cases);
        json_decref(g->input_files);
        free(g);
        return NULL;
}

const json_t *npu_golden_input_files(const struct npu_golden *g)
{
        return g->input_files;
}

/* ------------------------------------------------------------ running the jobs */

static void step(struct npu_golden *g);

/* The runner's answer in the case's directory; NULL when it wrote none. */
static json_t *read_answer(const struct golden_case *gc)
{
        char path[PATH_MAX];
        json_t *a;

        if (format_path(path, sizeof(path), "%s/golden-answer.json", gc->dir) < 0)
                return NULL;
        a = load_untrusted_json(path);
        return a;
}

static void on_job_done(const struct child_result *r, void *userdata);

/* Runs the runner on job (borrowed) in the case's directory; ro: extra readable paths. */
static int start_job(struct npu_golden *g, struct golden_case *gc, const json_t *job,
                     const char *const *ro)
{
        const char *ro_paths[4] = { g->manifest->dir, NULL, NULL, NULL };
        char job_path[PATH_MAX], script[PATH_MAX];
        const char *argv[] = { python_program(), "-B", script, job_path, NULL };
        struct child_spec spec = {
                .argv = argv,
                .cwd = gc->dir,
                .timeout_s = g->options.timeout_s > 0 ? g->options.timeout_s : GOLDEN_TIMEOUT_S,
                .output_cap = 64 * 1024,
                .limits = { .file_size_bytes = GOLDEN_MAX_BYTES, .cpu_seconds = 1200 },
                .sandbox_dir = g->options.sandbox ? gc->dir : NULL,
                .sandbox_ro_paths = ro_paths,
                .nice = NPU_COMPILE_NICE,
        };
        size_t n = 1;

        for (size_t i = 0; ro && ro[i] && n < 3; i++)
                ro_paths[n++] = ro[i];
        ro_paths[n] = NULL;
        if (format_path(job_path, sizeof(job_path), "%s/golden-job.json", gc->dir) < 0 ||
            format_path(script, sizeof(script), "%s/ascendopt_golden.py", gc->dir) < 0)
                return -ENAMETOOLONG;
        unlink(job_path);
        if (json_dump_file(job, job_path, 0) < 0)
                return -EIO;
        {
                char answer[PATH_MAX];
                if (format_path(answer, sizeof(answer), "%s/golden-answer.json", gc->dir) == 0)
                        unlink(answer);
        }
        return child_start(g->runner, &spec, on_job_done, g, &g->child);
}

/* ------------------------------------------------------------ examples: inputs */

/* The elements of one shape ([dims]). */
static uint64_t dims_elements(const json_t *dims)
{
        uint64_t n = 1;
        size_t i;
        json_t *d;

        json_array_foreach(dims, i, d) n *= (uint64_t)json_integer_value(d);
        return n;
}

/* A shape as a list of shapes (one per list element; one for a plain tensor). */
static json_t *shape_items(const json_t *shape)
{
        if (json_is_array(json_array_get(shape, 0)))
                return json_incref((json_t *)shape);
        return json_pack("[O]", shape);
}

static int start_example(struct npu_golden *g, struct golden_case *gc)
{
        const struct npu_manifest *m = g->manifest;
        const struct npu_case *c = &m->cases[gc->index];
        const json_t *ins = json_object_get(c->golden, "inputs");
        json_t *job, *values = json_object();
        char example[PATH_MAX];
        int r;

        for (size_t i = 0; i < m->n_inputs; i++) {
                const json_t *v =
                    json_object_get(json_object_get(ins, m->inputs[i].name), "values");
                char file[300];
                if (!v)
                        continue;
                snprintf(file, sizeof(file), "ascendopt_values_%s.bin", m->inputs[i].name);
                if (json_object_set_new(values, m->inputs[i].name,
                                        json_pack("{s:s, s:s, s:O}", "file", file, "dtype",
                                                  npu_dtype_name(m->inputs[i].dtype), "values",
                                                  v)) < 0) {
                        json_decref(values);
                        return -ENOMEM;
                }
        }
        if (format_path(example, sizeof(example), "%s/%s", m->dir,
                        json_string_value(json_object_get(c->golden, "example"))) < 0) {
                json_decref(values);
                return -ENAMETOOLONG;
        }
        job = json_pack("{s:s, s:s, s:o}", "mode", "example", "example", example, "values", values);
        if (!job)
                return -ENOMEM;
        r = start_job(g, gc, job, NULL);
        json_decref(job);
        return r;
}

/*
 * Appends DIR/NAME to list; a path too long for PATH_MAX is said in why
 * instead (the first reason is kept), which makes the case unavailable.
 */
static void append_path(json_t *list, const char *dir, const char *name, char *why, size_t why_size)
{
        char path[PATH_MAX];

        if (format_path(path, sizeof(path), "%s/%s", dir, name) == 0)
                json_array_append_new(list, json_string(path));
        else if (!why[0])
                snprintf(why, why_size, "%s/%s: path too long", dir, name);
}

/* After gen_data.py: the files the simulator reads, checked against the case's shapes. */
static void example_inputs(struct npu_golden *g, struct golden_case *gc, const json_t *answer)
{
        const struct npu_manifest *m = g->manifest;
        const struct npu_case *c = &m->cases[gc->index];
        const json_t *ins = json_object_get(c->golden, "inputs");
        /* "outputs": {} compares nothing: an input without data is seeded */
        bool compares = json_object_size(json_object_get(c->golden, "outputs")) > 0;
        json_t *files = json_object();
        char why[1024] = "";

        for (size_t i = 0; i < m->n_inputs && !why[0]; i++) {
                const struct npu_tensor *t = &m->inputs[i];
                const json_t *given = json_object_get(ins, t->name);
                json_t *items, *list, *f;
                char one[PATH_MAX];
                size_t k;

                if (json_is_null(json_object_get(c->shapes, t->name)))
                        continue; /* an absent optional input */
                items = shape_items(json_object_get(c->shapes, t->name));
                list = json_array();
                if (!items || !list) {
                        snprintf(why, sizeof(why), "out of memory");
                        json_decref(items);
                        json_decref(list);
                        break;
                }
                if (!given && !compares) {
                        json_decref(items);
                        json_decref(list);
                        continue;
                }
                if (!given) {
                        snprintf(why, sizeof(why),
                                 "golden.inputs gives no data for input %s, so golden.bin was "
                                 "computed from data the simulator does not have",
                                 t->name);
                } else if (json_object_get(given, "values")) {
                        snprintf(one, sizeof(one), "ascendopt_values_%s.bin", t->name);
                        append_path(list, gc->dir, one, why, sizeof(why));
                } else if (json_object_get(given, "file")) {
                        append_path(list, gc->dir,
                                    json_string_value(json_object_get(given, "file")), why,
                                    sizeof(why));
                } else {
                        json_array_foreach(json_object_get(given, "files"), k, f)
                        {
                                append_path(list, gc->dir, json_string_value(f), why, sizeof(why));
                        }
                }
                if (!why[0] && json_array_size(list) != json_array_size(items))
                        snprintf(why, sizeof(why),
                                 "golden.inputs.%s names %zu files for %zu tensors", t->name,
                                 json_array_size(list), json_array_size(items));
                json_array_foreach(list, k, f)
                {
                        struct stat st;
                        uint64_t want =
                            dims_elements(json_array_get(items, k)) * npu_dtype_size(t->dtype);
                        if (why[0])
                                break;
                        if (stat(json_string_value(f), &st) < 0)
                                snprintf(why, sizeof(why), "gen_data.py wrote no %s (for input %s)",
                                         json_string_value(f) + strlen(gc->dir) + 1, t->name);
                        else if ((uint64_t)st.st_size != want)
                                snprintf(why, sizeof(why),
                                         "%s has %lld bytes; input %s (%s) wants %llu",
                                         json_string_value(f) + strlen(gc->dir) + 1,
                                         (long long)st.st_size, t->name, npu_dtype_name(t->dtype),
                                         (unsigned long long)want);
                }
                json_object_set_new(files, t->name, list);
                json_decref(items);
        }
        (void)answer;
        if (why[0]) {
                gc->verdict = unavailable(c, why);
                json_decref(files);
                return;
        }
        gc->inputs = files;
        json_object_set(g->input_files, c->name, files);
}

/* ------------------------------------------------------------ the check */

static const json_t *find_result_case(const json_t *result, const char *name)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_object_get(result, "cases"), i, c)
        {
                const char *n = json_string_value(json_object_get(c, "case"));
                if (n && strcmp(n, name) == 0)
                        return c;
        }
        return NULL;
}

/* The simulator's records of one tensor of a case result (all list elements, in order). */
static json_t *result_tensors(const json_t *rc, const char *field, const char *name)
{
        json_t *out = json_array(), *t;
        size_t i;

        json_array_foreach(json_object_get(rc, field), i, t)
        {
                const char *n = json_string_value(json_object_get(t, "name"));
                if (n && strcmp(n, name) == 0)
                        json_array_append(out, t);
        }
        return out;
}

static const char *arg_name(const struct npu_case *c, const char *name)
{
        const char *given =
            json_string_value(json_object_get(json_object_get(c->golden, "names"), name));
        return given ? given : name;
}

static int start_function(struct npu_golden *g, struct golden_case *gc, const json_t *rc)
{
        const struct npu_manifest *m = g->manifest;
        const struct npu_case *c = &m->cases[gc->index];
        const char *function = json_string_value(json_object_get(c->golden, "function"));
        const char *colon = strrchr(function, ':');
        json_t *job, *inputs = json_array(), *outputs = json_array(), *attrs = json_object();
        char file[PATH_MAX], case_dir[PATH_MAX];
        const char *ro[2] = { case_dir, NULL };
        const char *key;
        json_t *v;
        int r = 0;

        if (format_path(file, sizeof(file), "%s/%.*s", m->dir, (int)(colon - function), function) <
                0 ||
            format_path(case_dir, sizeof(case_dir), "%s/case_%zu", g->options.work_dir, gc->index) <
                0) {
                r = -ENAMETOOLONG;
                goto out;
        }
        for (size_t k = 0; r == 0 && k < 2; k++) {
                const struct npu_tensor *list = k ? m->outputs : m->inputs;
                size_t n = k ? m->n_outputs : m->n_inputs;
                for (size_t i = 0; r == 0 && i < n; i++) {
                        json_t *recs = result_tensors(rc, k ? "outputs" : "inputs", list[i].name);
                        json_t *files = json_array(), *shapes = json_array(), *rec;
                        size_t j;
                        json_array_foreach(recs, j, rec)
                        {
                                const char *f = json_string_value(json_object_get(rec, "file"));
                                char abs[PATH_MAX];
                                if (!f || f[0] == '/')
                                        snprintf(abs, sizeof(abs), "%s", f ? f : "");
                                else if (format_path(abs, sizeof(abs), "%s/%s", case_dir, f) < 0)
                                        r = -ENAMETOOLONG;
                                json_array_append_new(files, json_string(abs));
                                json_array_append(shapes, json_object_get(rec, "shape"));
                        }
                        json_decref(recs);
                        if (json_array_append_new(
                                k ? outputs : inputs,
                                json_pack("{s:s, s:s, s:s, s:b, s:o, s:o}", "name", list[i].name,
                                          "arg", arg_name(c, list[i].name), "dtype",
                                          npu_dtype_name(list[i].dtype), "list", list[i].is_list,
                                          "files", files, "shapes", shapes)) < 0)
                                r = -ENOMEM;
                        else if (!k && json_is_null(json_object_get(c->shapes, list[i].name)))
                                json_object_set_new(json_array_get(inputs, i), "absent",
                                                    json_true());
                }
        }
        if (r < 0)
                goto out;
        json_object_foreach(c->attrs, key, v) json_object_set(attrs, arg_name(c, key), v);
        job = json_pack("{s:s, s:s, s:s%, s:o, s:o, s:o}", "mode", "function", "file", file,
                        "function", colon + 1, strlen(colon + 1), "inputs", inputs, "outputs",
                        outputs, "attrs", attrs);
        inputs = outputs = attrs = NULL; /* json_pack took them, even when it failed */
        if (!job) {
                r = -ENOMEM;
                goto out;
        }
        r = start_job(g, gc, job, ro);
        json_decref(job);
out:
        json_decref(inputs);
        json_decref(outputs);
        json_decref(attrs);
        return r;
}

/* A whole file, which a sandboxed child may have written: a regular file, no link followed. */
static int read_whole(const char *path, void **ret, size_t *ret_len)
{
        char *data = NULL;
        int r = read_untrusted_file(path, (size_t)16 << 30, &data, ret_len);

        if (r == 0)
                *ret = data;
        return r;
}

/*
 * Compares the simulator's files of one output with the golden's, adding
 * {name, elements, max_abs_err, max_rel_err, mismatches, passed,
 * first_mismatch} to list; false when they could not be compared (why).
 */
static bool compare_output(const struct npu_manifest *m, const struct npu_tensor *t,
                           const json_t *got_files, const json_t *want_files, json_t *list,
                           char *why, size_t why_size)
{
        const struct npu_tolerance *tol = &m->tolerance[t->dtype];
        size_t size = npu_dtype_size(t->dtype), offset = 0;
        struct npu_comparison total = { 0 };
        json_t *first = NULL;
        bool failed = false;

        if (json_array_size(got_files) != json_array_size(want_files)) {
                snprintf(why, why_size,
                         "output %s: the golden gives %zu tensors, the simulator %zu", t->name,
                         json_array_size(want_files), json_array_size(got_files));
                return false;
        }
        for (size_t k = 0; k < json_array_size(got_files); k++) {
                const char *gf = json_string_value(json_array_get(got_files, k));
                const char *wf = json_string_value(json_array_get(want_files, k));
                void *got = NULL, *want = NULL;
                size_t got_len = 0, want_len = 0;
                struct npu_comparison c;
                if (read_whole(gf, &got, &got_len) < 0 || read_whole(wf, &want, &want_len) < 0) {
                        snprintf(why, why_size, "output %s: cannot read %s", t->name,
                                 got ? wf : gf);
                        free(got);
                        free(want);
                        json_decref(first);
                        return false;
                }
                if (got_len != want_len) {
                        /* a disagreement on the output's shape is a mismatch, said as such */
                        json_t *o = json_pack("{s:s, s:b, s:s}", "name", t->name, "passed", false,
                                              "why", "the golden and the simulator differ in size");
                        bool added = json_array_append_new(list, o) == 0;
                        if (added)
                                snprintf(
                                    why, why_size,
                                    "output %s: the golden has %zu elements, the simulator %zu",
                                    t->name, want_len / size, got_len / size);
                        else
                                snprintf(why, why_size, "output %s: out of memory", t->name);
                        free(got);
                        free(want);
                        json_decref(first);
                        return added;
                }
                npu_compare(t->dtype, got, want, got_len / size, tol, &c);
                if (c.mismatches && !first &&
                    !(first = json_pack("{s:I, s:f, s:f}", "index",
                                        (json_int_t)(offset + c.first_mismatch), "got", c.first_got,
                                        "want", c.first_want))) {
                        snprintf(why, why_size, "output %s: out of memory", t->name);
                        free(got);
                        free(want);
                        return false;
                }
                total.elements += c.elements;
                total.mismatches += c.mismatches;
                total.max_abs_err =
                    c.max_abs_err > total.max_abs_err ? c.max_abs_err : total.max_abs_err;
                total.max_rel_err =
                    c.max_rel_err > total.max_rel_err ? c.max_rel_err : total.max_rel_err;
                failed |= !c.passed;
                offset += c.elements;
                free(got);
                free(want);
        }
        /* o* leaves first_mismatch out when nothing mismatched */
        json_t *o =
            json_pack("{s:s, s:I, s:f, s:f, s:I, s:b, s:o*}", "name", t->name, "elements",
                      (json_int_t)total.elements, "max_abs_err", total.max_abs_err, "max_rel_err",
                      total.max_rel_err, "mismatches", (json_int_t)total.mismatches, "passed",
                      !failed, "first_mismatch", first);
        if (json_array_append_new(list, o) < 0) {
                snprintf(why, why_size, "output %s: out of memory", t->name);
                return false;
        }
        return true;
}

/* Files that must be equal byte for byte (the example's inputs and the simulator's dump). */
static bool same_file(const char *a, const char *b)
{
        void *x = NULL, *y = NULL;
        size_t xl = 0, yl = 0;
        bool same = read_whole(a, &x, &xl) == 0 && read_whole(b, &y, &yl) == 0 && xl == yl &&
                    memcmp(x, y, xl) == 0;

        free(x);
        free(y);
        return same;
}

/* The verdict of one case from the golden's files ({output: [paths]}); NULL when out of memory. */
static json_t *judge(struct npu_golden *g, struct golden_case *gc, const json_t *rc,
                     const json_t *want)
{
        const struct npu_manifest *m = g->manifest;
        const struct npu_case *c = &m->cases[gc->index];
        json_t *outputs = json_array(), *v;
        char why[1024] = "", one[1024] = "", source[700];
        bool mismatch = false;
        size_t compared = 0;

        for (size_t i = 0; i < m->n_outputs; i++) {
                const json_t *wf = json_object_get(want, m->outputs[i].name);
                json_t *recs, *gf, *rec;
                size_t j, before = json_array_size(outputs);
                if (!wf)
                        continue;
                recs = result_tensors(rc, "outputs", m->outputs[i].name);
                gf = json_array();
                json_array_foreach(recs, j, rec)
                    json_array_append(gf, json_object_get(rec, "file"));
                json_decref(recs);
                if (compare_output(m, &m->outputs[i], gf, wf, outputs, one, sizeof(one))) {
                        compared++;
                        if (!json_is_true(
                                json_object_get(json_array_get(outputs, before), "passed"))) {
                                mismatch = true;
                                if (!why[0] && one[0])
                                        snprintf(why, sizeof(why), "%s", one);
                        }
                } else if (!why[0]) {
                        snprintf(why, sizeof(why), "%s", one);
                }
                one[0] = '\0';
                json_decref(gf);
        }
        if (!compared) {
                json_decref(outputs);
                return unavailable(c, why[0] ? why : "the golden gives none of the outputs");
        }
        v = json_pack("{s:s, s:s, s:s, s:o}", "case", c->name, "verdict",
                      mismatch ? "mismatch" : "match", "golden",
                      golden_source(c->golden, source, sizeof(source)), "outputs", outputs);
        if (why[0])
                json_object_set_new(v, "why", json_string(why));
        return v;
}

/* Example cases: the simulator must have read the example's inputs, then golden.bin decides. */
static json_t *judge_example(struct npu_golden *g, struct golden_case *gc, const json_t *rc)
{
        const struct npu_case *c = &g->manifest->cases[gc->index];
        const json_t *outs = json_object_get(c->golden, "outputs");
        json_t *want = json_object(), *v;
        char case_dir[PATH_MAX], why[1024] = "";
        const char *key;
        size_t i;

        snprintf(case_dir, sizeof(case_dir), "%s/case_%zu", g->options.work_dir, gc->index);
        json_object_foreach(gc->inputs, key, v)
        {
                json_t *recs = result_tensors(rc, "inputs", key), *rec;
                json_array_foreach(recs, i, rec)
                {
                        const char *f = json_string_value(json_object_get(rec, "file"));
                        char dumped[PATH_MAX];
                        if (why[0])
                                continue;
                        if (f && format_path(dumped, sizeof(dumped), "%s/%s", case_dir, f) < 0)
                                snprintf(why, sizeof(why), "%.512s/%.256s: path too long", case_dir,
                                         f);
                        else if (!f || !same_file(dumped, json_string_value(json_array_get(v, i))))
                                snprintf(why, sizeof(why),
                                         "the simulator did not run on the example's data for "
                                         "input %s",
                                         key);
                }
                json_decref(recs);
        }
        if (why[0]) {
                json_decref(want);
                return unavailable(c, why);
        }
        json_object_foreach((json_t *)outs, key, v)
        {
                json_t *list = json_array(), *f;
                if (json_is_string(v))
                        append_path(list, gc->dir, json_string_value(v), why, sizeof(why));
                else
                        json_array_foreach(v, i, f)
                        {
                                append_path(list, gc->dir, json_string_value(f), why, sizeof(why));
                        }
                json_object_set_new(want, key, list);
        }
        if (why[0]) {
                json_decref(want);
                return unavailable(c, why);
        }
        v = judge(g, gc, rc, want);
        json_decref(want);
        return v;
}

/* The overall verdict: mismatch if any case mismatched, else match if any matched. */
static json_t *summary(struct npu_golden *g)
{
        json_t *cases = json_array(), *s;
        size_t counts[3] = { 0 };
        const char *why = NULL;

        for (size_t i = 0; i < g->n_cases; i++) {
                const json_t *v = g->cases[i].verdict;
                const char *verdict = json_string_value(json_object_get(v, "verdict"));
                if (!v) {
                        /* a verdict that could not be built: out of memory */
                        counts[2]++;
                        why = why ? why : "out of memory";
                        continue;
                }
                json_array_append(cases, (json_t *)v);
                if (strcmp(verdict, "mismatch") == 0)
                        counts[0]++;
                else if (strcmp(verdict, "match") == 0)
                        counts[1]++;
                else {
                        counts[2]++;
                        why = why ? why : json_string_value(json_object_get(v, "why"));
                }
        }
        s = json_pack("{s:s, s:I, s:I, s:I, s:o}", "verdict",
                      counts[0]   ? "mismatch"
                      : counts[1] ? "match"
                                  : "unavailable",
                      "mismatched", (json_int_t)counts[0], "matched", (json_int_t)counts[1],
                      "unavailable", (json_int_t)counts[2], "cases", cases);
        if (!counts[0] && !counts[1])
                json_object_set_new(s, "why", json_string(why ? why : "no case with a golden ran"));
        return s;
}

static void on_job_done(const struct child_result *r, void *userdata)
{
        struct npu_golden *g = userdata;
        struct golden_case *gc = &g->cases[g->next];
        const struct npu_case *c = &g->manifest->cases[gc->index];
        json_t *answer = read_answer(gc);
        const char *status = json_string_value(json_object_get(answer, "status"));
        char why[1024], what[128];

        g->child = NULL;
        if (g->cancelled) {
                json_decref(gc->verdict);
                gc->verdict = unavailable(c, "cancelled");
        } else if (!status) {
                const char *err = r->err.data && r->err.len ? r->err.data : "";
                const char *last = err + strlen(err);
                /* the last line of a traceback says what went wrong */
                while (last > err && last[-1] == '\n')
                        last--;
                const char *start = last;
                while (start > err && start[-1] != '\n')
                        start--;
                snprintf(why, sizeof(why), "the golden's Python %s%s%.*s",
                         child_result_describe(r, what, sizeof(what)), start < last ? ": " : "",
                         (int)(last - start > 400 ? 400 : last - start), start);
                json_decref(gc->verdict);
                gc->verdict = unavailable(c, why);
        } else if (strcmp(status, "ok") != 0) {
                json_decref(gc->verdict);
                gc->verdict =
                    unavailable(c, json_string_value(json_object_get(answer, "why")) ?: status);
        } else if (!g->checking) {
                example_inputs(g, gc, answer);
        } else {
                const json_t *rc = find_result_case(g->result, c->name);
                json_t *want = json_object(), *o;
                size_t i;
                json_array_foreach(json_object_get(answer, "outputs"), i, o)
                    json_object_set(want, json_string_value(json_object_get(o, "name")),
                                    json_object_get(o, "files"));
                json_decref(gc->verdict);
                gc->verdict = judge(g, gc, rc, want);
                json_decref(want);
        }
        json_decref(answer);
        g->next++;
        step(g);
}

/* Starts the next case's job, or finishes the phase. */
static void step(struct npu_golden *g)
{
        for (; g->next < g->n_cases; g->next++) {
                struct golden_case *gc = &g->cases[g->next];
                const struct npu_case *c = &g->manifest->cases[gc->index];
                bool is_function = json_object_get(c->golden, "function") != NULL;
                const json_t *rc;
                char why[512];
                int r;

                if (g->cancelled) {
                        if (!gc->verdict)
                                gc->verdict = unavailable(c, "cancelled");
                        continue;
                }
                if (!g->checking) {
                        if (is_function)
                                continue;
                        r = start_example(g, gc);
                } else {
                        if (gc->verdict)
                                continue; /* unavailable since the preparation */
                        rc = find_result_case(g->result, c->name);
                        if (!rc || strcmp(json_string_value(json_object_get(rc, "status")) ?: "",
                                          "ok") != 0) {
                                gc->verdict = unavailable(c, "the case did not run to the end");
                                continue;
                        }
                        if (!is_function) {
                                gc->verdict = judge_example(g, gc, rc);
                                continue;
                        }
                        r = start_function(g, gc, rc);
                }
                if (r == 0)
                        return;
                snprintf(why, sizeof(why), "cannot run the golden's Python: %s", child_strerror(r));
                gc->verdict = unavailable(c, why);
        }
        if (g->checking && json_object_set_new(g->result, "golden", summary(g)) < 0)
                log_error("%s: the goldens' verdict is lost: out of memory", g->manifest->name);
        g->done(g->userdata);
}

void npu_golden_prepare(struct npu_golden *g, npu_golden_done_fn done, void *userdata)
{
        g->done = done;
        g->userdata = userdata;
        g->checking = false;
        g->next = 0;
        step(g);
}

void npu_golden_cancel(struct npu_golden *g)
{
        if (!g)
                return;
        g->cancelled = true;
        child_cancel(g->child);
}

const char *npu_golden_unprepared(const struct npu_golden *g, size_t case_index)
{
        for (size_t i = 0; i < g->n_cases; i++) {
                const struct golden_case *gc = &g->cases[i];
                if (gc->index != case_index)
                        continue;
                if (gc->inputs || !json_object_get(g->manifest->cases[gc->index].golden, "example"))
                        return NULL;
                return json_string_value(json_object_get(gc->verdict, "why"))
                           ?: "gen_data.py did not run";
        }
        return NULL;
}

void npu_golden_check(struct npu_golden *g, json_t *result, npu_golden_done_fn done, void *userdata)
{
        g->done = done;
        g->userdata = userdata;
        g->checking = true;
        g->result = result;
        g->next = 0;
        step(g);
}

/* ------------------------------------------------------------ one job */

struct one_job {
        char dir[PATH_MAX];
        npu_golden_job_done_fn done;
        void *userdata;
};

static void on_one_job_done(const struct child_result *r, void *userdata)
{
        struct one_job *j = userdata;
        char path[PATH_MAX], what[128], why[600];
        json_t *answer = NULL;

        if (format_path(path, sizeof(path), "%s/golden-answer.json", j->dir) == 0)
                answer = load_untrusted_json(path);
        if (!json_is_object(answer)) {
                const char *err = r->err.data && r->err.len ? r->err.data : "";
                json_decref(answer);
                snprintf(why, sizeof(why), "python %s: %.400s",
                         child_result_describe(r, what, sizeof(what)), err);
                answer = json_pack("{s:s, s:s}", "status", "unavailable", "why", why);
        }
        j->done(answer, j->userdata); /* NULL: out of memory */
        free(j);
}

int npu_golden_run_job(struct child_runner *runner, const char *opdir, const char *dir,
                       const json_t *job, bool sandbox, double timeout_s,
                       npu_golden_job_done_fn done, void *userdata)
{
        struct one_job *j = calloc(1, sizeof(*j));
        const char *ro_paths[] = { opdir, NULL };
        char job_path[PATH_MAX], script[PATH_MAX];
        const char *argv[] = { python_program(), "-B", script, job_path, NULL };
        struct child_spec spec = {
                .argv = argv,
                .cwd = dir,
                .timeout_s = timeout_s > 0 ? timeout_s : GOLDEN_TIMEOUT_S,
                .output_cap = 64 * 1024,
                .limits = { .file_size_bytes = GOLDEN_MAX_BYTES, .cpu_seconds = 1200 },
                .sandbox_dir = sandbox ? dir : NULL,
                .sandbox_ro_paths = ro_paths,
                .nice = NPU_COMPILE_NICE,
        };
        int r;

        if (!j)
                return -ENOMEM;
        j->done = done;
        j->userdata = userdata;
        snprintf(j->dir, sizeof(j->dir), "%s", dir);
        r = mkdir_p(dir);
        if (r == 0)
                r = write_runner(dir);
        if (r == 0 && (format_path(job_path, sizeof(job_path), "%s/golden-job.json", dir) < 0 ||
                       format_path(script, sizeof(script), "%s/ascendopt_golden.py", dir) < 0))
                r = -ENAMETOOLONG;
        if (r == 0 && json_dump_file(job, job_path, 0) < 0)
                r = -EIO;
        if (r == 0)
                r = child_start(runner, &spec, on_one_job_done, j, NULL);
        if (r < 0)
                free(j);
        return r;
}
