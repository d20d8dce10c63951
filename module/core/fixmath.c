// SPDX-License-Identifier: GPL-2.0
/*
 * Q32.32 fixed-point ln and exp. The kernel has no floating point, and
 * sizing, estimates and the test oracles must give the same answer in
 * bloom.ko and in userspace, so both use these. Series are evaluated in
 * Q62 and rounded once; the error is a few units of 2^-32.
 */
#include "bloom_core.h"

#define ONE_Q62		(1ULL << 62)
#define LN2_Q62		0x2c5c85fdf473de6aULL
#define LN2_Q40		((s64)(LN2_Q62 >> 22))

/* ln(y) for y in [1, 2), Q62: ln y = 2 atanh(z), z = (y - 1) / (y + 1). */
static u64 ln_q62(u64 y)
{
	u64 z = bloom_mul_div(y - ONE_Q62, ONE_Q62, y + ONE_Q62);
	u64 z2 = bloom_mul_shr(z, z, 62);
	u64 p = z, sum = z;
	unsigned int i;

	for (i = 3; p; i += 2) {
		p = bloom_mul_shr(p, z2, 62);
		sum += p / i;
	}
	return 2 * sum;
}

/* e^r for r in [0, ln 2), Q62, by its Taylor series. */
static u64 exp_q62(u64 r)
{
	u64 term = ONE_Q62, sum = ONE_Q62;
	unsigned int i;

	for (i = 1; term; i++) {
		term = bloom_mul_shr(term, r, 62) / i;
		sum += term;
	}
	return sum;
}

/**
 * bloom_fx_ln() - natural logarithm
 * @x: argument, Q32.32, greater than zero
 *
 * Return: ln(x) in Q32.32.
 */
s64 bloom_fx_ln(u64 x)
{
	int e = bloom_fls64(x) - 1;
	u64 y = e >= 62 ? x >> (e - 62) : x << (62 - e);
	s64 q40 = (s64)(e - 32) * LN2_Q40 + (s64)(ln_q62(y) >> 22);

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
