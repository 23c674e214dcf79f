/*
 * gpu_test.h - what the GPU test programs test_gpu_rank.cu,
 * test_gpu_union.cu and test_s8b.cu do before their suites: read the
 * command line, check that a GPU is there, open a context.
 */
#ifndef GPX_GPU_TEST_H
#define GPX_GPU_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpx_cuda.h"
#include "gpx_cuda_port.cuh"

/*
 * Read --quick and --seed N into *quick and *seed (the caller's defaults
 * stay otherwise); anything else: usage, exit 2.  No usable GPU: a skip
 * line and empty totals, exit 77.
 */
static inline void
gpu_test_args(int argc, char **argv, bool *quick, uint64_t *seed)
{
	int			ndev = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--quick") == 0)
			*quick = true;
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			*seed = strtoull(argv[++i], NULL, 10);
		else
		{
			fprintf(stderr, "usage: %s [--quick] [--seed N]\n", argv[0]);
			exit(2);
		}
	}
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0)
	{
		printf("no usable gpu: skipped\nassertions: 0 passed, 0 failed\n0 passed, 0 failed\n");
		exit(77);
	}
}

/*
 * A context with a 64 MiB list cache and 16 MiB batches (the suites'
 * sizes), or a message and exit 1.
 */
static inline gpx_cuda_ctx *
gpu_test_open(void)
{
	gpx_cuda_options o;
	gpx_cuda_ctx *ctx = NULL;
	char		err[512] = "";
	gpx_cuda_status st;

	memset(&o, 0, sizeof(o));
	o.cache_bytes = 64u << 20;
	o.batch_bytes = 16u << 20;
	st = gpx_cuda_open(&o, &ctx, err, sizeof(err));
	if (st != GPX_CUDA_OK)
	{
		fprintf(stderr, "gpx_cuda_open: %s: %s\n", gpx_cuda_status_str(st), err);
		exit(1);
	}
	return ctx;
}

#endif							/* GPX_GPU_TEST_H */
