/*
 * rpcrdma_bench's statistics over trials: medians, 95 % bootstrap
 * intervals (a fixed seed, so a report is reproducible from its trials),
 * the interval of a ratio of two medians, and the tie rule.  Pure.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of sorted v[0..n): the middle one, or the mean of the two. */
static double sorted_median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_median(const double *v, size_t n)
{
	double t[BENCH_MAX_TRIALS];

	if (!n || n > BENCH_MAX_TRIALS)
		return NAN;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	return sorted_median(t, n);
}

/*
 * splitmix64: small, fast and good enough to draw resampling indices;
 * what matters is that the same trials always give the same interval.
 */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The median of n draws with replacement from v. */
static double resampled_median(const double *v, size_t n, uint64_t *s)
{
	double t[BENCH_MAX_TRIALS];
	size_t i;

	for (i = 0; i < n; i++)
		t[i] = v[next_rand(s) % n];
	qsort(t, n, sizeof(*t), cmp_double);
	return sorted_median(t, n);
}

/* Percentile interval of sorted b[0..BENCH_BOOT_N): 2.5 % and 97.5 %. */
static void percentile_interval(double *b, double *lo, double *hi)
{
	qsort(b, BENCH_BOOT_N, sizeof(*b), cmp_double);
	*lo = b[(size_t)(0.025 * (BENCH_BOOT_N - 1))];
	*hi = b[(size_t)ceil(0.975 * (BENCH_BOOT_N - 1))];
}

int bench_boot_ci(const double *v, size_t n, double *lo, double *hi)
{
	static double b[BENCH_BOOT_N];
	uint64_t s = BENCH_BOOT_SEED;
	size_t i;

	if (!n || n > BENCH_MAX_TRIALS)
		return -1;
	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return -1;
	if (n == 1) {
		*lo = *hi = v[0];
		return 0;
	}
	for (i = 0; i < BENCH_BOOT_N; i++)
		b[i] = resampled_median(v, n, &s);
	percentile_interval(b, lo, hi);
	return 0;
}

int bench_boot_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
			double *ratio, double *lo, double *hi)
{
	static double r[BENCH_BOOT_N];
	uint64_t s = BENCH_BOOT_SEED;
	double ma, mb;
	size_t i;

	if (!na || !nb || na > BENCH_MAX_TRIALS || nb > BENCH_MAX_TRIALS)
		return -1;
	ma = bench_median(a, na);
	mb = bench_median(b, nb);
	if (!(ma > 0) || !(mb > 0) || !isfinite(ma) || !isfinite(mb))
		return -1;
	*ratio = ma / mb;
	if (na == 1 && nb == 1) {
		*lo = *hi = *ratio;
		return 0;
	}
	/* Each side resampled on its own: the trials are not paired. */
	for (i = 0; i < BENCH_BOOT_N; i++) {
		double x = resampled_median(a, na, &s);
		double y = resampled_median(b, nb, &s);

		r[i] = y > 0 ? x / y : INFINITY;
	}
	percentile_interval(r, lo, hi);
	return 0;
}

/*
 * The candidate with the highest median wins only if its interval lies
 * wholly above every other candidate's; else every candidate whose
 * interval reaches the leader's lower bound is tied with it.  Equal
 * medians are a tie even without intervals (one trial each).
 */
int bench_pick_winner(const double *med, const double *lo, const double *hi,
		      size_t n, unsigned *tied)
{
	size_t i, best = n;

	*tied = 0;
	for (i = 0; i < n; i++)
		if (isfinite(med[i]) && (best == n || med[i] > med[best]))
			best = i;
	if (best == n)
		return -1;
	for (i = 0; i < n; i++)
		if (i == best || (isfinite(med[i]) &&
				  (hi[i] >= lo[best] || med[i] == med[best])))
			*tied |= 1u << i;
	if (*tied == 1u << best) {
		*tied = 0;
		return (int)best;
	}
	return -1;
}

int bench_ratio_verdict(double lo, double hi, double margin)
{
	if (lo > 1 + margin)
		return 1;
	if (hi < 1 - margin)
		return -1;
	return 0;
}
