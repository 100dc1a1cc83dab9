/* SPDX-License-Identifier: MIT */
/*
 * Tests of the motif library on real kernels from tests/ops, the
 * calibration cases and the corpus: every motif is described in the
 * signature vocabulary, is detected where it applies and not elsewhere,
 * round-trips through its inverse, leaves comments and macros alone, and
 * (on the simulator) compiles, keeps the outputs and, for the optimizing
 * direction, lowers the latency.
 *
 * expensive: applies every motif to real kernels and evaluates them
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "op-fixture.h"

#include "npu/npu.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

static const char *op_kernel_text(const struct op_files *op)
{
        for (size_t i = 0; i < op->n; i++)
                if (strncmp(op->files[i].path, "op_kernel/", 10) == 0)
                        return op->files[i].text;
        return NULL;
}

static size_t sites(const char *name, enum motif_direction dir, const char *text)
{
        struct motif_site *s = NULL;
        size_t n = 0;

        assert_int_equal(motif_detect_text(motif_find(name), dir, text, &s, &n), 0);
        for (size_t i = 0; i < n; i++) {
                assert_true(s[i].line > 0);
                assert_true(s[i].what[0] != '\0');
        }
        free(s);
        return n;
}

static char *apply(const char *name, enum motif_direction dir, const char *text, size_t site)
{
        char *out = NULL;
        int r = motif_apply_text(motif_find(name), dir, text, site, &out);

        if (r < 0)
                fail_msg("%s %s: %d", name, dir == MOTIF_FORWARD ? "forward" : "inverse", r);
        return out;
}

/* ------------------------------------------------------------------ the table */

static bool in_vocabulary(const char *token, size_t len)
{
        for (size_t i = 0; npu_signature_vocabulary[i]; i++)
                if (strlen(npu_signature_vocabulary[i]) == len &&
                    strncmp(npu_signature_vocabulary[i], token, len) == 0)
                        return true;
        return false;
}

static void test_table(void **state)
{
        assert_true(motif_count() >= 13);
        assert_null(motif_at(motif_count()));
        assert_null(motif_find("no_such_motif"));
        for (size_t i = 0; i < motif_count(); i++) {
                const struct motif *m = motif_at(i);
                const char *p = m->bottleneck;
                size_t tokens = 0;

                assert_ptr_equal(motif_find(m->name), m);
                assert_true(m->title[0] && m->description[0] && m->bottleneck[0]);
                assert_non_null(m->forward);
                assert_non_null(m->inverse);
                while (*p) {
                        size_t len = strcspn(p, " ");
                        if (!in_vocabulary(p, len))
                                fail_msg("%s: bottleneck token '%.*s' is not in the vocabulary",
                                         m->name, (int)len, p);
                        tokens++;
                        p += len;
                        p += strspn(p, " ");
                }
                assert_true(tokens > 0);
        }
}

/* ------------------------------------------------------------------ round trips */

struct trip {
        const char *motif;
        const char *kernel;         /* relative to the source tree */
        enum motif_direction first; /* applied first, at every site */
        bool exact;                 /* the second direction gives back the text byte for byte */
        const char *absent_in;      /* a kernel where the first direction finds nothing */
        bool one_site;              /* the first direction at its first site only */
};

static const struct trip trips[] = {
        /* the queue keeps its second buffer on the way back */
        { "prefetch_tile", "examples/ops/level2/softmax/op_kernel/softmax.cpp", MOTIF_FORWARD,
          false, "examples/ops/level1/add/op_kernel/add_custom.cpp", false },
        { "double_buffer", "examples/calibration/add_case3_cores_32k/op_kernel/add_case3.cpp",
          MOTIF_FORWARD, true, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        { "barrier_removal", "examples/ops/level1/add/expert/op_kernel/add_custom.cpp",
          MOTIF_INVERSE, true, NULL, false },
        { "barrier_removal", "examples/ops/level1/mul/op_kernel/mul_custom.cpp", MOTIF_FORWARD,
          false, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        { "datacopy_aligned", "examples/ops/level1/relu/op_kernel/relu_custom.cpp", MOTIF_FORWARD,
          true, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        { "strided_copy", "tests/ops/ok/datacopy_pad_2d/op_kernel/datacopy_pad_2d.cpp",
          MOTIF_INVERSE, false, NULL, false },
        { "vectorize_scalar_loop", "tests/ops/ok/scalar_loop/op_kernel/scalar_loop.cpp",
          MOTIF_FORWARD, true, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        { "vectorize_scalar_loop",
          "examples/calibration/add_case0_scalar_loop/op_kernel/add_case0.cpp", MOTIF_FORWARD, true,
          NULL, false },
        { "fuse_axpy", "examples/ops/level1/axpy/expert/op_kernel/axpy_custom.cpp", MOTIF_INVERSE,
          true, NULL, false },
        { "inplace_buffer", "examples/ops/level1/axpy/op_kernel/axpy_custom.cpp", MOTIF_FORWARD,
          false, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        /* a declaration list comes back as one declaration per line */
        { "tbuf_temporaries", "examples/ops/level2/rms_norm/op_kernel/rms_norm.cpp", MOTIF_INVERSE,
          false, NULL, false },
        { "tbuf_temporaries", "tests/ops/ok/compare_select/op_kernel/compare_select.cpp",
          MOTIF_INVERSE, true, NULL, false },
        { "aiv_only", "examples/ops/level1/mul/op_kernel/mul_custom.cpp", MOTIF_FORWARD, true,
          "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        { "remainder_first_cores", "examples/ops/level1/add/expert/op_kernel/add_custom.cpp",
          MOTIF_INVERSE, true, NULL, false },
        { "bank_conflict_pad", "examples/calibration/add_case5_l2_bypass/op_kernel/add_case5.cpp",
          MOTIF_FORWARD, true, NULL, true },
        { "bank_conflict_pad", "examples/ops/level1/add/expert/op_kernel/add_custom.cpp",
          MOTIF_INVERSE, false, NULL, false },
        { "l2_bypass", "examples/calibration/add_case4_double_buffer/op_kernel/add_case4.cpp",
          MOTIF_FORWARD, true, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
        /* the hints come back one after each SetGlobalBuffer, not grouped */
        { "l2_bypass", "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", MOTIF_INVERSE,
          false, NULL, false },
        { "vector_accumulator", "examples/ops/level2/sum_squares/op_kernel/sum_squares.cpp",
          MOTIF_FORWARD, true, "examples/ops/level2/sum_squares/expert/op_kernel/sum_squares.cpp",
          false },
        /* in place: the last write goes to a new output queue, and comes back */
        { "tbuf_queues", "examples/ops/level1/exp/op_kernel/exp_custom.cpp", MOTIF_FORWARD, true,
          "examples/ops/level1/exp/expert/op_kernel/exp_custom.cpp", false },
        /* reduce_max writes its output tile on the scalar unit: no queue may carry it */
        { "tbuf_queues", "examples/ops/level2/log_softmax/op_kernel/log_softmax.cpp", MOTIF_FORWARD,
          false, "examples/ops/level2/reduce_max/op_kernel/reduce_max.cpp", false },
        /* the corpus experts written for the motifs the seed bank lacked */
        { "hoist_duplicate",
          "examples/ops/level1/reciprocal/expert/op_kernel/reciprocal_custom.cpp", MOTIF_INVERSE,
          true, NULL, false },
        { "strided_copy", "examples/ops/level2/narrow/expert/op_kernel/narrow.cpp", MOTIF_INVERSE,
          false, NULL, false },
        { "strided_copy", "examples/ops/level2/narrow/op_kernel/narrow.cpp", MOTIF_FORWARD, false,
          NULL, false },
        { "remainder_first_cores",
          "examples/ops/level1/reciprocal/expert/op_kernel/reciprocal_custom.cpp", MOTIF_INVERSE,
          true, NULL, false },
        /* an inline fetch: tile off + tileLength ahead; the second buffer stays */
        { "prefetch_tile", "examples/ops/level2/isamax/op_kernel/isamax.cpp", MOTIF_FORWARD, false,
          "examples/ops/level2/reduce_max/op_kernel/reduce_max.cpp", false },
        /* the chain comes back in place; the second buffer stays */
        { "out_of_place", "examples/ops/level1/gelu/op_kernel/gelu_custom.cpp", MOTIF_FORWARD,
          false, "examples/ops/level1/add/expert/op_kernel/add_custom.cpp", false },
};

static void test_round_trips(void **state)
{
        for (size_t i = 0; i < sizeof(trips) / sizeof(*trips); i++) {
                const struct trip *t = &trips[i];
                enum motif_direction second =
                    t->first == MOTIF_FORWARD ? MOTIF_INVERSE : MOTIF_FORWARD;
                char *orig = slurp(t->kernel), *once, *back;

                if (sites(t->motif, t->first, orig) == 0)
                        fail_msg("%s: not detected in %s", t->motif, t->kernel);
                once = apply(t->motif, t->first, orig, t->one_site ? 0 : MOTIF_ALL_SITES);
                assert_string_not_equal(once, orig);
                /* every site was applied */
                if (!t->one_site)
                        assert_int_equal(sites(t->motif, t->first, once), 0);
                if (sites(t->motif, second, once) == 0)
                        fail_msg("%s: the other direction finds nothing after %s", t->motif,
                                 t->kernel);
                back = apply(t->motif, second, once, MOTIF_ALL_SITES);
                if (t->exact && strcmp(back, orig) != 0)
                        fail_msg("%s on %s does not round-trip:\n%s", t->motif, t->kernel, back);
                /* the comments of the original all survive */
                for (const char *c = strstr(orig, "//"); c; c = strstr(c + 2, "//")) {
                        char line[256];
                        size_t n = strcspn(c, "\n");
                        snprintf(line, sizeof(line), "%.*s", (int)(n < 255 ? n : 255), c);
                        if (!strstr(once, line))
                                fail_msg("%s on %s lost the comment %s", t->motif, t->kernel, line);
                }
                if (t->absent_in) {
                        char *other = slurp(t->absent_in);
                        if (sites(t->motif, t->first, other) != 0)
                                fail_msg("%s: detected in %s", t->motif, t->absent_in);
                        free(other);
                }
                free(orig);
                free(once);
                free(back);
        }
}

/* A Duplicate that does not change inside the loop, in the shape of layer_norm's row loop. */
static const char *hoist_kernel =
    "#include \"kernel_operator.h\"\n"
    "using namespace AscendC;\n"
    "class KernelBias {\n"
    "public:\n"
    "\t__aicore__ inline void Process()\n"
    "\t{\n"
    "\t\tLocalTensor<float> bias = biasBuf.Get<float>();\n"
    "\t\tfor (uint32_t r = 0; r < rows; r++) {\n"
    "\t\t\tLocalTensor<float> x = inQueue.DeQue<float>(); // one row\n"
    "\t\t\tDuplicate(bias, this->beta, cols); /* the same every row */\n"
    "\t\t\tAdd(x, x, bias, cols);\n"
    "\t\t\tinQueue.FreeTensor(x);\n"
    "\t\t}\n"
    "\t\tLocalTensor<float> acc = accBuf.Get<float>();\n"
    "\t\tfor (uint32_t r = 0; r < rows; r++) {\n"
    "\t\t\tDuplicate(acc, 0.0f, cols);\n"
    "\t\t\tMuls(acc, acc, 2.0f, cols);\n"
    "\t\t}\n"
    "\t}\n"
    "\tTBuf<QuePosition::VECCALC> biasBuf, accBuf;\n"
    "\tTQue<QuePosition::VECIN, 2> inQueue;\n"
    "\tuint32_t rows, cols;\n"
    "\tfloat beta;\n"
    "};\n";

static void test_hoist_duplicate(void **state)
{
        char *once, *back, *again;

        /* the second loop writes acc: its Duplicate stays */
        assert_int_equal(sites("hoist_duplicate", MOTIF_FORWARD, hoist_kernel), 1);
        once = apply("hoist_duplicate", MOTIF_FORWARD, hoist_kernel, 0);
        assert_non_null(strstr(once, "\t\tDuplicate(bias, this->beta, cols); /* the same every "
                                     "row */\n\t\tfor (uint32_t r = 0;"));
        assert_non_null(strstr(once, "// one row\n\t\t\tAdd(x, x, bias, cols);"));
        assert_int_equal(sites("hoist_duplicate", MOTIF_FORWARD, once), 0);
        assert_int_equal(sites("hoist_duplicate", MOTIF_INVERSE, once), 1);
        back = apply("hoist_duplicate", MOTIF_INVERSE, once, 0);
        /* the inverse puts it first in the loop, with its comment */
        assert_non_null(strstr(back, "{\n\t\t\tDuplicate(bias, this->beta, cols); /* the same "
                                     "every row */\n\t\t\tLocalTensor<float> x"));
        again = apply("hoist_duplicate", MOTIF_FORWARD, back, 0);
        assert_string_equal(again, once);
        free(once);
        free(back);
        free(again);
}

/* The experts that fetch tile i + 1 before computing tile i, and their kernels. */
static const char *const prefetching_experts[] = {
        "examples/ops/level2/softmax/expert",
        "examples/ops/level2/reduce_sum/expert",
        "examples/ops/level2/rms_norm/expert",
        "examples/ops/level2/sum_squares/expert",
};

/*
 * One buffer per queue cannot hold the prefetched tile and the current one,
 * so the inverse turns the loop back into fetch-compute-store per tile, in
 * the same site as BUFFER_NUM; the host's tiling is left alone, and the
 * forward gives back a kernel that behaves like the expert.
 */
/*
 * The function form, on rsqrt: Compute(count) refills a TBuf of ones every
 * tile.  The ones are written once, after the TBuf's InitBuffer, over the
 * whole buffer; the inverse puts the fill back into Compute with the count
 * its first reader uses.  A tensor the function also writes later (a
 * scratch buffer) is left alone.
 */
static void test_hoist_duplicate_function(void **state)
{
        char *text = slurp("examples/ops/level1/rsqrt/op_kernel/rsqrt_custom.cpp"), *once, *back,
             *scratch;

        (void)state;
        assert_int_equal(sites("hoist_duplicate", MOTIF_FORWARD, text), 1);
        once = apply("hoist_duplicate", MOTIF_FORWARD, text, 0);
        if (!strstr(once, "pipe.InitBuffer(onesBuf, tileLength * sizeof(float));\n"
                          "\t\tDuplicate(onesBuf.Get<float>(), 1.0f, tileLength);\n") ||
            strstr(once, "Duplicate(ones, 1.0f, count);"))
                fail_msg("not filled once:\n%s", once);
        assert_int_equal(sites("hoist_duplicate", MOTIF_FORWARD, once), 0);
        assert_int_equal(sites("hoist_duplicate", MOTIF_INVERSE, once), 1);
        back = apply("hoist_duplicate", MOTIF_INVERSE, once, 0);
        if (!strstr(back, "LocalTensor<float> ones = onesBuf.Get<float>();\n"
                          "\t\tDuplicate(ones, 1.0f, count);\n") ||
            strstr(back, "onesBuf.Get<float>(), 1.0f"))
                fail_msg("not filled in every call again:\n%s", back);
        /* a later write makes the buffer scratch: nothing to hoist */
        scratch = strdup(text);
        {
                char *div = strstr(scratch, "Div(xf, ones, xf, count);");
                assert_non_null(div);
                memcpy(div, "Div(ones, ones, xf, count);", strlen("Div(ones, ones, xf, count);"));
        }
        assert_int_equal(sites("hoist_duplicate", MOTIF_FORWARD, scratch), 0);
        free(text);
        free(once);
        free(back);
        free(scratch);
}

static void test_double_buffer_prefetch(void **state)
{
        for (size_t i = 0; i < sizeof(prefetching_experts) / sizeof(*prefetching_experts); i++) {
                struct op_files op;
                struct motif_file *changed = NULL;
                size_t n = 0;
                const char *kernel;
                char *once, *back;

                op_load(prefetching_experts[i], &op);
                kernel = op_kernel_text(&op);
                assert_non_null(strstr(kernel, "CopyIn(i + 1);"));
                assert_int_equal(sites("double_buffer", MOTIF_INVERSE, kernel), 1);
                once = apply("double_buffer", MOTIF_INVERSE, kernel, 0);
                if (strstr(once, "i + 1") || strstr(once, "CopyIn(0)") ||
                    !strstr(once, "CopyIn(i);") || !strstr(once, "BUFFER_NUM = 1;"))
                        fail_msg("%s: the prefetch is not unwound:\n%s", prefetching_experts[i],
                                 once);
                /* the kernel alone changes: one buffer of the host's size fits */
                assert_int_equal(motif_apply(motif_find("double_buffer"), MOTIF_INVERSE, op.files,
                                             op.n, MOTIF_ALL_SITES, &changed, &n),
                                 0);
                assert_int_equal(n, 1);
                assert_non_null(strstr(changed[0].path, "op_kernel/"));
                motif_files_free(changed, n);
                /* forward: double buffers again, with a plain loop */
                assert_int_equal(sites("double_buffer", MOTIF_INVERSE, once), 0);
                assert_int_equal(sites("double_buffer", MOTIF_FORWARD, once), 1);
                back = apply("double_buffer", MOTIF_FORWARD, once, 0);
                assert_non_null(strstr(back, "BUFFER_NUM = 2;"));
                assert_non_null(strstr(back, "CopyIn(i);"));
                free(once);
                free(back);
                op_release(&op);
        }
}

/*
 * Prefetching a copy-in that fills queues declared together (cann-ops'
 * pre_layer_norm: "TQue<VECIN, BUFFER_NUM> queueX, queueY;" with
 * BUFFER_NUM = 1): their shared depth and each InitBuffer become 2 once,
 * a run-time count (t.bufferNum) too, and tile 0 is fetched before the
 * loop only when there is one.  A copy-in of two arguments is left alone.
 */
static void test_prefetch_tile(void **state)
{
        const char *text = "constexpr int32_t BUFFER_NUM = 1;\n"
                           "class K {\n"
                           "public:\n"
                           "    __aicore__ inline void Init(const T &t)\n"
                           "    {\n"
                           "        pipe.InitBuffer(queueX, BUFFER_NUM, 1024);\n"
                           "        pipe.InitBuffer(queueY, t.bufferNum, 1024);\n"
                           "        pipe.InitBuffer(queueZ, BUFFER_NUM, 1024);\n"
                           "    }\n"
                           "    __aicore__ inline void Process()\n"
                           "    {\n"
                           "        for (int32_t i = 0; i < this->rowNum; i++) {\n"
                           "            CopyIn(i);\n"
                           "            Compute(i);\n"
                           "            CopyOut(i);\n"
                           "        }\n"
                           "        for (uint32_t j = 0; j < n; j++) {\n"
                           "            Load(j, 8);\n"
                           "        }\n"
                           "    }\n"
                           "    __aicore__ inline void CopyIn(int32_t i)\n"
                           "    {\n"
                           "        LocalTensor<float> x = queueX.AllocTensor<float>();\n"
                           "        LocalTensor<float> y = queueY.AllocTensor<float>();\n"
                           "        DataCopy(x, xGm[i * 256], 256);\n"
                           "        DataCopy(y, yGm[i * 256], 256);\n"
                           "        queueX.EnQue(x);\n"
                           "        queueY.EnQue(y);\n"
                           "    }\n"
                           "    TQue<QuePosition::VECIN, BUFFER_NUM> queueX, queueY;\n"
                           "    TQue<QuePosition::VECOUT, BUFFER_NUM> queueZ;\n"
                           "};\n";
        char *once, *back;

        (void)state;
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, text), 1);
        once = apply("prefetch_tile", MOTIF_FORWARD, text, 0);
        if (!strstr(once, "if (0 < this->rowNum) CopyIn(0);\n        for (int32_t i") ||
            !strstr(once, "if (i + 1 < this->rowNum) CopyIn(i + 1);") ||
            !strstr(once, "TQue<QuePosition::VECIN, 2> queueX, queueY;") ||
            !strstr(once, "InitBuffer(queueX, 2, 1024)") ||
            !strstr(once, "InitBuffer(queueY, 2, 1024)") ||
            /* the output queue is not fetched into */
            !strstr(once, "InitBuffer(queueZ, BUFFER_NUM, 1024)") ||
            !strstr(once, "TQue<QuePosition::VECOUT, BUFFER_NUM> queueZ;") ||
            !strstr(once, "Load(j, 8);"))
                fail_msg("not prefetched as expected:\n%s", once);
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, once), 0);
        assert_int_equal(sites("prefetch_tile", MOTIF_INVERSE, once), 1);
        back = apply("prefetch_tile", MOTIF_INVERSE, once, 0);
        if (!strstr(back, "            CopyIn(i);\n            Compute(i);") ||
            strstr(back, "CopyIn(0)") || strstr(back, "i + 1"))
                fail_msg("not unwound:\n%s", back);
        free(once);
        free(back);
}

/*
 * The inline form: the tile loop allocates, copies in and enqueues its own
 * input, and its compute reads a reduction back.  The fetch of tile off +
 * step moves ahead of tile off's compute, with a first fetch before the
 * loop; the queue already has two buffers, so the round trip is exact.
 * Loops whose fetch cannot move are left alone: one that leaves early,
 * one whose declarations call a function, one whose fetch reads what the
 * body changes, one that calls a function of the file; and one that reads
 * nothing back, whose next copy already runs under its compute.
 */
static const char *inline_fetch_kernel =
    "class K {\n"
    "public:\n"
    "\t__aicore__ inline void Process()\n"
    "\t{\n"
    "\t\tfloat sum = 0;\n"
    "\t\tfor (uint32_t off = 0; off < length; off += tileLength) {\n"
    "\t\t\tuint32_t n = length - off < tileLength ? length - off : tileLength;\n"
    "\t\t\tLocalTensor<float> x = inQueue.AllocTensor<float>(); // one tile\n"
    "\t\t\tif (n % 8 == 0) {\n"
    "\t\t\t\tDataCopy(x, xGm[off], n);\n"
    "\t\t\t} else {\n"
    "\t\t\t\tDataCopyExtParams p{1, (uint32_t)(n * sizeof(float)), 0, 0, 0};\n"
    "\t\t\t\tDataCopyPad(x, xGm[off], p, pad);\n"
    "\t\t\t}\n"
    "\t\t\tinQueue.EnQue(x);\n"
    "\t\t\tx = inQueue.DeQue<float>();\n"
    "\t\t\tReduceSum(red, x, work, n);\n"
    "\t\t\tsum += red.GetValue(0);\n"
    "\t\t\tinQueue.FreeTensor(x);\n"
    "\t\t}\n"
    "\t\tfor (uint32_t i = 0; i < rows; i++) {\n"
    "\t\t\tuint32_t at = Offset(i);\n"
    "\t\t\tLocalTensor<float> y = rowQueue.AllocTensor<float>();\n"
    "\t\t\tDataCopy(y, xGm[at], cols);\n"
    "\t\t\trowQueue.EnQue(y);\n"
    "\t\t\tLocalTensor<float> z = rowQueue.DeQue<float>();\n"
    "\t\t\trowQueue.FreeTensor(z);\n"
    "\t\t}\n"
    "\t\tfor (uint32_t i = 0; i < rows; i++) {\n"
    "\t\t\tLocalTensor<float> y = rowQueue2.AllocTensor<float>();\n"
    "\t\t\tDataCopy(y, xGm[gmOff], cols);\n"
    "\t\t\trowQueue2.EnQue(y);\n"
    "\t\t\ty = rowQueue2.DeQue<float>();\n"
    "\t\t\tgmOff += cols;\n"
    "\t\t\trowQueue2.FreeTensor(y);\n"
    "\t\t}\n"
    "\t\tfor (uint32_t i = 0; i < rows; i++) {\n"
    "\t\t\tLocalTensor<float> y = rowQueue3.AllocTensor<float>();\n"
    "\t\t\tDataCopy(y, xGm[i * cols], cols);\n"
    "\t\t\trowQueue3.EnQue(y);\n"
    "\t\t\ty = rowQueue3.DeQue<float>();\n"
    "\t\t\tif (y.GetValue(0) > 0)\n"
    "\t\t\t\tbreak;\n"
    "\t\t\trowQueue3.FreeTensor(y);\n"
    "\t\t}\n"
    "\t\tfor (uint32_t i = 0; i < rows; i++) {\n"
    "\t\t\tLocalTensor<float> y = rowQueue5.AllocTensor<float>();\n"
    "\t\t\tDataCopy(y, xGm[i * cols], cols);\n"
    "\t\t\trowQueue5.EnQue(y);\n"
    "\t\t\ty = rowQueue5.DeQue<float>();\n"
    "\t\t\tMuls(y, y, 2.0f, cols);\n"
    "\t\t\trowQueue5.FreeTensor(y);\n"
    "\t\t}\n"
    "\t\tfor (uint32_t i = 0; i < rows; i++) {\n"
    "\t\t\tLocalTensor<float> y = rowQueue4.AllocTensor<float>();\n"
    "\t\t\tDataCopy(y, xGm[i * cols], cols);\n"
    "\t\t\trowQueue4.EnQue(y);\n"
    "\t\t\ty = rowQueue4.DeQue<float>();\n"
    "\t\t\tStep(y);\n"
    "\t\t\trowQueue4.FreeTensor(y);\n"
    "\t\t}\n"
    "\t}\n"
    "\t__aicore__ inline uint32_t Offset(uint32_t i) { return i * cols; }\n"
    "\t__aicore__ inline void Step(LocalTensor<float> &y) { Muls(y, y, 2.0f, cols); }\n"
    "\tTQue<QuePosition::VECIN, 2> inQueue, rowQueue, rowQueue2, rowQueue3, rowQueue4,\n"
    "\t\trowQueue5;\n"
    "};\n";

/*
 * The TBuf form, on reduce_max: its tile lives in a TBuf taken before the
 * loop.  Under PIPE_ALL barriers nothing can overlap and the loop is left
 * alone; once barrier_removal took them, the TBuf becomes a depth-2 VECIN
 * queue fetched ahead, and the inverse gives the queue's inline form.
 */
static void test_prefetch_tile_tbuf(void **state)
{
        char *text = slurp("examples/ops/level2/reduce_max/op_kernel/reduce_max.cpp"), *bare, *once,
             *back;

        (void)state;
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, text), 0);
        bare = apply("barrier_removal", MOTIF_FORWARD, text, MOTIF_ALL_SITES);
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, bare), 1);
        once = apply("prefetch_tile", MOTIF_FORWARD, bare, 0);
        if (!strstr(once, "TQue<QuePosition::VECIN, 2> inBuf;") ||
            !strstr(once, "InitBuffer(inBuf, 2, ") || strstr(once, "inBuf.Get") ||
            !strstr(once, "if (0 < rowNum) {") ||
            !strstr(once, "LocalTensor<half> xLocal = inBuf.DeQue<half>();\n"
                          "\t\t\tif (row + tileRows < rowNum) {") ||
            !strstr(once, "LocalTensor<half> xLocalNext = inBuf.AllocTensor<half>();") ||
            !strstr(once, "xGm[(uint64_t)(row + tileRows) * cols]") ||
            !strstr(once, "inBuf.FreeTensor(xLocal);"))
                fail_msg("not fetched ahead as expected:\n%s", once);
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, once), 0);
        assert_int_equal(sites("prefetch_tile", MOTIF_INVERSE, once), 1);
        back = apply("prefetch_tile", MOTIF_INVERSE, once, 0);
        if (!strstr(back, "LocalTensor<half> xLocal = inBuf.AllocTensor<half>();") ||
            !strstr(back, "inBuf.EnQue(xLocal);\n\t\t\txLocal = inBuf.DeQue<half>();") ||
            strstr(back, "Next") || strstr(back, "if (0 < rowNum)"))
                fail_msg("not unwound:\n%s", back);
        free(text);
        free(bare);
        free(once);
        free(back);
}

static void test_prefetch_tile_inline(void **state)
{
        char *once, *back;

        (void)state;
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, inline_fetch_kernel), 1);
        once = apply("prefetch_tile", MOTIF_FORWARD, inline_fetch_kernel, 0);
        if (!strstr(once, "\t\tif (0 < length) {\n"
                          "\t\t\tuint32_t nNext = length - 0 < tileLength ? length - 0 : "
                          "tileLength;\n"
                          "\t\t\tLocalTensor<float> xNext = inQueue.AllocTensor<float>(); // one "
                          "tile\n"
                          "\t\t\tif (nNext % 8 == 0) {\n"
                          "\t\t\t\tDataCopy(xNext, xGm[0], nNext);\n") ||
            !strstr(once, "\t\t\tinQueue.EnQue(xNext);\n"
                          "\t\t}\n"
                          "\t\tfor (uint32_t off = 0;") ||
            !strstr(once, "\t\t\tuint32_t n = length - off < tileLength ? length - off : "
                          "tileLength;\n"
                          "\t\t\tLocalTensor<float> x = inQueue.DeQue<float>();\n"
                          "\t\t\tif (off + tileLength < length) {\n"
                          "\t\t\t\tuint32_t nNext = length - (off + tileLength) < tileLength ? "
                          "length - (off + tileLength) : tileLength;\n") ||
            !strstr(once, "\t\t\t\t\tDataCopyPad(xNext, xGm[(off + tileLength)], p, pad);\n"
                          "\t\t\t\t}\n"
                          "\t\t\t\tinQueue.EnQue(xNext);\n"
                          "\t\t\t}\n"
                          "\t\t\tReduceSum(red, x, work, n);\n"))
                fail_msg("not fetched ahead as expected:\n%s", once);
        assert_int_equal(sites("prefetch_tile", MOTIF_FORWARD, once), 0);
        assert_int_equal(sites("prefetch_tile", MOTIF_INVERSE, once), 1);
        back = apply("prefetch_tile", MOTIF_INVERSE, once, 0);
        assert_string_equal(back, inline_fetch_kernel);
        free(once);
        free(back);
}

/*
 * A per-tile reduction read back into a float, in the shape of cann-ops'
 * add_layer_norm: the buffers are set up in a branch, the float lives in
 * the row loop, the read waits on a V_S flag pair.  The second loop reads
 * its float inside the loop (a running max), which only the scalar unit
 * can keep: it is left alone, and so is an int accumulator.
 */
static void test_vector_accumulator(void **state)
{
        const char *text = "class K {\n"
                           "public:\n"
                           "    __aicore__ inline void Init(TPipe *pipe)\n"
                           "    {\n"
                           "        Ppipe = pipe;\n"
                           "        if (wide) {\n"
                           "            Ppipe->InitBuffer(workBuf, 4096);\n"
                           "        } else {\n"
                           "            Ppipe->InitBuffer(workBuf, 1024);\n"
                           "        }\n"
                           "    }\n"
                           "    __aicore__ inline void Process()\n"
                           "    {\n"
                           "        LocalTensor<float> part = workBuf.Get<float>();\n"
                           "        for (uint32_t r = 0; r < rows; r++) {\n"
                           "            float mean = 0;\n"
                           "            for (uint32_t c = 0; c < tiles; c++) {\n"
                           "                ReduceSum(part, part, part, n); // this tile\n"
                           "                SetFlag<HardEvent::V_S>(EVENT_ID0);\n"
                           "                WaitFlag<HardEvent::V_S>(EVENT_ID0);\n"
                           "                mean += part.GetValue(0);\n"
                           "            }\n"
                           "            Store(r, mean);\n"
                           "            float peak = 0;\n"
                           "            int32_t count = 0;\n"
                           "            for (uint32_t c = 0; c < tiles; c++) {\n"
                           "                ReduceSum(part, part, part, n);\n"
                           "                peak += part.GetValue(0);\n"
                           "                Muls(part, part, peak, n);\n"
                           "                ReduceSum(part, part, part, n);\n"
                           "                count += part.GetValue(0);\n"
                           "            }\n"
                           "        }\n"
                           "    }\n"
                           "private:\n"
                           "    TPipe *Ppipe;\n"
                           "    TBuf<TPosition::VECCALC> workBuf;\n"
                           "};\n";
        char *once, *back;

        (void)state;
        assert_int_equal(sites("vector_accumulator", MOTIF_FORWARD, text), 1);
        once = apply("vector_accumulator", MOTIF_FORWARD, text, 0);
        if (!strstr(once, "        }\n        Ppipe->InitBuffer(meanVecBuf, 32);\n    }") ||
            !strstr(once, "    TBuf<TPosition::VECCALC> workBuf;\n") ||
            !strstr(once, "    TBuf<QuePosition::VECCALC> meanVecBuf;\n") ||
            !strstr(once, "            LocalTensor<float> meanVec = meanVecBuf.Get<float>();\n"
                          "            Duplicate(meanVec, 0.0f, 8);\n"
                          "            for (uint32_t c = 0;") ||
            !strstr(once, "ReduceSum(part, part, part, n); // this tile\n"
                          "                PipeBarrier<PIPE_V>();\n"
                          "                Add(meanVec, meanVec, part, 1);\n"
                          "            }\n"
                          "            SetFlag<HardEvent::V_S>(EVENT_ID0);\n"
                          "            WaitFlag<HardEvent::V_S>(EVENT_ID0);\n"
                          "            mean += meanVec.GetValue(0);\n"
                          "            Store(r, mean);") ||
            !strstr(once, "peak += part.GetValue(0);") ||
            !strstr(once, "count += part.GetValue(0);"))
                fail_msg("not accumulated as expected:\n%s", once);
        assert_int_equal(sites("vector_accumulator", MOTIF_FORWARD, once), 0);
        /* back, but with auto_sync (no manifest says otherwise) the read needs no flags */
        assert_int_equal(sites("vector_accumulator", MOTIF_INVERSE, once), 1);
        back = apply("vector_accumulator", MOTIF_INVERSE, once, 0);
        if (!strstr(back, "// this tile\n                mean += part.GetValue(0);\n            }\n"
                          "            Store(r, mean);") ||
            strstr(back, "meanVec") || strstr(back, "V_S"))
                fail_msg("not unwound:\n%s", back);
        free(once);
        free(back);
}

/*
 * exp's loop after barrier_removal and datacopy_aligned, as Stage II
 * meets it once those have won: no barriers left to replace, and each
 * copy an if/else of DataCopy and DataCopyPad.  The queues still come,
 * both branches of the copy-out read the new output tensor, and the
 * inverse puts the loop back under barriers.
 */
static void test_tbuf_queues_after_other_motifs(void **state)
{
        char *text = slurp("examples/ops/level1/exp/op_kernel/exp_custom.cpp"), *once, *back;

        (void)state;
        for (const char *m = "barrier_removal"; m;
             m = strcmp(m, "barrier_removal") == 0 ? "datacopy_aligned" : NULL) {
                char *next = apply(m, MOTIF_FORWARD, text, MOTIF_ALL_SITES);
                free(text);
                text = next;
        }
        assert_null(strstr(text, "PipeBarrier<PIPE_ALL>();"));
        assert_int_equal(sites("tbuf_queues", MOTIF_FORWARD, text), 1);
        once = apply("tbuf_queues", MOTIF_FORWARD, text, 0);
        if (!strstr(once, "Exp(localOut, local, count);") ||
            !strstr(once, "DataCopy(yGm[offset], localOut, count);") ||
            !strstr(once, "DataCopyPad(yGm[offset], localOut, params);") ||
            !strstr(once, "calcBufOut.FreeTensor(localOut);") ||
            !strstr(once, "TQue<QuePosition::VECIN, 2> calcBuf;"))
                fail_msg("not queued as expected:\n%s", once);
        assert_int_equal(sites("tbuf_queues", MOTIF_INVERSE, once), 1);
        back = apply("tbuf_queues", MOTIF_INVERSE, once, 0);
        if (!strstr(back, "Exp(local, local, count);\n\t\t\tPipeBarrier<PIPE_ALL>();") ||
            strstr(back, "calcBufOut") || strstr(back, "TQue"))
                fail_msg("not unwound:\n%s", back);
        free(text);
        free(once);
        free(back);
}

/* A prefetch in a form the inverse does not know: it declines rather than break the kernel. */
static void test_double_buffer_declines(void **state)
{
        const char *text =
            "#include \"kernel_operator.h\"\n"
            "constexpr int32_t BUFFER_NUM = 2;\n"
            "class K {\n"
            "\t__aicore__ inline void Process()\n"
            "\t{\n"
            "\t\tuint32_t t = 0;\n"
            "\t\tCopyIn(0);\n"
            "\t\twhile (t < tiles) {\n"
            "\t\t\tif (t + 1 < tiles)\n"
            "\t\t\t\tCopyIn(t + 1);\n"
            "\t\t\tCompute(t);\n"
            "\t\t\tt++;\n"
            "\t\t}\n"
            "\t}\n"
            "\t__aicore__ inline void Init() { pipe.InitBuffer(q, BUFFER_NUM, 1024); }\n"
            "\tTQue<QuePosition::VECIN, BUFFER_NUM> q;\n"
            "};\n";

        assert_int_equal(sites("double_buffer", MOTIF_INVERSE, text), 0);
}

/* Comments, commented-out code, macros and strings are not code to rewrite. */
static void test_comments_and_macros(void **state)
{
        const char *text = "#include \"kernel_operator.h\"\n"
                           "#define BUFFER_NUM 1 // one buffer\n"
                           "class K {\n"
                           "\t__aicore__ inline void Process()\n"
                           "\t{\n"
                           "\t\t// PipeBarrier<PIPE_ALL>();\n"
                           "\t\tconst char *s = \"PipeBarrier<PIPE_ALL>();\";\n"
                           "\t\tCopyIn(); /* keep */ PipeBarrier<PIPE_ALL>(); // drain\n"
                           "\t\tPipeBarrier<PIPE_ALL>();\n"
                           "\t\tpipe.InitBuffer(q, BUFFER_NUM, 1024);\n"
                           "\t}\n"
                           "};\n";
        char *out;

        assert_int_equal(sites("barrier_removal", MOTIF_FORWARD, text), 2);
        out = apply("barrier_removal", MOTIF_FORWARD, text, MOTIF_ALL_SITES);
        assert_string_equal(out, "#include \"kernel_operator.h\"\n"
                                 "#define BUFFER_NUM 1 // one buffer\n"
                                 "class K {\n"
                                 "\t__aicore__ inline void Process()\n"
                                 "\t{\n"
                                 "\t\t// PipeBarrier<PIPE_ALL>();\n"
                                 "\t\tconst char *s = \"PipeBarrier<PIPE_ALL>();\";\n"
                                 "\t\tCopyIn(); /* keep */ // drain\n"
                                 "\t\tpipe.InitBuffer(q, BUFFER_NUM, 1024);\n"
                                 "\t}\n"
                                 "};\n");
        free(out);
        out = apply("double_buffer", MOTIF_FORWARD, text, 0);
        assert_non_null(strstr(out, "#define BUFFER_NUM 2 // one buffer\n"));
        free(out);
}

/* A rewrite that touches the tiling too comes back as one file set. */
static void test_file_sets(void **state)
{
        struct op_files op;
        struct motif_file *changed = NULL;
        size_t n = 0;

        op_load("examples/calibration/add_case5_l2_bypass", &op);
        assert_int_equal(motif_apply(motif_find("bank_conflict_pad"), MOTIF_FORWARD, op.files, op.n,
                                     0, &changed, &n),
                         0);
        assert_int_equal(n, 2);
        for (size_t i = 0; i < n; i++) {
                if (strncmp(changed[i].path, "op_host/", 8) == 0)
                        assert_non_null(strstr(changed[i].text, "ubSize -= 256;"));
                else
                        assert_non_null(strstr(changed[i].text, "InitBuffer(motifBankPad, 256);"));
        }
        motif_files_free(changed, n);
        assert_int_equal(motif_apply(motif_find("aiv_only"), MOTIF_INVERSE, op.files, op.n,
                                     MOTIF_ALL_SITES, &changed, &n),
                         -ENOENT);
        assert_int_equal(
            motif_apply(motif_find("aiv_only"), MOTIF_FORWARD, op.files, op.n, 7, &changed, &n),
            -ENOENT);
        assert_int_equal(motif_detect(motif_find("aiv_only"), MOTIF_FORWARD, op.files + op.n - 1,
                                      strncmp(op.files[op.n - 1].path, "op_host", 7) == 0 ? 1 : 0,
                                      &(struct motif_site *){ NULL }, &n),
                         -EINVAL);
        op_release(&op);
}

/*
 * Real kernels keep their bodies in a header beside the entry file
 * (cann-ops: op_kernel/foo.cpp includes op_kernel/foo_impl.h).  abs split
 * that way: the entry sorts first and holds no queue, yet double_buffer
 * finds the header's and rewrites the header alone.
 */
static void test_kernel_in_a_header(void **state)
{
        struct op_files op;
        struct motif_file files[8], *changed = NULL;
        struct motif_site *found = NULL;
        const char *kernel;
        char *entry, *impl;
        size_t n = 0, nf = 0;

        op_load("examples/ops/level1/abs", &op);
        kernel = op_kernel_text(&op);
        assert_non_null(kernel);
        const char *cut = strstr(kernel, "template <typename T>\n__global__");
        assert_non_null(cut);
        impl = strndup(kernel, (size_t)(cut - kernel));
        assert_non_null(impl);
        assert_true(asprintf(&entry, "#include \"abs_custom_impl.h\"\n%s", cut) > 0);
        for (size_t i = 0; i < op.n && nf < 6; i++)
                if (strncmp(op.files[i].path, "op_kernel/", 10) != 0)
                        files[nf++] = op.files[i];
        files[nf++] = (struct motif_file){ "op_kernel/abs_custom.cpp", entry };
        files[nf++] = (struct motif_file){ "op_kernel/abs_custom_impl.h", impl };

        assert_int_equal(
            motif_detect(motif_find("double_buffer"), MOTIF_FORWARD, files, nf, &found, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(found[0].file, "op_kernel/abs_custom_impl.h");
        free(found);
        assert_int_equal(
            motif_apply(motif_find("double_buffer"), MOTIF_FORWARD, files, nf, 0, &changed, &n), 0);
        assert_int_equal(n, 1);
        assert_string_equal(changed[0].path, "op_kernel/abs_custom_impl.h");
        assert_non_null(strstr(changed[0].text, "BUFFER_NUM = 2"));
        motif_files_free(changed, n);
        /* aiv_only still finds the entry, in the other file */
        assert_int_equal(motif_detect(motif_find("aiv_only"), MOTIF_FORWARD, files, nf, &found, &n),
                         0);
        assert_int_equal(n, 1);
        assert_string_equal(found[0].file, "op_kernel/abs_custom.cpp");
        free(found);
        free(entry);
        free(impl);
        op_release(&op);
}

/*
 * out_of_place on a chain of in-place instructions: one new buffer, the
 * chain alternating between it and the temporary; an accumulator (read
 * before written), Axpy (reads its destination), a tensor handed to a
 * queue and an instruction in a loop are left alone; the inverse puts
 * the chain back in place.
 */
static const char *place_kernel = "class K {\n"
                                  "public:\n"
                                  "    __aicore__ inline void Init()\n"
                                  "    {\n"
                                  "        pipe.InitBuffer(inQueue, 2, n * sizeof(float));\n"
                                  "        pipe.InitBuffer(outQueue, 2, n * sizeof(float));\n"
                                  "        pipe.InitBuffer(tmpBuf, n * sizeof(float));\n"
                                  "        pipe.InitBuffer(accBuf, n * sizeof(float));\n"
                                  "    }\n"
                                  "    __aicore__ inline void Compute()\n"
                                  "    {\n"
                                  "        LocalTensor<float> x = inQueue.DeQue<float>();\n"
                                  "        LocalTensor<float> y = outQueue.AllocTensor<float>();\n"
                                  "        LocalTensor<float> t = tmpBuf.Get<float>();\n"
                                  "        LocalTensor<float> acc = accBuf.Get<float>();\n"
                                  "        Mul(t, x, x, n); // x^2\n"
                                  "        Muls(t, t, 0.5f, n);\n"
                                  "        Adds(t, t, 1.0f, n); /* + 1 */\n"
                                  "        Exp(t, t, n);\n"
                                  "        Add(acc, acc, t, n);\n"
                                  "        Axpy(y, t, 2.0f, n);\n"
                                  "        Muls(y, y, 3.0f, n);\n"
                                  "        outQueue.EnQue(y);\n"
                                  "        for (uint32_t i = 0; i < 4; i++) {\n"
                                  "            Muls(x, x, 2.0f, n);\n"
                                  "        }\n"
                                  "        inQueue.FreeTensor(x);\n"
                                  "    }\n"
                                  "    TPipe pipe;\n"
                                  "    TQue<QuePosition::VECIN, 2> inQueue;\n"
                                  "    TQue<QuePosition::VECOUT, 2> outQueue;\n"
                                  "    TBuf<QuePosition::VECCALC> tmpBuf, accBuf;\n"
                                  "    uint32_t n;\n"
                                  "};\n";

/* Two dtype branches each with an in-place Exp, a third on a buffer the others never touch. */
static const char *place_branches = "class K {\n"
                                    "public:\n"
                                    "    __aicore__ inline void Init()\n"
                                    "    {\n"
                                    "        if (half) {\n"
                                    "            pipe.InitBuffer(aBuf, n * sizeof(float));\n"
                                    "        } else {\n"
                                    "            pipe.InitBuffer(aBuf, n * sizeof(float));\n"
                                    "            pipe.InitBuffer(bBuf, n * sizeof(float));\n"
                                    "        }\n"
                                    "    }\n"
                                    "    __aicore__ inline void Compute()\n"
                                    "    {\n"
                                    "        if constexpr (sizeof(T) == 2) {\n"
                                    "            LocalTensor<float> a = aBuf.Get<float>();\n"
                                    "            Duplicate(a, 1.0f, n);\n"
                                    "            Exp(a, a, n);\n"
                                    "            Store(a);\n"
                                    "        } else if constexpr (sizeof(T) == 4) {\n"
                                    "            LocalTensor<half> a = aBuf.Get<half>();\n"
                                    "            Duplicate(a, 2.0f, n);\n"
                                    "            Exp(a, a, n);\n"
                                    "            Store(a);\n"
                                    "        } else {\n"
                                    "            LocalTensor<float> b = bBuf.Get<float>();\n"
                                    "            Duplicate(b, 3.0f, n);\n"
                                    "            Exp(b, b, n);\n"
                                    "            Store(b);\n"
                                    "        }\n"
                                    "        Store(n);\n"
                                    "    }\n"
                                    "    TBuf<QuePosition::VECCALC> aBuf;\n"
                                    "    TBuf<QuePosition::VECCALC> bBuf;\n"
                                    "};\n";

static void test_out_of_place(void **state)
{
        char *once, *back, *branches;

        (void)state;
        assert_int_equal(sites("out_of_place", MOTIF_FORWARD, place_kernel), 3);
        once = apply("out_of_place", MOTIF_FORWARD, place_kernel, MOTIF_ALL_SITES);
        if (!strstr(once, "        pipe.InitBuffer(tmpBuf, n * sizeof(float));\n"
                          "        pipe.InitBuffer(motifPlaceBuf, n * sizeof(float));\n") ||
            !strstr(once, "        Mul(t, x, x, n); // x^2\n"
                          "        LocalTensor<float> motifPlace = motifPlaceBuf.Get<float>();\n"
                          "        Muls(motifPlace, t, 0.5f, n);\n"
                          "        Adds(t, motifPlace, 1.0f, n); /* + 1 */\n"
                          "        Exp(motifPlace, t, n);\n"
                          "        Add(acc, acc, motifPlace, n);\n"
                          "        Axpy(y, motifPlace, 2.0f, n);\n"
                          "        Muls(y, y, 3.0f, n);\n") ||
            !strstr(once, "            Muls(x, x, 2.0f, n);\n") ||
            !strstr(once, "    TBuf<QuePosition::VECCALC> motifPlaceBuf;\n") ||
            strstr(once, "motifPlaceBuf2"))
                fail_msg("not written out of place as expected:\n%s", once);
        assert_int_equal(sites("out_of_place", MOTIF_FORWARD, once), 0);
        back = apply("out_of_place", MOTIF_INVERSE, once, MOTIF_ALL_SITES);
        if (!strstr(back, "        Mul(t, x, x, n); // x^2\n"
                          "        LocalTensor<float> motifPlace = motifPlaceBuf.Get<float>();\n"
                          "        Muls(t, t, 0.5f, n);\n"
                          "        Adds(t, t, 1.0f, n); /* + 1 */\n"
                          "        Exp(t, t, n);\n"
                          "        Add(acc, acc, t, n);\n"
                          "        Axpy(y, t, 2.0f, n);\n"))
                fail_msg("not back in place:\n%s", back);
        free(once);
        free(back);

        /* each branch gets a buffer of its type; set up beside every aBuf, shared where idle */
        assert_int_equal(sites("out_of_place", MOTIF_FORWARD, place_branches), 3);
        branches = apply("out_of_place", MOTIF_FORWARD, place_branches, MOTIF_ALL_SITES);
        if (!strstr(branches, "        if (half) {\n"
                              "            pipe.InitBuffer(aBuf, n * sizeof(float));\n"
                              "            pipe.InitBuffer(motifPlaceBuf, n * sizeof(float));\n"
                              "        } else {\n"
                              "            pipe.InitBuffer(aBuf, n * sizeof(float));\n"
                              "            pipe.InitBuffer(motifPlaceBuf, n * sizeof(float));\n") ||
            !strstr(branches,
                    "            LocalTensor<float> motifPlace = motifPlaceBuf.Get<float>();\n"
                    "            Exp(motifPlace, a, n);\n"
                    "            Store(motifPlace);\n") ||
            !strstr(branches,
                    "            LocalTensor<half> motifPlace2 = motifPlaceBuf.Get<half>();\n"
                    "            Exp(motifPlace2, a, n);\n") ||
            !strstr(branches, "            LocalTensor<float> motifPlace3 = aBuf.Get<float>();\n"
                              "            Exp(motifPlace3, b, n);\n"
                              "            Store(motifPlace3);\n") ||
            !strstr(branches, "        Store(n);\n"))
                fail_msg("branches not written out of place as expected:\n%s", branches);
        free(branches);

        /* in a loop: t, written afresh every pass, moves to a new buffer; acc, carried from pass
         * to pass, keeps its own, its two updates going through t, dead between them */
        {
                const char *loop = "class K {\n"
                                   "public:\n"
                                   "    __aicore__ inline void Init()\n"
                                   "    {\n"
                                   "        pipe.InitBuffer(tBuf, n * 4);\n"
                                   "        pipe.InitBuffer(accBuf, n * 4);\n"
                                   "    }\n"
                                   "    __aicore__ inline void Compute()\n"
                                   "    {\n"
                                   "        LocalTensor<float> t = tBuf.Get<float>();\n"
                                   "        LocalTensor<float> acc = accBuf.Get<float>();\n"
                                   "        Duplicate(acc, 0.0f, n);\n"
                                   "        for (uint32_t i = 0; i < tiles; i++) {\n"
                                   "            Load(i);\n"
                                   "            Duplicate(t, 1.0f, n);\n"
                                   "            Exp(t, t, n);\n"
                                   "            Muls(acc, acc, 0.5f, n);\n"
                                   "            Add(acc, acc, t, n);\n"
                                   "        }\n"
                                   "        Store(acc);\n"
                                   "    }\n"
                                   "    TBuf<QuePosition::VECCALC> tBuf, accBuf;\n"
                                   "};\n";
                char *done;
                assert_int_equal(sites("out_of_place", MOTIF_FORWARD, loop), 1);
                done = apply("out_of_place", MOTIF_FORWARD, loop, MOTIF_ALL_SITES);
                if (!strstr(done, "            LocalTensor<float> motifPlace = "
                                  "motifPlaceBuf.Get<float>();\n"
                                  "            Exp(motifPlace, t, n);\n"
                                  "            Muls(t, acc, 0.5f, n);\n"
                                  "            Add(acc, t, motifPlace, n);\n"))
                        fail_msg("loop not written out of place as expected:\n%s", done);
                free(done);
        }

        /* two in a row through a buffer dead between them: no new buffer, v keeps its value */
        {
                const char *pair = "class K {\n"
                                   "public:\n"
                                   "    __aicore__ inline void Init()\n"
                                   "    {\n"
                                   "        pipe.InitBuffer(vBuf, n * 4);\n"
                                   "        pipe.InitBuffer(tBuf, n * 4);\n"
                                   "    }\n"
                                   "    __aicore__ inline void Compute()\n"
                                   "    {\n"
                                   "        LocalTensor<float> v = vBuf.Get<float>();\n"
                                   "        LocalTensor<float> t = tBuf.Get<float>();\n"
                                   "        Load(v);\n"
                                   "        if (scaled) {\n"
                                   "            Muls(v, v, 2.0f, n);\n"
                                   "            Adds(v, v, 1.0f, n);\n"
                                   "        }\n"
                                   "        Muls(t, v, -1.0f, n);\n"
                                   "        Store(v, t);\n"
                                   "    }\n"
                                   "    TBuf<QuePosition::VECCALC> vBuf, tBuf;\n"
                                   "};\n";
                char *once = apply("out_of_place", MOTIF_FORWARD, pair, 0), *back;
                if (!strstr(once, "            Muls(t, v, 2.0f, n);\n"
                                  "            Adds(v, t, 1.0f, n);\n"
                                  "        }\n"
                                  "        Muls(t, v, -1.0f, n);\n") ||
                    strstr(once, "motifPlace"))
                        fail_msg("pair not written through t:\n%s", once);
                assert_int_equal(sites("out_of_place", MOTIF_INVERSE, once), 1);
                back = apply("out_of_place", MOTIF_INVERSE, once, 0);
                assert_string_equal(back, pair);
                free(once);
                free(back);
        }
}

/* ------------------------------------------------------------------ spread_over_cores */

/* The first text from in op's kernel replaced by to. */
static void spread_variant(struct op_files *op, const char *from, const char *to)
{
        for (size_t i = 0; i < op->n; i++) {
                char *text = (char *)op->files[i].text, *at = strstr(text, from), *out;
                if (!at || strncmp(op->files[i].path, "op_kernel/", 10) != 0)
                        continue;
                assert_true(
                    asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) > 0);
                free(text);
                op->files[i].text = out;
                return;
        }
        fail_msg("%s not found", from);
}

static size_t spread_sites(const struct op_files *op)
{
        struct motif_site *found = NULL;
        size_t n = 0;

        assert_int_equal(motif_detect(motif_find("spread_over_cores"), MOTIF_FORWARD, op->files,
                                      op->n, &found, &n),
                         0);
        free(found);
        return n;
}

/* Applies spread_over_cores in dir at every site to op; how many files changed. */
static size_t spread_apply(struct op_files *op, enum motif_direction dir)
{
        struct motif_file *changed = NULL;
        size_t n = 0;

        assert_int_equal(motif_apply(motif_find("spread_over_cores"), dir, op->files, op->n,
                                     MOTIF_ALL_SITES, &changed, &n),
                         0);
        op_update(op, changed, n);
        return n;
}

static const char *file_text(const struct op_files *op, const char *prefix)
{
        for (size_t i = 0; i < op->n; i++)
                if (strncmp(op->files[i].path, prefix, strlen(prefix)) == 0 &&
                    strstr(op->files[i].path, ".cpp"))
                        return op->files[i].text;
        return NULL;
}

/*
 * A kernel written for one core (one_core_rows: SetBlockDim(1), a loop
 * over rows storing each mean with a scalar write): each core takes runs
 * of 64 rows, the launch asks for the platform's cores, and the inverse
 * gives both files back byte for byte.  Not taken: a kernel that reads
 * its block index, a host that launches more, a loop whose count is read
 * after it, a loop that only fills UB for work after it (sum_rows), a
 * scalar store no loop covers; a DMA copy no loop covers is left to core
 * 0.  A loop inside a function some loop calls stays as it is.
 */
static void test_spread_over_cores(void **state)
{
        const char *rows_loop = "\t\tfor (uint32_t r = 0; r < rows; r++) {\n";
        struct op_files op, original;
        char *kernel, *host, *before;

        op_load("tests/ops/ok/one_core_rows", &op);
        op_load("tests/ops/ok/one_core_rows", &original);
        /* a canonical loop in a function the row loop calls: not spread */
        spread_variant(&op, "\t\tfloat total = 0.0f;\n",
                       "\t\tfloat total = 0.0f;\n\t\tfor (uint32_t k = 0; k < 1; k++)\n\t\t\ttotal "
                       "+= 0.0f;\n");
        assert_int_equal(spread_sites(&op), 1);
        before = strdup(file_text(&op, "op_kernel/"));
        assert_int_equal(spread_apply(&op, MOTIF_FORWARD), 2);
        kernel = strdup(file_text(&op, "op_kernel/"));
        host = strdup(file_text(&op, "op_host/"));
        if (!strstr(kernel, "\t\tconst uint64_t coreChunk = ((uint64_t)(rows) + 64 * "
                            "AscendC::GetBlockNum() - 1) / (64 * AscendC::GetBlockNum()) * 64;\n"
                            "\t\tfor (uint32_t r = (uint32_t)(AscendC::GetBlockIdx() * coreChunk); "
                            "r < rows && (uint64_t)(r) < (AscendC::GetBlockIdx() + 1) * coreChunk; "
                            "r++) {\n") ||
            !strstr(kernel, "for (uint32_t k = 0; k < 1; k++)") ||
            strstr(kernel, "!= 0) { return; }"))
                fail_msg("rows not spread:\n%s", kernel);
        assert_non_null(strstr(host, "context->SetBlockDim(platform_ascendc::PlatformAscendC("
                                     "context->GetPlatformInfo()).GetCoreNumAiv());"));
        assert_int_equal(spread_sites(&op), 0);
        assert_int_equal(spread_apply(&op, MOTIF_INVERSE), 2);
        assert_string_equal(file_text(&op, "op_kernel/"), before);
        assert_string_equal(file_text(&op, "op_host/"), file_text(&original, "op_host/"));
        free(before);
        free(kernel);
        free(host);
        op_release(&op);

        /* a path of another tiling key that copies out on its own: core 0 alone */
        op_load("tests/ops/ok/one_core_rows", &op);
        spread_variant(&op, "\tTPipe pipe;\n",
                       "\t__aicore__ inline void Zero()\n\t{\n\t\tLocalTensor<float> z = "
                       "sumBuf.Get<float>();\n\t\tDataCopy(yGm, z, 8);\n\t}\n\n\tTPipe pipe;\n");
        assert_int_equal(spread_sites(&op), 1);
        assert_int_equal(spread_apply(&op, MOTIF_FORWARD), 2);
        assert_non_null(strstr(file_text(&op, "op_kernel/"),
                               "\t{\n\t\tif (AscendC::GetBlockIdx() != 0) { return; }\n"
                               "\t\tLocalTensor<float> z"));
        assert_int_equal(spread_apply(&op, MOTIF_INVERSE), 2);
        assert_null(strstr(file_text(&op, "op_kernel/"), "GetBlock"));
        op_release(&op);

        /* declined */
        op_load("tests/ops/ok/one_core_rows", &op);
        spread_variant(&op, "\t\trows = t.rows;\n", "\t\trows = t.rows + 0 * GetBlockIdx();\n");
        assert_int_equal(spread_sites(&op), 0);
        op_release(&op);
        op_load("tests/ops/ok/one_core_rows", &op);
        spread_variant(&op, "\t\trows = t.rows;\n",
                       "\t\trows = t.rows + 0 * (uint32_t)block_num;\n");
        assert_int_equal(spread_sites(&op), 0);
        op_release(&op);
        op_load("tests/ops/ok/one_core_rows", &op);
        for (size_t i = 0; i < op.n; i++) {
                char *at = strstr(op.files[i].text, "context->SetBlockDim(1);");
                if (at)
                        at[21] = '8';
        }
        assert_int_equal(spread_sites(&op), 0);
        op_release(&op);
        op_load("tests/ops/ok/one_core_rows", &op);
        spread_variant(&op, rows_loop,
                       "\t\tfor (uint32_t r = 0; r < rows; r++) {\n\t\t\ttileCols++;\n");
        spread_variant(&op, "\t}\n\nprivate:", "\t\tcols = tileCols;\n\t}\n\nprivate:");
        assert_int_equal(spread_sites(&op), 0);
        op_release(&op);
        op_load("tests/ops/ok/one_core_rows", &op);
        spread_variant(&op, "\tTPipe pipe;\n",
                       "\t__aicore__ inline void Mark()\n\t{\n\t\tyGm.SetValue(0, "
                       "1.0f);\n\t}\n\n\tTPipe pipe;\n");
        assert_int_equal(spread_sites(&op), 0);
        op_release(&op);
        op_load("tests/ops/ok/sum_rows", &op);
        assert_int_equal(spread_sites(&op), 0);
        op_release(&op);
        op_release(&original);
}

/* ------------------------------------------------------------------ on the simulator */

struct sim_case {
        const char *opdir;  /* the operator (manifest, reference) */
        const char *source; /* where its files come from: opdir or its expert/ */
        const char *motif;
        enum motif_direction dir;
        bool faster;       /* forward: the latency must drop */
        const char *first; /* a motif applied forward at every site before both runs, or NULL */
};

static const struct sim_case sim_cases[] = {
        { "examples/ops/level1/mul", "examples/ops/level1/mul", "barrier_removal", MOTIF_FORWARD,
          true, NULL },
        { "examples/calibration/add_case4_double_buffer",
          "examples/calibration/add_case4_double_buffer", "l2_bypass", MOTIF_FORWARD, true, NULL },
        { "tests/ops/ok/scalar_loop", "tests/ops/ok/scalar_loop", "vectorize_scalar_loop",
          MOTIF_FORWARD, true, NULL },
        { "examples/ops/level1/relu", "examples/ops/level1/relu", "datacopy_aligned", MOTIF_FORWARD,
          true, NULL },
        { "examples/ops/level1/abs", "examples/ops/level1/abs", "double_buffer", MOTIF_FORWARD,
          true, NULL },
        { "examples/ops/level1/mul", "examples/ops/level1/mul", "aiv_only", MOTIF_FORWARD, true,
          NULL },
        { "examples/ops/level1/axpy", "examples/ops/level1/axpy", "inplace_buffer", MOTIF_FORWARD,
          false, NULL },
        { "examples/ops/level1/axpy", "examples/ops/level1/axpy/expert", "fuse_axpy", MOTIF_INVERSE,
          false, NULL },
        { "examples/ops/level1/add", "examples/ops/level1/add/expert", "remainder_first_cores",
          MOTIF_INVERSE, false, NULL },
        { "tests/ops/ok/datacopy_pad_2d", "tests/ops/ok/datacopy_pad_2d", "strided_copy",
          MOTIF_INVERSE, false, NULL },
        { "examples/ops/level2/rms_norm", "examples/ops/level2/rms_norm", "tbuf_temporaries",
          MOTIF_INVERSE, false, NULL },
        { "examples/ops/level2/rms_norm", "examples/ops/level2/rms_norm", "prefetch_tile",
          MOTIF_FORWARD, true, NULL },
        /* a prefetching expert: the loop is unwound with the second buffers */
        { "examples/ops/level2/softmax", "examples/ops/level2/softmax/expert", "double_buffer",
          MOTIF_INVERSE, false, NULL },
        { "examples/ops/level2/sum_squares", "examples/ops/level2/sum_squares/expert",
          "double_buffer", MOTIF_INVERSE, false, NULL },
        /* the new corpus experts: their inverse steps stay correct */
        { "examples/ops/level2/narrow", "examples/ops/level2/narrow/expert", "strided_copy",
          MOTIF_INVERSE, false, NULL },
        { "examples/ops/level1/reciprocal", "examples/ops/level1/reciprocal/expert",
          "hoist_duplicate", MOTIF_INVERSE, false, NULL },
        /* two per-tile reductions read back (12% off the bench case alone) */
        { "examples/ops/level3/group_norm_silu", "examples/ops/level3/group_norm_silu",
          "vector_accumulator", MOTIF_FORWARD, true, NULL },
        /* a TBuf worked in place under PIPE_ALL (23% off the bench case) */
        { "examples/ops/level1/exp", "examples/ops/level1/exp", "tbuf_queues", MOTIF_FORWARD, true,
          NULL },
        /* and the baseline's row copies merge into strided ones, faster */
        { "examples/ops/level2/narrow", "examples/ops/level2/narrow", "strided_copy", MOTIF_FORWARD,
          true, NULL },
        /* a chain in the tile loop of a function that shares its buffers with another (13% off) */
        { "examples/ops/level3/group_norm_silu", "examples/ops/level3/group_norm_silu",
          "out_of_place", MOTIF_FORWARD, true, NULL },
        /* seven in-place instructions in a row on one temporary */
        { "examples/ops/level1/gelu", "examples/ops/level1/gelu", "out_of_place", MOTIF_FORWARD,
          true, NULL },
        /* a reduction read back each tile while the next tile waits for its copy */
        { "examples/ops/level2/isamax", "examples/ops/level2/isamax", "prefetch_tile",
          MOTIF_FORWARD, true, NULL },
        /* a tile of ones refilled every tile, filled once instead */
        { "examples/ops/level1/rsqrt", "examples/ops/level1/rsqrt", "hoist_duplicate",
          MOTIF_FORWARD, true, NULL },
        /* a TBuf's tile fetched ahead through a queue, once its barriers are gone */
        { "examples/ops/level2/reduce_max", "examples/ops/level2/reduce_max", "prefetch_tile",
          MOTIF_FORWARD, true, "barrier_removal" },
        /* a kernel written for one core, its rows spread over all of them */
        { "tests/ops/ok/one_core_rows", "tests/ops/ok/one_core_rows", "spread_over_cores",
          MOTIF_FORWARD, true, NULL },
        /* its host lays out two slots per queue: the tiling is left alone */
        { "examples/ops/level3/swiglu", "examples/ops/level3/swiglu/expert", "double_buffer",
          MOTIF_INVERSE, false, NULL },
};

static void test_on_the_simulator(void **state)
{
        for (size_t i = 0; i < sizeof(sim_cases) / sizeof(*sim_cases); i++) {
                const struct sim_case *c = &sim_cases[i];
                struct npu_manifest *manifest = NULL;
                struct op_files op;
                struct motif_file *changed = NULL;
                size_t n = 0;
                json_t *base, *cand;
                char path[512], err[1024];

                snprintf(path, sizeof(path), "%s/%s", source_dir(), c->opdir);
                if (npu_manifest_load(path, &manifest, err, sizeof(err)) < 0)
                        fail_msg("%s", err);
                op_load(c->source, &op);
                if (c->first) {
                        assert_int_equal(motif_apply(motif_find(c->first), MOTIF_FORWARD, op.files,
                                                     op.n, MOTIF_ALL_SITES, &changed, &n),
                                         0);
                        op_update(&op, changed, n);
                }
                base = evaluate(manifest, &op, NULL);
                if (strcmp(json_string_value(json_object_get(base, "status")), "ok") != 0)
                        fail_msg("%s baseline: %s", c->opdir, json_dumps(base, 0));
                assert_int_equal(motif_apply(motif_find(c->motif), c->dir, op.files, op.n,
                                             MOTIF_ALL_SITES, &changed, &n),
                                 0);
                assert_true(n >= 1);
                op_update(&op, changed, n);
                cand = evaluate(manifest, &op, base);
                if (strcmp(json_string_value(json_object_get(cand, "status")), "ok") != 0)
                        fail_msg("%s after %s: %s\n%s", c->opdir, c->motif, json_dumps(cand, 0),
                                 op_kernel_text(&op));
                print_message("# %s %s on %s: %.2f us -> %.2f us\n", c->motif,
                              c->dir == MOTIF_FORWARD ? "forward" : "inverse", c->source,
                              latency(base), latency(cand));
                if (c->faster)
                        assert_true(latency(cand) < latency(base));
                /* and the other direction again keeps the outputs */
                if (motif_apply(motif_find(c->motif),
                                c->dir == MOTIF_FORWARD ? MOTIF_INVERSE : MOTIF_FORWARD, op.files,
                                op.n, MOTIF_ALL_SITES, &changed, &n) == 0) {
                        json_t *again;
                        op_update(&op, changed, n);
                        again = evaluate(manifest, &op, base);
                        if (strcmp(json_string_value(json_object_get(again, "status")), "ok") != 0)
                                fail_msg("%s back after %s: %s\n%s", c->opdir, c->motif,
                                         json_dumps(again, 0), op_kernel_text(&op));
                        json_decref(again);
                }
                rm_rf(json_string_value(json_object_get(base, "scratch_dir")));
                json_decref(base);
                json_decref(cand);
                op_release(&op);
                npu_manifest_free(manifest);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_round_trips),
                cmocka_unit_test(test_hoist_duplicate),
                cmocka_unit_test(test_double_buffer_prefetch),
                cmocka_unit_test(test_double_buffer_declines),
                cmocka_unit_test(test_prefetch_tile),
                cmocka_unit_test(test_prefetch_tile_inline),
                cmocka_unit_test(test_hoist_duplicate_function),
                cmocka_unit_test(test_prefetch_tile_tbuf),
                cmocka_unit_test(test_vector_accumulator),
                cmocka_unit_test(test_out_of_place),
                cmocka_unit_test(test_spread_over_cores),
                cmocka_unit_test(test_tbuf_queues_after_other_motifs),
                cmocka_unit_test(test_comments_and_macros),
                cmocka_unit_test(test_file_sets),
                cmocka_unit_test(test_kernel_in_a_header),
                cmocka_unit_test_setup_teardown(test_on_the_simulator, sim_setup, sim_teardown),
        };
        return cmocka_run_group_tests_name("optimizer_motifs", tests, NULL, NULL);
}
