/* SPDX-License-Identifier: MIT */
/*
 * Tests of the genes real tiling programs hide (optimizer/genes-hidden.c):
 * setter arguments and their literal factors, the factors of a UB budget
 * and the counts a condition picks for it, the multiple a share or a tile
 * is rounded to (one gene whose twins are rewritten with it), rows per
 * tile; and the literals with a fixed meaning that stay no gene (widths,
 * addends, keys, flags, loop counts, split fields).  Then the five test
 * operators under tests/ops/ok/hidden_*, one per kind, and the cores the
 * cores_from_platform move now finds in a local and in SetBlockDim.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "op-fixture.h"

#include "optimizer/optimizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void find(const char *text, struct gene **genes, size_t *n)
{
        char err[256];

        *genes = NULL;
        *n = 0;
        if (genes_find_in_text("op_host/t.cpp", text, strlen(text), genes, n, err, sizeof(err)) < 0)
                fail_msg("%s", err);
}

/* The gene named name, failing the test when there is none. */
static const struct gene *named(const struct gene *g, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(g[i].name, name) == 0)
                        return &g[i];
        fail_msg("no gene named \"%s\" among %zu", name, n);
        return NULL;
}

static void expect(const struct gene *g, unsigned line, int64_t value, enum gene_scale scale,
                   int64_t lo, int64_t hi)
{
        assert_int_equal(g->line, line);
        assert_int_equal(g->value, value);
        assert_int_equal(g->scale, scale);
        assert_int_equal(g->lo, lo);
        assert_int_equal(g->hi, hi);
}

/* Applies values to text and returns the new text (to free). */
static char *apply(const char *text, const struct gene *g, size_t n, const int64_t *values)
{
        char *out = NULL;

        assert_int_equal(genes_apply("op_host/t.cpp", text, strlen(text), g, values, n, &out), 0);
        return out;
}

/* ------------------------------------------------------------------ setters */

static const char *setters = "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"
                             "{\n"
                             "    tiling.set_tileLength(512);\n"              /* 3 */
                             "    tiling.set_tileNum(8);\n"                   /* 4 */
                             "    tilingData->set_tileRows(1);\n"             /* 5 */
                             "    tiling.set_blockLength(totalLength / 8);\n" /* 6 */
                             "    tiling.set_alignNum(16U);\n"                /* 7 */
                             "    tiling.set_tileBytes(partBytes / 4);\n"     /* 8 */
                             "    tiling.set_elemCount(partBytes / 4);\n"     /* 9 */
                             "    tiling.set_tilingKey(2);\n"                 /* 10 */
                             "    tiling.set_isBias(1);\n"                    /* 11 */
                             "    tiling.set_tailNum(1);\n"                   /* 12 */
                             "    tiling.set_perCoreLoops(1);\n"              /* 13 */
                             "    tiling.set_usedCoreNum(40);\n"              /* 14 */
                             "    tiling.set_totalLength(1024);\n"            /* 15 */
                             "    tiling.set_lastDim(64);\n"                  /* 16 */
                             "    tiling.set_tileLength(tileLength);\n"       /* 17 */
                             "    tiling.set_tailLength(total - 1);\n"        /* 18 */
                             "    return ge::GRAPH_SUCCESS;\n"
                             "}\n";

/* @tune markers still decide alone: nothing hidden is added beside them. */
static void markers_still_decide(void)
{
        const char *text = "void f()\n"
                           "{\n"
                           "    tiling.set_tileLength(512); // @tune 256..4096 pow2\n"
                           "    tiling.set_tileNum(8);\n"
                           "    uint32_t t = ub_size / 2 / NUM;\n"
                           "}\n";
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        assert_int_equal(n, 1);
        assert_true(g[0].marked);
        assert_int_equal(g[0].lo, 256);
        free(g);
}

static void test_setters(void **state)
{
        struct gene *g;
        size_t n;

        find(setters, &g, &n);
        /* a tile size at multiples of 32 from a sixteenth to sixteen times */
        expect(named(g, n, "set_tileLength"), 3, 512, GENE_ALIGN32, 32, 8192);
        /* a count at powers of two up to 16, or four times */
        expect(named(g, n, "set_tileNum"), 4, 8, GENE_POW2, 1, 32);
        /* rows per tile: every count from 1 to 64, a 1 included */
        expect(named(g, n, "set_tileRows"), 5, 1, GENE_STEP, 1, 64);
        /* a literal factor of the argument: total / 8 elements is a count of parts */
        expect(named(g, n, "set_blockLength factor #1"), 6, 8, GENE_POW2, 1, 32);
        /* an alignment only ever coarser */
        expect(named(g, n, "set_alignNum"), 7, 16, GENE_POW2, 16, 512);
        /* bytes / 4 into a bytes field is a count; into elements it is the type's width */
        expect(named(g, n, "set_tileBytes factor #1"), 8, 4, GENE_POW2, 1, 16);
        /* keys, flags, split fields, loop counts, core counts, facts and addends: none */
        assert_int_equal(n, 6);
        free(g);
        markers_still_decide();
}

static void test_setter_rewrite(void **state)
{
        struct gene *g;
        size_t n;
        int64_t values[6];
        char *out;

        find(setters, &g, &n);
        assert_int_equal(n, 6);
        for (size_t i = 0; i < n; i++)
                values[i] = g[i].value;
        values[named(g, n, "set_tileLength") - g] = 4096;
        values[named(g, n, "set_blockLength factor #1") - g] = 16;
        values[named(g, n, "set_alignNum") - g] = 64;
        out = apply(setters, g, n, values);
        assert_non_null(strstr(out, "tiling.set_tileLength(4096);\n"));
        assert_non_null(strstr(out, "tiling.set_blockLength(totalLength / 16);\n"));
        /* the suffix stays */
        assert_non_null(strstr(out, "tiling.set_alignNum(64U);\n"));
        assert_non_null(strstr(out, "tiling.set_tileNum(8);\n"));
        free(out);
        free(g);
}

/* ------------------------------------------------------------------ UB budgets */

static const char *budgets =
    "const uint32_t BLOCK_SIZE = 32;\n"                                             /* 1 */
    "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"             /* 2 */
    "{\n"                                                                           /* 3 */
    "    uint64_t ub_size, mem;\n"                                                  /* 4 */
    "    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, mem);\n" /* 5 */
    "    constexpr int32_t NUM = 5;\n"                                              /* 6 */
    "    uint32_t tiling_size = ((ub_size) / BLOCK_SIZE / 2) / NUM;\n"              /* 7 */
    "    uint32_t count = (mem - 1024) / (4 * typeSize + DWORD_SIZE * 2);\n"        /* 8 */
    "    uint32_t elems = ub_size / 2 / 4;\n"                                       /* 9 */
    "    uint32_t tileBytes = ub_size / 2 / 4;\n"                                   /* 10 */
    "    uint32_t tileLen = ub_size / BUFFER_NUM / 2 / sizeof(float);\n"            /* 11 */
    "    uint64_t ubPartNum = (dataTypeLength == 1) ? 5 : 3;\n"                     /* 12 */
    "    uint64_t ubPartLength = ubLength / ubPartNum / BUFFER_NUM;\n"              /* 13 */
    "    uint32_t byteNum = dtype == ge::DT_FLOAT ? 4 : 2;\n"                       /* 14 */
    "    uint64_t perElem = ub_size / byteNum;\n"                                   /* 15 */
    "    uint32_t blockNum = (total + 31) / 32 + 1;\n"                              /* 16 */
    "    tiling.set_tileLength(ub_size / (3 * BUFFER_NUM) / sizeof(half));\n"       /* 17 */
    "    return ge::GRAPH_SUCCESS;\n"
    "}\n";

static void test_ub_budget_factors(void **state)
{
        struct gene *g;
        size_t n;

        find(budgets, &g, &n);
        /* what genes.c finds already: the constants */
        expect(named(g, n, "BLOCK_SIZE"), 1, 32, GENE_POW2, 32, 1024);
        expect(named(g, n, "NUM"), 6, 5, GENE_STEP, 1, 20);
        /* a buffer count between the block size and the live tensors */
        expect(named(g, n, "ub_budget factor #1 of tiling_size"), 7, 2, GENE_POW2, 1, 16);
        /* live-tensor counts in a sum of products, of what GetCoreMemSize(UB) filled;
         * the reserve subtracted is no factor */
        expect(named(g, n, "ub_budget factor #1 of count"), 8, 4, GENE_POW2, 1, 16);
        expect(named(g, n, "ub_budget factor #2 of count"), 8, 2, GENE_POW2, 1, 16);
        /* ub / 2 / 4 with nothing else to make elements of bytes: the 4 is a width... */
        expect(named(g, n, "ub_budget factor #1 of elems"), 9, 2, GENE_POW2, 1, 16);
        /* ...unless what is made is bytes */
        expect(named(g, n, "ub_budget factor #1 of tileBytes"), 10, 2, GENE_POW2, 1, 16);
        expect(named(g, n, "ub_budget factor #2 of tileBytes"), 10, 4, GENE_POW2, 1, 16);
        /* sizeof converts: the 2 before it counts */
        expect(named(g, n, "ub_budget factor #1 of tileLen"), 11, 2, GENE_POW2, 1, 16);
        /* the counts a condition picks for a divisor of the budget */
        expect(named(g, n, "ub_budget ubPartNum arm 1"), 12, 5, GENE_STEP, 1, 20);
        expect(named(g, n, "ub_budget ubPartNum arm 2"), 12, 3, GENE_STEP, 1, 16);
        /* a setter's argument may be a budget too */
        expect(named(g, n, "ub_budget factor #1 of set_tileLength"), 17, 3, GENE_STEP, 1, 16);
        /* byteNum's arms are widths; blockNum's 31, 32 and 1 are no choices */
        assert_int_equal(n, 12);
        free(g);
}

/* ------------------------------------------------------------------ rounding */

static const char *roundings =
    "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"                      /* 1 */
    "{\n"                                                                                    /* 2 */
    "    uint32_t shareLength = (totalLength + coreNum - 1) / coreNum;\n"                    /* 3 */
    "    shareLength = (shareLength + 7) / 8 * 8;\n"                                         /* 4 */
    "    uint32_t core_size = (totalLength / aivNum) / (ALIGN_NUM * 8) * (ALIGN_NUM * 8);\n" /* 5 */
    "    tiling_size = tiling_size <= 8 ? tiling_size : tiling_size / 8 * 8;\n"              /* 6 */
    "    uint32_t tile = (ub_size / 3 + 256 - 1) / 256 * 256;\n"                             /* 7 */
    "    uint32_t remainStart = lastLength / 32 * 32;\n"                                     /* 8 */
    "    uint32_t tileLength = x / 96 * 96;\n"                                               /* 9 */
    "    return ge::GRAPH_SUCCESS;\n"
    "}\n";

static void test_rounding(void **state)
{
        struct gene *g;
        size_t n;
        const struct gene *share, *core, *tile, *ub;

        find(roundings, &g, &n);
        share = named(g, n, "share multiple of shareLength");
        core = named(g, n, "share multiple of core_size");
        tile = named(g, n, "tile multiple of tiling_size");
        ub = named(g, n, "ub_budget alignment of tile");
        /* only ever coarser, at powers of two up to 32 times */
        expect(share, 4, 8, GENE_POW2, 8, 256);
        expect(core, 5, 8, GENE_POW2, 8, 256);
        expect(tile, 6, 8, GENE_POW2, 8, 256);
        expect(ub, 7, 256, GENE_POW2, 256, 8192);
        /* the other literals that hold the multiple: its copy, an M - 1, a guard */
        assert_int_equal(share->n_twins, 2);
        assert_int_equal(core->n_twins, 1);
        assert_int_equal(tile->n_twins, 2);
        assert_int_equal(ub->n_twins, 2);
        /* the ub / 3 under the rounding is still a budget factor */
        expect(named(g, n, "ub_budget factor #1 of tile"), 7, 3, GENE_STEP, 1, 16);
        /* no share or tile in remainStart; 96 is no power of two */
        assert_int_equal(n, 5);
        free(g);
}

static void test_rounding_rewrite(void **state)
{
        struct gene *g;
        size_t n;
        int64_t values[5];
        char *out, *stale;

        find(roundings, &g, &n);
        assert_int_equal(n, 5);
        for (size_t i = 0; i < n; i++)
                values[i] = g[i].value;
        values[named(g, n, "share multiple of shareLength") - g] = 128;
        values[named(g, n, "share multiple of core_size") - g] = 64;
        values[named(g, n, "tile multiple of tiling_size") - g] = 16;
        values[named(g, n, "ub_budget alignment of tile") - g] = 1024;
        out = apply(roundings, g, n, values);
        assert_non_null(strstr(out, "shareLength = (shareLength + 127) / 128 * 128;\n"));
        assert_non_null(
            strstr(out, "(totalLength / aivNum) / (ALIGN_NUM * 64) * (ALIGN_NUM * 64);\n"));
        assert_non_null(strstr(
            out, "tiling_size = tiling_size <= 16 ? tiling_size : tiling_size / 16 * 16;\n"));
        assert_non_null(strstr(out, "(ub_size / 3 + 1024 - 1) / 1024 * 1024;\n"));
        free(out);
        /* a twin that no longer holds its literal is refused, as a stale gene is */
        stale = strdup(roundings);
        strstr(stale, "+ 7)")[2] = '6';
        assert_int_equal(genes_apply("op_host/t.cpp", stale, strlen(stale), g, values, n, &out),
                         -EINVAL);
        free(stale);
        free(g);
}

/*
 * A multiple held in a local, a block's bytes over an element's width:
 * the literal of its one definition is the gene, and setting it coarser
 * rounds the share and the tile that use the name alike.
 */
static const char *named_roundings =
    "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"             /* 1 */
    "{\n"                                                                           /* 2 */
    "    uint32_t alignElems = 32 / typeLength;\n"                                  /* 3 */
    "    uint32_t blockLength = totalLength / coreNum / alignElems * alignElems;\n" /* 4 */
    "    uint32_t perBlock = 32 / typeLength;\n"                                    /* 5 */
    "    uint64_t colsAligned = (cols + perBlock - 1) / perBlock * perBlock;\n"     /* 6 */
    "    uint32_t twice = 32 / typeLength;\n"                                       /* 7 */
    "    twice = 64 / typeLength;\n"                                                /* 8 */
    "    uint32_t tileLength = x / twice * twice;\n"                                /* 9 */
    "    uint32_t counted = 32 / rows;\n"                                           /* 10 */
    "    uint32_t rowShare = total / coreNum / counted * counted;\n"                /* 11 */
    "    return ge::GRAPH_SUCCESS;\n"
    "}\n";

static void test_rounding_named(void **state)
{
        struct gene *g;
        size_t n;
        int64_t values[1];
        char *out;

        find(named_roundings, &g, &n);
        /* only alignElems: colsAligned is neither a share nor a tile, twice is
         * assigned twice, and counted divides by no element width */
        assert_int_equal(n, 1);
        expect(named(g, n, "share multiple of blockLength"), 3, 32, GENE_POW2, 32, 1024);
        assert_int_equal(g[0].n_twins, 0);
        values[0] = 512;
        out = apply(named_roundings, g, n, values);
        assert_non_null(strstr(out,
                               "    uint32_t alignElems = 512 / typeLength;\n"
                               "    uint32_t blockLength = totalLength / coreNum / alignElems * "
                               "alignElems;\n"));
        free(out);
        free(g);
}

/* ------------------------------------------------------------------ rows */

static void test_rows_per_tile(void **state)
{
        const char *text = "constexpr uint32_t ROWS_PER_TILE = 4;\n"    /* 1 */
                           "static void f(const gert::Shape &s)\n"      /* 2 */
                           "{\n"                                        /* 3 */
                           "    uint32_t rowsPerTile = 1;\n"            /* 4 */
                           "    uint32_t rowFactor = 64;\n"             /* 5 */
                           "    uint64_t numRow = 1;\n"                 /* 6 */
                           "    for (size_t i = 0; i < 3; i++)\n"       /* 7 */
                           "        numRow *= s.GetDim(i);\n"           /* 8 */
                           "    uint64_t ubRows = 1;\n"                 /* 9 */
                           "    ubRows++;\n"                            /* 10 */
                           "    uint32_t rowsPerCore = 1;\n"            /* 11 */
                           "    uint32_t tileRows = rowsPerTile * 2;\n" /* 12 */
                           "    if (tileRows < 3) {\n"                  /* 13 */
                           "        tileRows = 3;\n"                    /* 14 */
                           "    }\n"
                           "}\n";
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        /* a constant genes.c found takes the range of rows */
        expect(named(g, n, "ROWS_PER_TILE"), 1, 4, GENE_STEP, 1, 64);
        expect(named(g, n, "rowFactor"), 5, 64, GENE_STEP, 1, 1024);
        expect(named(g, n, "rowsPerTile"), 4, 1, GENE_STEP, 1, 64);
        /* an accumulator, a core's share of rows and a clamp are no choices */
        assert_int_equal(n, 3);
        free(g);
}

/* ------------------------------------------------------------------ the test operators */

struct op_expect {
        const char *opdir;
        const char *name; /* the gene of its kind */
        int64_t value, lo, hi;
        enum gene_scale scale;
        size_t n_twins;
        size_t genes; /* all its genes */
};

static const struct op_expect op_expects[] = {
        { "tests/ops/ok/hidden_setter_tile", "set_tileLength", 512, 32, 8192, GENE_ALIGN32, 0, 1 },
        { "tests/ops/ok/hidden_ub_budget", "ub_budget factor #1 of tileLength", 8, 1, 32, GENE_POW2,
          0, 3 },
        { "tests/ops/ok/hidden_ub_budget", "ub_budget alignment of tileLength", 64, 64, 2048,
          GENE_POW2, 1, 3 },
        { "tests/ops/ok/hidden_share_multiple", "share multiple of shareLength", 8, 8, 256,
          GENE_POW2, 2, 2 },
        { "tests/ops/ok/hidden_rows_per_tile", "rowsPerTile", 1, 1, 64, GENE_STEP, 0, 1 },
        /* the core count is a gene as before; what is new is the move (below) */
        { "tests/ops/ok/hidden_core_count", "aivNum", 40, 10, 160, GENE_STEP, 0, 2 },
};

static void test_operators(void **state)
{
        for (size_t i = 0; i < sizeof(op_expects) / sizeof(*op_expects); i++) {
                const struct op_expect *e = &op_expects[i];
                char dir[1200], err[256];
                struct gene *g = NULL;
                const struct gene *x;
                size_t n = 0;

                snprintf(dir, sizeof(dir), "%s/%s", source_dir(), e->opdir);
                if (genes_find(dir, &g, &n, err, sizeof(err)) < 0)
                        fail_msg("%s", err);
                x = named(g, n, e->name);
                if (n != e->genes || x->value != e->value || x->lo != e->lo || x->hi != e->hi ||
                    x->scale != e->scale || x->n_twins != e->n_twins)
                        fail_msg("%s: %zu genes, %s = %lld [%lld..%lld] scale %d twins %zu",
                                 e->opdir, n, x->name, (long long)x->value, (long long)x->lo,
                                 (long long)x->hi, x->scale, x->n_twins);
                assert_int_equal(strncmp(x->file, "op_host/", 8), 0);
                free(g);
        }
}

/* ------------------------------------------------------------------ hard-coded core counts */

static size_t core_sites(const struct motif_file *files, size_t n, struct motif_site **sites)
{
        size_t n_sites = 0;

        *sites = NULL;
        assert_int_equal(
            tiling_move_detect(tiling_move_find("cores_from_platform"), files, n, sites, &n_sites),
            0);
        return n_sites;
}

static void test_core_count_sites(void **state)
{
        static const char *host =
            "#include \"register/op_def_registry.h\"\n"
            "namespace optiling {\n"
            "static ge::graphStatus Broadcast(gert::TilingContext *context)\n"
            "{\n"
            "    context->SetBlockDim(1);\n" /* a kernel for one core */
            "    return ge::GRAPH_SUCCESS;\n"
            "}\n"
            "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"
            "{\n"
            "    uint32_t aivNum = 40;\n"
            "    uint32_t rowsPerCore = 8;\n" /* a share, not a count */
            "    context->SetBlockDim(32);\n"
            "    return ge::GRAPH_SUCCESS;\n"
            "}\n"
            "}\n";
        struct motif_file files[2] = {
                { "op_host/t.cpp", host },
                { "op_kernel/t.cpp", "extern \"C\" __global__ __aicore__ void t(GM_ADDR x)\n"
                                     "{\n"
                                     "    uint32_t n = GetBlockNum();\n"
                                     "}\n" },
        };
        struct motif_file *changed = NULL;
        struct motif_site *sites;
        size_t n_changed = 0;

        /* the local in the second tiling function, and SetBlockDim(32) for a kernel that reads
         * its core count from the launch */
        assert_int_equal(core_sites(files, 2, &sites), 2);
        assert_int_equal(sites[0].line, 10);
        assert_non_null(strstr(sites[0].what, "aivNum (40)"));
        assert_int_equal(sites[1].line, 12);
        free(sites);
        assert_int_equal(tiling_move_apply(tiling_move_find("cores_from_platform"), files, 2, 0,
                                           &changed, &n_changed),
                         0);
        assert_int_equal(n_changed, 1);
        assert_non_null(strstr(changed[0].text,
                               "uint32_t aivNum = platform_ascendc::PlatformAscendC(context->"
                               "GetPlatformInfo()).GetCoreNumAiv();\n"));
        assert_non_null(strstr(changed[0].text, "#include \"tiling/platform/platform_ascendc.h\""));
        motif_files_free(changed, n_changed);
        /* a kernel that does not read GetBlockNum() keeps SetBlockDim(32): something else holds
         * the 32 */
        files[1].text = "extern \"C\" __global__ __aicore__ void t(GM_ADDR x)\n{\n}\n";
        assert_int_equal(core_sites(files, 2, &sites), 1);
        free(sites);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_setters),           cmocka_unit_test(test_setter_rewrite),
                cmocka_unit_test(test_ub_budget_factors), cmocka_unit_test(test_rounding),
                cmocka_unit_test(test_rounding_rewrite),  cmocka_unit_test(test_rounding_named),
                cmocka_unit_test(test_rows_per_tile),     cmocka_unit_test(test_operators),
                cmocka_unit_test(test_core_count_sites),
        };
        return cmocka_run_group_tests_name("optimizer_genes_hidden", tests, NULL, NULL);
}
