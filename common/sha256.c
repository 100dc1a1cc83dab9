/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 (FIPS 180-4), used for candidate identities, content-addressed
 * blobs and output digests.  Written from the standard's description.
 */
#include "common.h"

#include <stdio.h>
#include <string.h>

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
                compress(s, s->block);
                s->used = 0;
        }
        for (; len >= 64; p += 64, len -= 64)
                compress(s, p);
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
