/*
 * gpu_rng.h - the deterministic random generator of the GPU test and
 * benchmark programs (test_gpu.cu, bench_gpu.cu): splitmix64, the same
 * sequence as the C tests' unit_rng (test/unit/unit.h) for the same seed.
 */
#ifndef GPX_GPU_RNG_H
#define GPX_GPU_RNG_H

#include <math.h>
#include <stdint.h>

/* splitmix64. */
struct rng
{
	uint64_t	s;

	/* Next 64 random bits. */
	uint64_t next()
	{
		uint64_t	z = (s += 0x9E3779B97F4A7C15ull);

		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		return z ^ (z >> 31);
	}
	/* Uniform in [0, n). */
	uint64_t below(uint64_t n) { return n ? next() % n : 0; }
	/* Uniform double in [0, 1). */
	double unit() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
	/* Standard normal (Box-Muller). */
	double normal()
	{
		double		u = unit() + 1e-300,
					v = unit();

		return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
	}
};

#endif							/* GPX_GPU_RNG_H */
