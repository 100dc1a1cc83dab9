/* SPDX-License-Identifier: MIT */
/* Tests of SHA-256 against the FIPS 180-4 example vectors, fed whole and in
 * odd-sized pieces. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/common.h"

#include <string.h>

static void digest_of(const char *text, size_t len, size_t piece, char hex[SHA256_HEX_SIZE])
{
        struct sha256 s;
        uint8_t d[SHA256_DIGEST_SIZE];

        sha256_init(&s);
        for (size_t i = 0; i < len; i += piece)
                sha256_update(&s, text + i, len - i < piece ? len - i : piece);
        sha256_final(&s, d);
        sha256_hex(d, hex);
}

static void test_known_vectors(void **state)
{
        const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        char hex[SHA256_HEX_SIZE];

        digest_of("", 0, 1, hex);
        assert_string_equal(hex,
                            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        digest_of("abc", 3, 1, hex);
        assert_string_equal(hex,
                            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        for (size_t piece = 1; piece <= 64; piece += 7) {
                digest_of(two_blocks, strlen(two_blocks), piece, hex);
                assert_string_equal(
                    hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        }
}

static void test_million_a(void **state)
{
        static char a[1000000];
        char hex[SHA256_HEX_SIZE];

        memset(a, 'a', sizeof(a));
        digest_of(a, sizeof(a), 4096, hex);
        assert_string_equal(hex,
                            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/*
 * The processor's SHA extensions and the portable rounds agree on every
 * length around the block size and on a long buffer, fed whole and in
 * pieces (on a processor without them both runs are portable).
 */
static void test_hardware_and_portable_agree(void **state)
{
        static uint8_t data[1 << 20];
        char hw[SHA256_HEX_SIZE], sw[SHA256_HEX_SIZE];
        uint32_t x = 12345;
        bool was;

        for (size_t i = 0; i < sizeof(data); i++) {
                x = x * 1103515245u + 12345u;
                data[i] = (uint8_t)(x >> 16);
        }
        was = sha256_use_hardware(true);
        for (size_t len = 0; len < sizeof(data); len = len < 200 ? len + 1 : len * 3 + 7) {
                for (size_t piece = 1; piece <= 4096; piece = piece * 5 + 3) {
                        if (len > 4096 && piece < 64)
                                continue;
                        sha256_use_hardware(true);
                        digest_of((const char *)data, len, piece, hw);
                        sha256_use_hardware(false);
                        digest_of((const char *)data, len, piece, sw);
                        if (strcmp(hw, sw) != 0)
                                fail_msg("%zu bytes in pieces of %zu: %s against %s", len, piece,
                                         hw, sw);
                }
        }
        sha256_use_hardware(was);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_known_vectors),
                cmocka_unit_test(test_million_a),
                cmocka_unit_test(test_hardware_and_portable_agree),
        };
        return cmocka_run_group_tests_name("sha256", tests, NULL, NULL);
}
