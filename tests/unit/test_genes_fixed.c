/* SPDX-License-Identifier: MIT */
/*
 * Tests of the gene finder's judge of fixed meanings (issue #26): tiling
 * keys (by name, by what SetTilingKey is given and what that is made of,
 * across a header and the tiling function, by the kernel's TILING_KEY_IS),
 * dtype byte widths and elements per block, enum-like selectors (enum
 * members, names compared with == or used as case labels, input and
 * dimension indexes, modes and types, named numbers) are no genes, while
 * tile sizes, buffer and core counts next to them stay genes; the scan
 * says of every literal why it was or was not taken; and the count of
 * evaluated candidates that changed a frozen literal is judged from their
 * texts in a store.  The snippets are written the way cann-ops tiling
 * functions are.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"
#include "optimizer/optimizer.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void find(const char *text, struct gene **genes, size_t *n)
{
        char err[256];

        *genes = NULL;
        *n = 0;
        if (genes_find_in_text("op_host/op_tiling.cpp", text, strlen(text), genes, n, err,
                               sizeof(err)) < 0)
                fail_msg("%s", err);
}

static const struct gene *gene_named(const struct gene *g, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(g[i].name, name) == 0)
                        return &g[i];
        return NULL;
}

/* Asserts the genes are exactly the names given, NULL-terminated, in order. */
static void expect_genes(const struct gene *g, size_t n, const char *const *names)
{
        size_t k = 0;

        for (; names[k]; k++) {
                if (k >= n)
                        fail_msg("gene %zu: expected %s, found none", k, names[k]);
                if (strcmp(g[k].name, names[k]) != 0)
                        fail_msg("gene %zu: expected %s, found %s", k, names[k], g[k].name);
        }
        if (k != n)
                fail_msg("%zu genes, expected %zu (the first extra is %s)", n, k, g[k].name);
}

/* Keys: named so, given to SetTilingKey, assigned to what is given to it, in any file. */
static void test_tiling_keys_are_no_genes(void **state)
{
        const char *text =
            "namespace optiling {\n"
            "constexpr uint64_t TILING_KEY_FP16 = 1;\n"
            "constexpr uint64_t TILING_KEY_FP32 = 2;\n"
            "constexpr uint32_t WITH_TAIL = 10;\n"
            "constexpr uint32_t PLAIN_PATH = 20;\n"
            "constexpr uint32_t SPLIT_LIMIT = 4096;\n"
            "constexpr uint32_t TILE_LENGTH = 2048;\n"
            "constexpr uint32_t BUFFER_NUM = 2;\n"
            "static uint64_t PathOf(uint32_t length)\n"
            "{\n"
            "    uint64_t path = length > SPLIT_LIMIT ? WITH_TAIL : PLAIN_PATH;\n"
            "    return path;\n"
            "}\n"
            "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"
            "{\n"
            "    uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();\n"
            "    uint64_t tilingKey = TILING_KEY_FP32;\n"
            "    if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16)\n"
            "        tilingKey = TILING_KEY_FP16;\n"
            "    tilingKey += PathOf(length);\n"
            "    uint32_t tileLength = TILE_LENGTH;\n"
            "    context->SetBlockDim(8);\n"
            "    context->SetTilingKey(tilingKey);\n"
            "    return ge::GRAPH_SUCCESS;\n"
            "}\n"
            "}\n";
        static const char *const genes[] = { "SPLIT_LIMIT", "TILE_LENGTH", "BUFFER_NUM", "blockDim",
                                             NULL };
        struct gene *g;
        size_t n;

        /*
         * TILING_KEY_* by name; WITH_TAIL and PLAIN_PATH are what PathOf
         * returns into the key; SPLIT_LIMIT only chooses between them, so it
         * stays a choice, as do the tile and the buffers
         */
        find(text, &g, &n);
        expect_genes(g, n, genes);
        free(g);
}

/* A literal given to SetTilingKey itself is a key whatever finds it (a setter gene finder). */
static void test_a_key_literal_in_any_knob_place(void **state)
{
        const char *text = "static void f(gert::TilingContext *context)\n"
                           "{\n"
                           "    uint32_t modeKey = 3;\n"
                           "    uint32_t tileRows = 64;\n"
                           "    context->SetTilingKey(modeKey);\n"
                           "}\n";
        static const char *const genes[] = { "tileRows", NULL };
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        expect_genes(g, n, genes);
        free(g);
}

static void test_dtype_widths_are_no_genes(void **state)
{
        const char *text = "constexpr uint32_t BYTE_LEN_4 = 4;\n"
                           "constexpr uint32_t BYTE_LEN_2 = 2;\n"
                           "constexpr uint32_t SIZE_OF_FP16 = 2;\n"
                           "constexpr uint32_t FLOAT_BYTES = 4;\n"
                           "constexpr uint32_t FP32_BLOCK_ELEMS = 8;\n"
                           "constexpr uint32_t ELEMENTS_PER_BLOCK = 16;\n"
                           "constexpr uint32_t UB_FACTOR_B16 = 12288;\n"
                           "constexpr uint32_t FP16_BUFFER_SIZE = 8192;\n"
                           "constexpr uint32_t BLOCK_SIZE = 32;\n"
                           "static void f(ge::DataType dtype)\n"
                           "{\n"
                           "    uint32_t typeSize = 4;\n"
                           "    if (dtype == ge::DT_FLOAT16)\n"
                           "        typeSize = 2;\n"
                           "    uint32_t dataWidth = 8;\n"
                           "    uint32_t tileBytes = 8;\n"
                           "}\n";
        /* a size named for its dtype, a tile's bytes and the alignment stay choices */
        static const char *const genes[] = { "UB_FACTOR_B16", "FP16_BUFFER_SIZE", "BLOCK_SIZE",
                                             "tileBytes", NULL };
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        expect_genes(g, n, genes);
        free(g);
}

static void test_selectors_are_no_genes(void **state)
{
        const char *text = "enum class SplitMode : uint32_t { SPLIT_H = 2, SPLIT_W = 3, };\n"
                           "constexpr int32_t REDUCE_SUM = 2;\n"
                           "constexpr int32_t REDUCE_MEAN = 3;\n"
                           "constexpr size_t GAMMA_POS = 2;\n"
                           "constexpr size_t W_INDEX = 3;\n"
                           "constexpr size_t DIM_2 = 2;\n"
                           "constexpr uint32_t MAX_DIM_NUM = 8;\n"
                           "constexpr uint32_t NUM_TWO = 2;\n"
                           "constexpr uint32_t FORMAT_NZ = 29;\n"
                           "constexpr uint32_t CORE_NUM = 40;\n"
                           "constexpr uint32_t BUFFER_NUM = 2;\n"
                           "constexpr uint32_t TILE_NUM = 8;\n"
                           "static void f(gert::TilingContext *context, int32_t reduction)\n"
                           "{\n"
                           "    auto gamma = context->GetInputShape(GAMMA_POS);\n"
                           "    switch (reduction) {\n"
                           "    case REDUCE_MEAN: break;\n"
                           "    }\n"
                           "    if (reduction == REDUCE_SUM) {}\n"
                           "    if (BUFFER_NUM == 2) {}\n"
                           "    uint32_t mDim = 4;\n"
                           "    uint32_t mode = 2;\n"
                           "}\n";
        /*
         * a count compared with a literal stays a choice, and so does a
         * matmul's split of the cores along M (mDim)
         */
        static const char *const genes[] = { "CORE_NUM", "BUFFER_NUM", "TILE_NUM", "mDim", NULL };
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        expect_genes(g, n, genes);
        free(g);
}

/*
 * Limits of the hardware or of a type, an array's length, and a bound the
 * tiling only checks against: what cann-ops' swi_glu_grad and
 * non_finite_check write.  A cap the tiling clamps a tile to stays.
 */
static void test_limits_are_no_genes(void **state)
{
        const char *text =
            "constexpr uint32_t MAX_BLOCK_COUNT = 4095;\n"
            "constexpr uint32_t MAX_BLOCK_LEN = 65535 * 32;\n"
            "constexpr uint32_t MAX_BLOCK_BYTES = 2097120;\n"
            "constexpr uint32_t MAX_UINT16 = 60000;\n"
            "constexpr uint16_t MAX_TENSOR_COUNT = 256;\n"
            "constexpr uint16_t MAX_CORE_COUNT = 64;\n"
            "constexpr uint32_t MAX_CORE_NUMBER = 64;\n"
            "constexpr uint32_t MAX_TILE = 8192;\n"
            "constexpr uint32_t MIN_ROWS = 16;\n"
            "BEGIN_TILING_DATA_DEF(T)\n"
            "  TILING_DATA_FIELD_DEF_ARR(uint16_t, MAX_CORE_COUNT, tensorStartList);\n"
            "END_TILING_DATA_DEF;\n"
            "static int f(gert::TilingContext *context, int64_t totalCore, uint32_t n)\n"
            "{\n"
            "    int64_t counts[MAX_TENSOR_COUNT] = {0};\n"
            "    if (totalCore >= MAX_CORE_NUMBER || n > MAX_TENSOR_COUNT) return -1;\n"
            "    uint32_t maxRepeat = 255;\n"
            "    uint32_t tile = std::min(n, MAX_TILE);\n"
            "    uint32_t rows = n < MIN_ROWS ? MIN_ROWS : n;\n"
            "    return counts[0] + tile + rows + maxRepeat;\n"
            "}\n";
        /* MAX_TILE is a cap the tile is clamped to, MIN_ROWS a floor: both choices */
        static const char *const genes[] = { "MAX_TILE", "MIN_ROWS", NULL };
        struct gene *g;
        size_t n;

        (void)state;
        find(text, &g, &n);
        expect_genes(g, n, genes);
        free(g);
}

/*
 * What cann-ops' angle_v2 and motion_compensation write: widths named for
 * a tensor or an integer type, numbers named by their value, and the
 * hardware's 32-byte block and 256-byte repeat, which may only grow.
 */
static void test_widths_numbers_and_units(void **state)
{
        const char *text = "constexpr uint32_t BYTE_BLOCK = 32;\n"
                           "constexpr uint32_t BYTE_REPEAT = 256;\n"
                           "static void f(gert::TilingContext *context)\n"
                           "{\n"
                           "    uint32_t bytesI16 = 2;\n"
                           "    uint32_t inputBytes = 4;\n"
                           "    uint32_t coefficentTen = 10;\n"
                           "    uint32_t ubDataNumber = 16;\n"
                           "}\n";
        static const char *const genes[] = { "BYTE_BLOCK", "BYTE_REPEAT", "ubDataNumber", NULL };
        struct gene *g;
        size_t n;

        (void)state;
        find(text, &g, &n);
        expect_genes(g, n, genes);
        assert_int_equal(g[0].lo, 32);
        assert_int_equal(g[1].lo, 256);
        free(g);
}

/* A text with nothing fixed keeps every gene it had before. */
static void test_real_knobs_stay(void **state)
{
        const char *text = "const uint32_t BUFFER_NUM = 2;\n"
                           "constexpr uint32_t BLOCK_DIM = 8;\n"
                           "constexpr uint32_t TILE_NUM = 256;\n"
                           "constexpr uint32_t UB_PART_NUM = 3;\n"
                           "static void f(gert::TilingContext *context)\n"
                           "{\n"
                           "    uint32_t ubPartNum = 4;\n"
                           "    uint32_t rowFactor = 64;\n"
                           "    uint32_t tileLength = 2048;\n"
                           "    context->SetBlockDim(40);\n"
                           "}\n";
        static const char *const genes[] = { "BUFFER_NUM",  "BLOCK_DIM", "TILE_NUM",
                                             "UB_PART_NUM", "ubPartNum", "rowFactor",
                                             "tileLength",  "blockDim",  NULL };
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        expect_genes(g, n, genes);
        assert_non_null(gene_named(g, n, "tileLength"));
        free(g);
}

/*
 * Genes another finder finds where programs hide their choices (a setter's
 * argument) are judged the same way: a byte width given to a setter is no
 * gene, a tile length and a buffer count are.
 */
static void test_hidden_genes_are_judged_too(void **state)
{
        const char *text = "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"
                           "{\n"
                           "    ScaleTilingData tiling;\n"
                           "    tiling.set_tileLength(512);\n"
                           "    tiling.set_dataWidth(4);\n"
                           "    tiling.set_bufferNum(2);\n"
                           "    context->SetBlockDim(8);\n"
                           "    return ge::GRAPH_SUCCESS;\n"
                           "}\n";
        static const char *const genes[] = { "blockDim", "set_tileLength", "set_bufferNum", NULL };
        struct gene *g;
        size_t n;

        find(text, &g, &n);
        expect_genes(g, n, genes);
        free(g);
}

/* ------------------------------------------------------------ a whole operator */

static char root[64];

static void write_file(const char *rel, const char *text)
{
        char path[PATH_MAX];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static int make_operator(void **state)
{
        char dir[PATH_MAX];

        snprintf(root, sizeof(root), "/tmp/test-genes-fixed-XXXXXX");
        assert_non_null(mkdtemp(root));
        snprintf(dir, sizeof(dir), "%s/op_host", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(dir, sizeof(dir), "%s/op_kernel", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        /* the key's parts in a header, the tiling in the .cpp, the kernel's branches */
        write_file("op_host/scale_tiling.h", "#pragma once\n"
                                             "namespace optiling {\n"
                                             "constexpr uint32_t HALF_PATH = 1;\n"
                                             "constexpr uint32_t FULL_PATH = 2;\n"
                                             "constexpr uint32_t TILING_ROWS = 7;\n"
                                             "constexpr uint32_t TILE_LENGTH = 4096;\n"
                                             "}\n");
        write_file("op_host/scale.cpp",
                   "#include \"scale_tiling.h\"\n"
                   "namespace optiling {\n"
                   "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n"
                   "{\n"
                   "    uint32_t path = FULL_PATH;\n"
                   "    if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16)\n"
                   "        path = HALF_PATH;\n"
                   "    uint32_t partNum = 3;\n"
                   "    ScaleTilingData tiling;\n"
                   "    tiling.set_dataWidth(4);\n"
                   "    tiling.set_tileRows(16);\n"
                   "    context->SetBlockDim(8);\n"
                   "    context->SetTilingKey(path);\n"
                   "    return ge::GRAPH_SUCCESS;\n"
                   "}\n"
                   "}\n");
        write_file("op_kernel/scale.cpp",
                   "extern \"C\" __global__ __aicore__ void scale(GM_ADDR x, "
                   "GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)\n"
                   "{\n"
                   "    if (TILING_KEY_IS(1)) {}\n"
                   "    else if (TILING_KEY_IS(7)) {}\n"
                   "}\n");
        return 0;
}

static int remove_operator(void **state)
{
        rm_rf(root);
        return 0;
}

static const struct gene_literal *literal_named(const struct gene_literals *l, const char *name)
{
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->items[i].name, name) == 0)
                        return &l->items[i];
        fail_msg("no literal %s was looked at", name);
        return NULL;
}

static void expect_literal(const struct gene_literals *l, const char *name, bool taken, bool frozen,
                           const char *why)
{
        const struct gene_literal *lit = literal_named(l, name);

        if (lit->taken != taken || lit->frozen != frozen || strcmp(lit->why, why) != 0)
                fail_msg("%s: taken %d, frozen %d, \"%s\"; expected %d, %d, \"%s\"", name,
                         lit->taken, lit->frozen, lit->why, taken, frozen, why);
}

static void test_an_operator_says_why_of_each_literal(void **state)
{
        struct gene_literals literals = { 0 };
        struct gene *g = NULL;
        char err[256];
        size_t n = 0;
        static const char *const genes[] = { "partNum", "blockDim", "set_tileRows", "TILE_LENGTH",
                                             NULL };

        assert_int_equal(genes_scan(root, &g, &n, &literals, err, sizeof(err)), 0);
        /* HALF_PATH and FULL_PATH are keys only as the .cpp uses them */
        expect_genes(g, n, genes);
        expect_literal(&literals, "HALF_PATH", false, true, "tiling key (SetTilingKey)");
        expect_literal(&literals, "FULL_PATH", false, true, "tiling key (SetTilingKey)");
        expect_literal(&literals, "TILING_ROWS", false, true, "tiling key (TILING_KEY_IS)");
        expect_literal(&literals, "TILE_LENGTH", true, false, "tile size or factor");
        expect_literal(&literals, "partNum", true, false, "tile size or factor");
        expect_literal(&literals, "blockDim", true, false, "core count (SetBlockDim)");
        /* and the genes found where the program hides its choices */
        expect_literal(&literals, "set_tileRows", true, false, "setter argument");
        expect_literal(&literals, "set_dataWidth", false, true, "dtype byte width");
        assert_string_equal(literal_named(&literals, "HALF_PATH")->file, "op_host/scale_tiling.h");
        assert_int_equal(literal_named(&literals, "HALF_PATH")->line, 3);
        assert_int_equal(literals.more, 0);
        /* genes_find is the same search without the notes */
        free(g);
        g = NULL;
        assert_int_equal(genes_find(root, &g, &n, err, sizeof(err)), 0);
        expect_genes(g, n, genes);
        free(g);
        gene_literals_release(&literals);
}

/* ------------------------------------------------------------ changed frozen literals */

/* A candidate result in the store whose op_host/k.cpp is text; its identity into id. */
static void put_candidate(struct store *store, const char *text, char id[SHA256_HEX_SIZE])
{
        struct store_batch *b = store_batch_new(store);
        char sha[SHA256_HEX_SIZE];
        json_t *result;

        store_blob_put(b, text, strlen(text), sha);
        /* the identity only has to be unique here: the text's own hash serves */
        snprintf(id, SHA256_HEX_SIZE, "%s", sha);
        result = json_pack("{s:s, s:{s:s}}", "status", "ok", "files", "op_host/k.cpp", sha);
        assert_int_equal(store_candidate_put(b, id, result), 0);
        assert_int_equal(store_batch_commit(b), 0);
        store_batch_free(b);
        json_decref(result);
}

static void test_candidates_that_changed_a_frozen_literal(void **state)
{
        const char *disk = "constexpr uint32_t TILING_KEY_HALF = 2;\n"
                           "uint32_t tile = 64; uint32_t typeSize = 4;\n";
        /* the gene beside the byte width moves; the key stays */
        const char *tile_only = "constexpr uint32_t TILING_KEY_HALF = 2;\n"
                                "uint32_t tile = 128; uint32_t typeSize = 4;\n";
        const char *width = "constexpr uint32_t TILING_KEY_HALF = 2;\n"
                            "uint32_t tile = 64; uint32_t typeSize = 8;\n";
        const char *no_key = "uint32_t tile = 64; uint32_t typeSize = 4;\n";
        char dir[PATH_MAX], err[512], a[SHA256_HEX_SIZE], b[SHA256_HEX_SIZE], c[SHA256_HEX_SIZE];
        struct store *store = NULL;
        size_t changed = 99, checked = 99;
        json_t *record;

        write_file("op_host/k.cpp", disk);
        snprintf(dir, sizeof(dir), "%s/store", root);
        assert_int_equal(store_open(dir, &store, err, sizeof(err)), 0);
        put_candidate(store, tile_only, a);
        put_candidate(store, width, b);
        put_candidate(store, no_key, c);
        /* the literals as the record lists them: the key and the width frozen, the tile a gene */
        record =
            json_pack("{s:s, s:[{s:s, s:i, s:i, s:b}, {s:s, s:i, s:i, s:b}, {s:s, s:i, s:i, s:b}],"
                      " s:[{s:s, s:b}, {s:s, s:b}, {s:s, s:b}, {s:s, s:b}]}",
                      "dir", root, "literals", "file", "op_host/k.cpp", "line", 1, "start",
                      (int)(strstr(disk, "2;") - disk), "frozen", 1, "file", "op_host/k.cpp",
                      "line", 2, "start", (int)(strstr(disk, "64") - disk), "frozen", 0, "file",
                      "op_host/k.cpp", "line", 2, "start", (int)(strstr(disk, "4;\n") - disk),
                      "frozen", 1, "trajectory", "identity", a, "memo_hit", 0, "identity", b,
                      "memo_hit", 0, "identity", c, "memo_hit", 0, "identity", b, "memo_hit", 1);
        assert_non_null(record);
        assert_int_equal(episode_frozen_changes(store, record, NULL, &changed, &checked), 0);
        /* the width changed, the key's line is gone; the memo hit is no evaluation */
        assert_int_equal(checked, 3);
        assert_int_equal(changed, 2);
        /* a record from before literals were recorded says so */
        json_object_del(record, "literals");
        assert_int_equal(episode_frozen_changes(store, record, NULL, &changed, &checked), -EINVAL);
        json_decref(record);
        store_close(store);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_tiling_keys_are_no_genes),
                cmocka_unit_test(test_a_key_literal_in_any_knob_place),
                cmocka_unit_test(test_dtype_widths_are_no_genes),
                cmocka_unit_test(test_selectors_are_no_genes),
                cmocka_unit_test(test_real_knobs_stay),
                cmocka_unit_test(test_limits_are_no_genes),
                cmocka_unit_test(test_widths_numbers_and_units),
                cmocka_unit_test(test_hidden_genes_are_judged_too),
                cmocka_unit_test_setup_teardown(test_an_operator_says_why_of_each_literal,
                                                make_operator, remove_operator),
                cmocka_unit_test_setup_teardown(test_candidates_that_changed_a_frozen_literal,
                                                make_operator, remove_operator),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
