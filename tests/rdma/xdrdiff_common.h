/*
 * What the differential test's client and server share: a seeded
 * generator of every construct in xdrdiff.x at a requested size, and the
 * XDR encoding of a value, by which two values are compared.
 */
#ifndef XDRDIFF_COMMON_H
#define XDRDIFF_COMMON_H

#include <stdint.h>
#include <stddef.h>
#include "xdrdiff.h"

/* Shapes of an xd_all: which member carries the bulk of its size. */
enum { XD_SHAPES = 8 };

uint64_t xd_rand(uint64_t *state);
/* A value of about @size bytes of XDR; free with xdr_free(). */
void xd_gen_all(uint64_t *rng, uint32_t size, unsigned int shape, xd_all *v);
void xd_gen_str(uint64_t *rng, uint32_t size, char **s);
void xd_gen_opq(uint64_t *rng, uint32_t size, xd_opq *v);
void xd_gen_ints(uint64_t *rng, uint32_t size, xd_ints *v);
void xd_gen_pts(uint64_t *rng, uint32_t size, xd_pts *v);
void xd_gen_un(uint64_t *rng, uint32_t size, xd_un *v);
void xd_gen_scalars(uint64_t *rng, xd_scalars *v);
/* The XDR encoding of @obj (malloc'd), its length in *@len; NULL: failed. */
char *xd_encode(xdrproc_t proc, void *obj, size_t *len);
/* FNV-1a over the encoding; 0 when it cannot be encoded. */
uint64_t xd_digest(xdrproc_t proc, void *obj);

#endif
