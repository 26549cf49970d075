/* The chunk steps of nfs_interop, and what they share with its main. */
#ifndef NFS_CHUNKS_H
#define NFS_CHUNKS_H

#include <rpcrdma/rpcrdma.h>
#include "nfs3.h"

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
struct rpcrdma_stats stats(CLIENT *cl);
/* Every chunk step against the export whose root is @root, local at @local. */
void nfs_chunk_steps(CLIENT *cl, nfs_fh3 *root, const char *local);
/* Informational: MB/s of WRITE and READ of 64 KiB and 1 MiB, never asserted. */
void nfs_chunk_bench(CLIENT *cl, nfs_fh3 *root);

#endif
