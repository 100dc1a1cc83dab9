/* SPDX-License-Identifier: MIT */
/* Reference for libmath_pointer_half: row k of y[33, n] is API k of the
 * half inputs x or p (see the kernel's list), computed in float with libm
 * and rounded once to half. */
#include "../../../sim/refutil.h"

static float sign(float a)
{
	return a > 0 ? 1.0f : a < 0 ? -1.0f : 0.0f;
}

/* a scalar argument is a half too */
static float h(float f)
{
	return ref_h2f(ref_f2h(f));
}

int main(int argc, char **argv)
{
	ref_init(argc, argv);
	size_t n, np;
	uint16_t *x = ref_read("in_x.bin", &n), *p = ref_read("in_p.bin", &np);
	n /= 2;
	uint16_t *y = malloc(33 * n * 2 + 2);
	for (size_t i = 0; i < n; i++) {
		float a = ref_h2f(x[i]), b = ref_h2f(p[i]), q = h(b + -2.0f);
		float r[33] = {
			/* the library math APIs */
			sinf(a), cosf(a), tanf(a), asinf(a), acosf(a), atanf(a), sinhf(a), coshf(a), tanhf(a),
			erff(a), erfcf(a), 1.0f / (1.0f + expf(-a)), sign(a), floorf(q), ceilf(q), truncf(q),
			logf(b), log2f(b), log10f(b),
			/* Exp Sqrt Ln Abs; Adds Muls Maxs Mins; Mul Div Add Sub; Sub and Div by repeats */
			expf(a), sqrtf(b), logf(b), fabsf(a), a + h(0.5f), a * h(3.0f), fmaxf(a, h(0.1f)),
			fminf(a, h(-0.1f)), a * b, a / b, a + b, a - b, a - b, a / b,
		};
		for (int k = 0; k < 33; k++)
			y[k * n + i] = ref_f2h(r[k]);
	}
	ref_write("out_y.bin", y, 33 * n * 2);
	return 0;
}
