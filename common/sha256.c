/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), used for candidate identities, content-addressed
 * blobs and output digests.  Written from the standard's description; on
 * x86-64 processors with the SHA extensions (Intel's SHA-NI, documented in
 * the Intel 64 and IA-32 Architectures Software Developer's Manual,
 * SHA256RNDS2/SHA256MSG1/SHA256MSG2), the blocks go through them instead:
 * an evaluation hashes every output of its bench case (64 MiB for a 16M
 * float tensor), which the portable rounds made 10% of an episode's CPU.
 */
#include "common.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_HARDWARE 1
#endif

static const uint32_t round_constants[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
        return (x >> n) | (x << (32 - n));
}

static void compress(struct sha256 *s, const uint8_t block[64])
{
        uint32_t w[64], a, b, c, d, e, f, g, h;

        for (int i = 0; i < 16; i++)
                w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
                       (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
        for (int i = 16; i < 64; i++) {
                uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
                uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
                w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        a = s->state[0], b = s->state[1], c = s->state[2], d = s->state[3];
        e = s->state[4], f = s->state[5], g = s->state[6], h = s->state[7];
        for (int i = 0; i < 64; i++) {
                uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                              round_constants[i] + w[i];
                uint32_t t2 =
                    (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
                h = g, g = f, f = e, e = d + t1;
                d = c, c = b, b = a, a = t1 + t2;
        }
        s->state[0] += a, s->state[1] += b, s->state[2] += c, s->state[3] += d;
        s->state[4] += e, s->state[5] += f, s->state[6] += g, s->state[7] += h;
}

#ifdef SHA256_HARDWARE
/*
 * The blocks through the SHA extensions.  The instructions keep the state
 * as two halves, {A, B, E, F} and {C, D, G, H}; SHA256RNDS2 does two
 * rounds with the low two words of its message-plus-constant operand and
 * returns the new {A, B, E, F}, the old one becoming {C, D, G, H}.
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
compress_hardware(uint32_t state[8], const uint8_t *data, size_t blocks)
{
        /* big-endian words: reverse the bytes of each 32-bit lane */
        const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
        __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
        __m128i cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
        __m128i abef = _mm_alignr_epi8(tmp, cdgh, 8);

        cdgh = _mm_blend_epi16(cdgh, tmp, 0xF0);
        for (; blocks > 0; blocks--, data += 64) {
                __m128i w[16], abef_in = abef, cdgh_in = cdgh;
                for (int g = 0; g < 4; g++)
                        w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)),
                                                byte_swap);
                /* W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16], four at a time */
                for (int g = 4; g < 16; g++)
                        w[g] = _mm_sha256msg2_epu32(
                            _mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]),
                                          _mm_alignr_epi8(w[g - 1], w[g - 2], 4)),
                            w[g - 1]);
                for (int g = 0; g < 16; g++) {
                        __m128i k = _mm_add_epi32(
                            w[g], _mm_loadu_si128((const __m128i *)&round_constants[4 * g]));
                        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);
                        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(k, 0x0E));
                }
                abef = _mm_add_epi32(abef, abef_in);
                cdgh = _mm_add_epi32(cdgh, cdgh_in);
        }
        tmp = _mm_shuffle_epi32(abef, 0x1B);
        cdgh = _mm_shuffle_epi32(cdgh, 0xB1);
        _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(tmp, cdgh, 0xF0));
        _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(cdgh, tmp, 8));
}

static bool hardware_present(void)
{
        unsigned a, b, c, d;

        if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSSE3) || !(c & bit_SSE4_1))
                return false;
        return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29)) != 0; /* SHA */
}

/*
 * -1: not asked yet; then whether the blocks go through the SHA
 * extensions.  Worker threads hash too: read and set atomically (every
 * thread that finds it unset sets the same answer).
 */
static int use_hardware = -1;

static bool hardware_chosen(void)
{
        int v = __atomic_load_n(&use_hardware, __ATOMIC_RELAXED);

        if (v < 0) {
                v = hardware_present();
                __atomic_store_n(&use_hardware, v, __ATOMIC_RELAXED);
        }
        return v;
}
#endif

bool sha256_use_hardware(bool on)
{
#ifdef SHA256_HARDWARE
        bool was = hardware_chosen();
        __atomic_store_n(&use_hardware, on && hardware_present(), __ATOMIC_RELAXED);
        return was;
#else
        (void)on;
        return false;
#endif
}

/* Compresses whole blocks into s's state, through the fastest path there is. */
static void compress_blocks(struct sha256 *s, const uint8_t *data, size_t blocks)
{
#ifdef SHA256_HARDWARE
        if (hardware_chosen()) {
                compress_hardware(s->state, data, blocks);
                return;
        }
#endif
        for (; blocks > 0; blocks--, data += 64)
                compress(s, data);
}

void sha256_init(struct sha256 *s)
{
        static const uint32_t initial[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

        memcpy(s->state, initial, sizeof(initial));
        s->length = 0;
        s->used = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
        const uint8_t *p = data;

        s->length += len;
        if (s->used) {
                size_t take = 64 - s->used < len ? 64 - s->used : len;
                memcpy(s->block + s->used, p, take);
                s->used += take;
                p += take;
                len -= take;
                if (s->used < 64)
                        return;
                compress_blocks(s, s->block, 1);
                s->used = 0;
        }
        compress_blocks(s, p, len / 64);
        p += len / 64 * 64;
        len %= 64;
        memcpy(s->block, p, len);
        s->used = len;
}

void sha256_final(struct sha256 *s, uint8_t digest[SHA256_DIGEST_SIZE])
{
        uint64_t bits = s->length * 8;
        /* 0x80, zeros up to 56 mod 64, then the bit length big-endian */
        uint8_t padding[72] = { 0x80 };
        size_t pad_len = (s->used < 56 ? 56 : 120) - s->used;

        for (int i = 0; i < 8; i++)
                padding[pad_len + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
        sha256_update(s, padding, pad_len + 8);
        for (int i = 0; i < 8; i++) {
                digest[4 * i] = (uint8_t)(s->state[i] >> 24);
                digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
                digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
                digest[4 * i + 3] = (uint8_t)s->state[i];
        }
}

void sha256_hex(const uint8_t digest[SHA256_DIGEST_SIZE], char hex[SHA256_HEX_SIZE])
{
        for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
                snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}
