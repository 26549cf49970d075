/*
 * What every fuzz target shares: libFuzzer's entry point, and FUZZ_CHECK,
 * which turns a broken invariant into an abort naming it, so both
 * libFuzzer and the corpus replay driver (replay.c) report it as a crash.
 */
#ifndef RPCRDMA_FUZZ_H
#define RPCRDMA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* Input bytes taken from the front, as the targets' choices. */
struct fuzz_in {
	const uint8_t *p;
	size_t left;
};

static inline uint32_t fuzz_take(struct fuzz_in *in, unsigned int nbytes)
{
	uint32_t v = 0;

	while (nbytes--) {
		v <<= 8;
		if (in->left) {
			v |= *in->p++;
			in->left--;
		}
	}
	return v;
}

#endif /* RPCRDMA_FUZZ_H */
