/* SPDX-License-Identifier: MIT */
/*
 * Tests of Stage I's gene finder and rewriter on a tiling program written
 * the way cann-ops samples are: which literals are knobs, their ranges,
 * explicit @tune markers, snapping, and rewrites that keep everything else.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "optimizer/optimizer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tiling = "#include \"add_custom_tiling.h\"\n"
                            "namespace optiling {\n"
                            "const uint32_t BLOCK_SIZE = 32;\n"
                            "const uint32_t BUFFER_NUM = 2;\n"
                            "constexpr uint32_t BLOCK_BYTES = 32;\n"
                            "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"
                            "{\n"
                            "    uint64_t ubSize;\n"
                            "    uint32_t bytesPerElem = 4, BYTES_PER_BLOCK = 32;\n"
                            "    uint32_t tileLength = 2048U;  // elements per tile\n"
                            "    uint32_t ubPartNum = 3, unused = 0;\n"
                            "    uint32_t doubled = tileLength * 2;\n"
                            "    context->SetBlockDim(8);\n"
                            "    context->SetTilingKey(1);\n"
                            "    auto shape = context->GetInputShape(0);\n"
                            "    for (uint32_t i = 2; i < 4; i++) {}\n"
                            "    /* a comment = 4096; */\n"
                            "#define TILE_CAP 0x1000\n"
                            "    return ge::GRAPH_SUCCESS;\n"
                            "}\n"
                            "}\n";

static void find(const char *text, struct gene **genes, size_t *n)
{
        char err[256];

        *genes = NULL;
        *n = 0;
        if (genes_find_in_text("op_host/add_custom.cpp", text, strlen(text), genes, n, err,
                               sizeof(err)) < 0)
                fail_msg("%s", err);
}

static void expect_gene(const struct gene *g, const char *name, int64_t value,
                        enum gene_scale scale, int64_t lo, int64_t hi)
{
        assert_string_equal(g->name, name);
        assert_int_equal(g->value, value);
        assert_int_equal(g->scale, scale);
        assert_int_equal(g->lo, lo);
        assert_int_equal(g->hi, hi);
}

static void test_knobs_are_found_with_ranges(void **state)
{
        struct gene *g;
        size_t n;

        find(tiling, &g, &n);
        assert_int_equal(n, 7);
        /* an alignment is searched only coarser, at powers of two */
        expect_gene(&g[0], "BLOCK_SIZE", 32, GENE_POW2, 32, 1024);
        /* a small power of two is a count, searched at powers of two (2^k cores
         * split a 2^n tensor into 512-byte-aligned shares) */
        expect_gene(&g[1], "BUFFER_NUM", 2, GENE_POW2, 1, 32);
        expect_gene(&g[2], "BLOCK_BYTES", 32, GENE_POW2, 32, 1024);
        /* a larger one is a size, searched at the 32-element granularity */
        expect_gene(&g[3], "tileLength", 2048, GENE_ALIGN32, 128, 32768);
        /* bytesPerElem and BYTES_PER_BLOCK are the data's, not choices */
        assert_int_equal(g[3].line, 10);
        /* any other count at every integer from a quarter to four times its value */
        expect_gene(&g[4], "ubPartNum", 3, GENE_STEP, 1, 12);
        expect_gene(&g[5], "blockDim", 8, GENE_POW2, 1, 128);
        expect_gene(&g[6], "TILE_CAP", 4096, GENE_ALIGN32, 256, 65536);
        free(g);
}

/* A 1 is a knob only where an upper-case name says it counts something repeated. */
static void test_a_count_of_one(void **state)
{
        const char *text = "constexpr uint32_t BUFFER_NUM = 1;\n"
                           "const uint32_t TILE_COUNT = 1;\n"
                           "const uint32_t USE_FAST_PATH = 1;\n"
                           "static int f(void)\n"
                           "{\n"
                           "    uint32_t bufferNum = 1;\n"
                           "    uint32_t NUM_ZERO = 0;\n"
                           "    return 0;\n"
                           "}\n";
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        assert_int_equal(n, 2);
        /* single buffering is where users start: 1 to 16 buffers, at powers of two */
        expect_gene(&g[0], "BUFFER_NUM", 1, GENE_POW2, 1, 16);
        expect_gene(&g[1], "TILE_COUNT", 1, GENE_POW2, 1, 16);
        free(g);
}

/* A count of 64 or more is no size: it is not searched in 32-element steps. */
static void test_a_large_count_is_not_a_size(void **state)
{
        const char *text = "const uint32_t TILE_NUM = 64;\n"
                           "const uint32_t TILE_ELEMS = 64;\n"
                           "const uint32_t TILE_COUNT = 96;\n"
                           "const uint32_t CORE_NUM = 32;\n"
                           "constexpr uint32_t TILE_NUM_SMALL = 700;\n";
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        assert_int_equal(n, 5);
        /* 8 tiles of a core's share may be the best; 32-element steps never reach
         * it, and a count of tiles goes down to one (bias_add_grad's 512 one-row
         * tiles are best at 8) */
        expect_gene(&g[0], "TILE_NUM", 64, GENE_POW2, 1, 1024);
        expect_gene(&g[1], "TILE_ELEMS", 64, GENE_ALIGN32, 32, 1024);
        /* a count searched at every integer goes down to one: the corpus's
         * cast writes 700 tiles where the UB holds 30 times larger ones */
        expect_gene(&g[2], "TILE_COUNT", 96, GENE_STEP, 1, 1536);
        /* not a count of cores: below a sixteenth the chip idles */
        expect_gene(&g[3], "CORE_NUM", 32, GENE_POW2, 2, 512);
        expect_gene(&g[4], "TILE_NUM_SMALL", 700, GENE_STEP, 1, 2800);
        free(g);
}

/* The bound of a clamp is a limit, not a choice; another value after the same test is one. */
static void test_a_clamp_bound_is_no_gene(void **state)
{
        const char *text = "static void f(uint64_t tileRows, uint64_t parts)\n"
                           "{\n"
                           "    if (tileRows > 4095)\n"
                           "        tileRows = 4095;\n"
                           "    if (tileRows < 8) {\n"
                           "        tileRows = 8;\n"
                           "    }\n"
                           "    if (parts >= 64) parts = 48;\n"
                           "}\n";
        struct gene *g;
        size_t n;

        /* braced or not */
        find(text, &g, &n);
        assert_int_equal(n, 1);
        expect_gene(&g[0], "parts", 48, GENE_STEP, 12, 192);
        free(g);
}

static void test_markers_take_over(void **state)
{
        const char *text = "uint32_t tile = 1024; // @tune 256..8192 pow2\n"
                           "uint32_t parts = 3;\n"
                           "uint32_t cores = 40; // @tune 1..48\n";
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        assert_int_equal(n, 2);
        assert_true(g[0].marked);
        assert_int_equal(g[0].lo, 256);
        assert_int_equal(g[0].hi, 8192);
        assert_int_equal(g[0].scale, GENE_POW2);
        assert_string_equal(g[1].name, "cores");
        assert_int_equal(g[1].scale, GENE_STEP);
        free(g);
}

static void test_snap(void **state)
{
        struct gene pow2 = { .lo = 128, .hi = 32768, .scale = GENE_POW2 };
        struct gene align = { .lo = 32, .hi = 4096, .scale = GENE_ALIGN32 };
        struct gene step = { .lo = 1, .hi = 12, .scale = GENE_STEP };

        assert_int_equal(gene_snap(&pow2, 3000), 2048);
        assert_int_equal(gene_snap(&pow2, 3100), 4096);
        assert_int_equal(gene_snap(&pow2, 5), 128);
        assert_int_equal(gene_snap(&pow2, 1 << 20), 32768);
        assert_int_equal(gene_snap(&align, 100), 96);
        assert_int_equal(gene_snap(&align, 5000), 4096);
        assert_int_equal(gene_snap(&step, 40), 12);
}

/*
 * The names a Stage II repair shrinks when Stage I never overflowed the UB:
 * a tile's size in any spelling, never a count of tiles or cores.
 */
static void test_tile_size_names(void **state)
{
        (void)state;
        assert_true(gene_name_is_tile_size("op_host/exp_custom.cpp:12:TILE_BYTES"));
        assert_true(gene_name_is_tile_size("op_host/a.cpp:7:set_tileLength"));
        assert_true(gene_name_is_tile_size("TileSize"));
        assert_true(gene_name_is_tile_size("k.cpp:3:TILE_ELEMS"));
        assert_false(gene_name_is_tile_size("op_host/add.cpp:9:TILE_NUM"));
        assert_false(gene_name_is_tile_size("op_host/add.cpp:8:BLOCK_DIM"));
        assert_false(gene_name_is_tile_size("move:tile_from_ub"));
}

static void test_apply_rewrites_only_the_genes(void **state)
{
        struct gene *g;
        size_t n;
        int64_t values[7] = { 32, 1, 32, 4096, 5, 40, 8192 };
        char *out = NULL;

        find(tiling, &g, &n);
        assert_int_equal(
            genes_apply("op_host/add_custom.cpp", tiling, strlen(tiling), g, values, n, &out), 0);
        assert_non_null(strstr(out, "const uint32_t BUFFER_NUM = 1;\n"));
        assert_non_null(strstr(out, "uint32_t tileLength = 4096U;  // elements per tile\n"));
        assert_non_null(strstr(out, "uint32_t ubPartNum = 5, unused = 0;\n"));
        assert_non_null(strstr(out, "SetBlockDim(40);"));
        assert_non_null(strstr(out, "#define TILE_CAP 8192\n"));
        assert_non_null(strstr(out, "const uint32_t BLOCK_SIZE = 32;\n"));
        assert_non_null(strstr(out, "constexpr uint32_t BLOCK_BYTES = 32;\n"));
        assert_non_null(strstr(out, "/* a comment = 4096; */"));
        free(out);
        /* genes of another file are left alone; stale positions are refused */
        assert_int_equal(genes_apply("op_host/other.h", tiling, strlen(tiling), g, values, n, &out),
                         0);
        assert_string_equal(out, tiling);
        free(out);
        assert_int_equal(genes_apply("op_host/add_custom.cpp", "int x;", 6, g, values, n, &out),
                         -EINVAL);
        free(g);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_knobs_are_found_with_ranges),
                cmocka_unit_test(test_a_count_of_one),
                cmocka_unit_test(test_a_large_count_is_not_a_size),
                cmocka_unit_test(test_a_clamp_bound_is_no_gene),
                cmocka_unit_test(test_markers_take_over),
                cmocka_unit_test(test_snap),
                cmocka_unit_test(test_tile_size_names),
                cmocka_unit_test(test_apply_rewrites_only_the_genes),
        };
        return cmocka_run_group_tests_name("optimizer_genes", tests, NULL, NULL);
}
