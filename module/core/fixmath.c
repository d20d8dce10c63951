// SPDX-License-Identifier: GPL-2.0
/*
 * Q32.32 fixed-point ln and exp. The kernel has no floating point, and
 * sizing, estimates and the test oracles must give the same answer in
 * bloom.ko and in userspace, so both use these. Series are evaluated in
 * Q62 and rounded once; the error is a few units of 2^-32.
 *
 * Every series loop has a fixed bound that its argument range makes
 * sufficient: a loop that cannot end would hold its caller's locks.
 */
#include "bloom_core.h"

#define ONE_Q62		(1ULL << 62)
#define LN2_Q62		0x2c5c85fdf473de6aULL
#define LN2_Q40		((s64)(LN2_Q62 >> 22))
#define LN2_Q56		((s64)((LN2_Q62 + 32) >> 6))
#define LN_ZERO		(-(256LL << 32))	/* ln 0 in Q32.32 */

/*
 * 2 atanh(z) = ln((1 + z) / (1 - z)) for z in [0, 1/3], Q62. Each term is
 * at most z^2 <= 1/9 of the one before, so the 20th is below 2^62 / 9^20
 * < 1 and has rounded to 0: 24 terms are more than enough.
 */
static u64 atanh2_q62(u64 z)
{
	u64 z2 = bloom_mul_shr(z, z, 62);
	u64 p = z, sum = z;
	unsigned int i;

	for (i = 3; p && i < 2 * 24; i += 2) {
		p = bloom_mul_shr(p, z2, 62);
		sum += p / i;
	}
	return 2 * sum;
}

/* ln(y) for y in [1, 2), Q62: ln y = 2 atanh(z), z = (y - 1) / (y + 1). */
static u64 ln_q62(u64 y)
{
	return atanh2_q62(bloom_mul_div(y - ONE_Q62, ONE_Q62, y + ONE_Q62));
}

/* x = y 2^e with y in [1, 2), x > 0: returns y in Q62 and sets *e. */
static u64 norm_q62(u64 x, int *e)
{
	*e = bloom_fls64(x) - 1;
	return *e >= 62 ? x >> (*e - 62) : x << (62 - *e);
}

/*
 * e^r for r in [0, ln 2), Q62, by its Taylor series. Term i is at most
 * r^i / i! < 0.7^20 / 20! < 2^-62 for i = 20: 24 terms are enough.
 */
static u64 exp_q62(u64 r)
{
	u64 term = ONE_Q62, sum = ONE_Q62;
	unsigned int i;

	for (i = 1; term && i <= 24; i++) {
		term = bloom_mul_shr(term, r, 62) / i;
		sum += term;
	}
	return sum;
}

/**
 * bloom_fx_ln() - natural logarithm
 * @x: argument, Q32.32
 *
 * Return: ln(x) in Q32.32; for 0, -256, below ln of any positive
 * argument (ln 2^-32 = -22.2) and small enough that bloom_fx_exp() of it,
 * or of a multiple of it, is 0.
 */
s64 bloom_fx_ln(u64 x)
{
	u64 y;
	s64 q40;
	int e;

	if (!x)
		return LN_ZERO;
	y = norm_q62(x, &e);
	q40 = (s64)(e - 32) * LN2_Q40 + (s64)(ln_q62(y) >> 22);
	return (q40 + 128) >> 8;
}
EXPORT_SYMBOL_GPL(bloom_fx_ln);

/**
 * bloom_fx_exp() - exponential
 * @x: argument, Q32.32
 *
 * Return: e^x in Q32.32, 0 when it is below 2^-33, U64_MAX when it does
 * not fit.
 */
u64 bloom_fx_exp(s64 x)
{
	s64 x40, q;
	u64 r, sum;
	int shift;

	if (x < -(24LL << 32))
		return 0;
	if (x >= (31LL << 32))
		return U64_MAX;
	x40 = x * 256;
	q = x40 / LN2_Q40;
	if (x40 - q * LN2_Q40 < 0)
		q--;
	r = (u64)(x40 - q * LN2_Q40) << 22;
	sum = exp_q62(r);
	shift = 30 - (int)q;
	if (shift >= 64)
		return 0;
	if (shift <= 0)
		return shift < -1 ? U64_MAX : sum << -shift;
	return (sum + (1ULL << (shift - 1))) >> shift;
}
EXPORT_SYMBOL_GPL(bloom_fx_exp);

/* ln(a / b) for a >= b >= 1, Q56 (at most ln 2^64 < 45). */
static u64 ln_ratio_q56(u64 a, u64 b)
{
	u64 ya, yb;
	int ea, eb;

	if (a - b <= b) {
		/*
		 * a <= 2b: ln(a / b) = 2 atanh((a - b) / (a + b)), z <= 1/3,
		 * exact however small a - b is. Halving keeps a + b in 64 bits
		 * and moves z by at most 2^-62.
		 */
		if (a >> 63) {
			a >>= 1;
			b >>= 1;
		}
		return (atanh2_q62(bloom_mul_div(a - b, ONE_Q62, a + b)) + 32) >> 6;
	}
	/* a > 2b: ln a - ln b from the integers, at least ln 2. */
	ya = norm_q62(a, &ea);
	yb = norm_q62(b, &eb);
	return (u64)((ea - eb) * LN2_Q56 + (s64)((ln_q62(ya) + 32) >> 6) -
		     (s64)((ln_q62(yb) + 32) >> 6));
}

/**
 * bloom_fx_ln_ratio() - ln(num / den) of two integers
 * @num: numerator
 * @den: denominator
 *
 * Computed from the integers, never from a rounded quotient, so a ratio
 * close to 1 keeps its precision: the result is within a few units of
 * 2^-56 however close @num is to @den, or however far.
 *
 * Return: the logarithm in units of 2^-56 (its magnitude is below 45);
 * S64_MIN when @num is 0, S64_MAX when @den is 0 and @num is not.
 */
s64 bloom_fx_ln_ratio(u64 num, u64 den)
{
	if (!num)
		return S64_MIN;
	if (!den)
		return S64_MAX;
	return num >= den ? (s64)ln_ratio_q56(num, den) :
			    -(s64)ln_ratio_q56(den, num);
}
EXPORT_SYMBOL_GPL(bloom_fx_ln_ratio);
