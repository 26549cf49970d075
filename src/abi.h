/*
 * The public structs at the library's edge: what a program passes in is
 * read only as far as its size member says, what it reads out is written
 * only that far (rpcrdma(7), ABI).  Inside, every struct is the whole one.
 */
#ifndef RPCRDMA_ABI_H
#define RPCRDMA_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <rpcrdma/rpcrdma.h>

/*
 * Bytes of each struct this library knows: the whole of it, as this
 * header declares it (fields are only ever appended).  The options once
 * stopped at 0.1's last field, so the later ones were refused when set.
 */
#define RPCRDMA_OPTIONS_KNOWN sizeof(struct rpcrdma_options)
#define RPCRDMA_STATS_KNOWN sizeof(struct rpcrdma_stats)

/* Whether a byte of [known, size) of p is not `unset`. */
bool rpcrdma_abi_tail_set(const void *p, size_t known, size_t size,
			  unsigned char unset);
/*
 * The edge itself, for any struct: the program's `size` bytes at prog, of
 * which this library knows `known`.  In: -EINVAL when size < min or a byte
 * past known is not `unset`; else the first min(size, known) bytes into
 * dst (the rest of dst left as the caller made it: unset).  Out: -EINVAL
 * when size < min; else min(size, known) bytes of src into prog and the
 * rest of its size filled with `unset`; never a byte past size.
 */
int rpcrdma_abi_in(void *dst, size_t known, const void *prog, size_t size,
		   size_t min, unsigned char unset);
int rpcrdma_abi_out(void *prog, size_t size, const void *src, size_t known,
		    size_t min, unsigned char unset);

/*
 * The program's options (NULL: none) as a whole struct: fields past its
 * ro_size unset.  -EINVAL, err saying why, for an ro_size below 0.1's or
 * a field set that this library does not know.
 */
int rpcrdma_options_import(struct rpcrdma_options *dst,
			   const struct rpcrdma_options *prog,
			   char *err, size_t errlen);
/* Options into the program's struct, ro_size bytes: 0 or -EINVAL. */
int rpcrdma_options_export(struct rpcrdma_options *prog,
			   const struct rpcrdma_options *src);
/* Counters into the program's struct, rs_size bytes: 0 or -EINVAL. */
int rpcrdma_stats_export(struct rpcrdma_stats *prog,
			 const struct rpcrdma_stats *src);
/* A reply hint or result buffer the program passes: 0 or -EINVAL. */
int rpcrdma_reply_hint_check(const struct rpcrdma_reply_hint *rh);
int rpcrdma_result_buf_check(const struct rpcrdma_result_buf *rb);

#endif /* RPCRDMA_ABI_H */
