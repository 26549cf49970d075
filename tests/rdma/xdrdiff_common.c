/*
 * The differential test's generator and comparison (see xdrdiff_common.h).
 * Values come from a xorshift generator, so a seed replays a whole run.
 */
#include <stdlib.h>
#include <string.h>
#include "xdrdiff_common.h"

uint64_t xd_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

static void fill(uint64_t *rng, char *p, size_t n)
{
	size_t i;
	uint64_t r = 0;

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			r = xd_rand(rng);
		p[i] = (char)(r >> ((i & 7) * 8));
	}
}

/* Strings hold no NUL: printable bytes. */
void xd_gen_str(uint64_t *rng, uint32_t size, char **s)
{
	uint32_t i;

	*s = xmalloc(size + 1);
	fill(rng, *s, size);
	for (i = 0; i < size; i++)
		(*s)[i] = (char)(' ' + ((unsigned char)(*s)[i] % 95));
	(*s)[size] = '\0';
}

void xd_gen_opq(uint64_t *rng, uint32_t size, xd_opq *v)
{
	v->xd_opq_len = size;
	v->xd_opq_val = xmalloc(size);
	fill(rng, v->xd_opq_val, size);
}

void xd_gen_ints(uint64_t *rng, uint32_t size, xd_ints *v)
{
	v->xd_ints_len = size / 4;
	v->xd_ints_val = xmalloc(v->xd_ints_len * sizeof(int));
	fill(rng, (char *)v->xd_ints_val, v->xd_ints_len * sizeof(int));
}

static void gen_pt(uint64_t *rng, xd_pt *p)
{
	p->x = (int)xd_rand(rng);
	p->y = (quad_t)xd_rand(rng);
}

void xd_gen_pts(uint64_t *rng, uint32_t size, xd_pts *v)
{
	u_int i;

	v->xd_pts_len = size / 12;
	v->xd_pts_val = xmalloc(v->xd_pts_len * sizeof(xd_pt));
	for (i = 0; i < v->xd_pts_len; i++)
		gen_pt(rng, &v->xd_pts_val[i]);
}

void xd_gen_scalars(uint64_t *rng, xd_scalars *v)
{
	static const xd_color colors[] = { XD_RED, XD_GREEN, XD_BLUE };
	uint64_t r = xd_rand(rng);

	v->i = (int)r;
	v->u = (u_int)(r >> 32);
	v->h = (quad_t)xd_rand(rng);
	v->uh = (u_quad_t)xd_rand(rng);
	v->b = (bool_t)(r >> 7 & 1);
	v->e = colors[(r >> 9) % 3];
	/* Any finite float/double: compared by their XDR bits. */
	v->f = (float)(int32_t)(r >> 11) / 1024.0f;
	v->d = (double)(int64_t)xd_rand(rng) / 3.0;
}

void xd_gen_un(uint64_t *rng, uint32_t size, xd_un *v)
{
	memset(v, 0, sizeof(*v));
	switch (xd_rand(rng) % 4) {
	case 0:
		v->c = XD_RED;
		v->xd_un_u.i = (int)xd_rand(rng);
		break;
	case 1:
		v->c = XD_GREEN;
		xd_gen_str(rng, size, &v->xd_un_u.s);
		break;
	case 2:
		v->c = XD_BLUE;
		xd_gen_pts(rng, size, (xd_pts *)&v->xd_un_u.vp);
		break;
	default:
		v->c = (xd_color)42;	/* the default arm: void */
		break;
	}
}

/* A list of at most 256 nodes whose tags share @size. */
static xd_node *gen_list(uint64_t *rng, uint32_t size)
{
	uint32_t n = size / 64 + 1, i;
	xd_node *head = NULL, **tail = &head;

	if (n > 256)
		n = 256;
	n = (uint32_t)(xd_rand(rng) % n) + (size ? 1 : 0);
	for (i = 0; i < n; i++) {
		xd_node *nd = xmalloc(sizeof(*nd));

		nd->v = (int)xd_rand(rng);
		xd_gen_opq(rng, size / n, (xd_opq *)&nd->tag);
		nd->next = NULL;
		*tail = nd;
		tail = &nd->next;
	}
	return head;
}

void xd_gen_all(uint64_t *rng, uint32_t size, unsigned int shape, xd_all *v)
{
	uint32_t part[7] = { 0 };
	unsigned int i;

	memset(v, 0, sizeof(*v));
	xd_gen_scalars(rng, &v->sc);
	gen_pt(rng, &v->in.p);
	fill(rng, v->in.fo, sizeof(v->in.fo));
	fill(rng, (char *)v->in.fa, sizeof(v->in.fa));
	xd_gen_scalars(rng, &v->in.sc);
	fill(rng, v->fop, sizeof(v->fop));
	for (i = 0; i < 3; i++)
		v->fah[i] = (quad_t)xd_rand(rng);
	gen_pt(rng, &v->fas[0]);
	gen_pt(rng, &v->fas[1]);
	if (shape < 7) {
		part[shape] = size;
	} else {
		for (i = 0; i < 7; i++)
			part[i] = size / 7;
	}
	xd_gen_opq(rng, part[0], (xd_opq *)&v->vop);
	xd_gen_str(rng, part[1], &v->str);
	xd_gen_ints(rng, part[2], (xd_ints *)&v->vai);
	xd_gen_pts(rng, part[3], (xd_pts *)&v->vas);
	xd_gen_un(rng, part[4], &v->un);
	if (xd_rand(rng) & 1) {
		v->opt = xmalloc(sizeof(*v->opt));
		gen_pt(rng, v->opt);
	}
	v->list = gen_list(rng, part[5] + part[6]);
}

char *xd_encode(xdrproc_t proc, void *obj, size_t *len)
{
	unsigned long n = xdr_sizeof(proc, obj);
	char *buf;
	XDR x;

	if (!n && obj)
		return NULL;
	buf = xmalloc(n);
	xdrmem_create(&x, buf, (u_int)n, XDR_ENCODE);
	if (!proc(&x, obj) || xdr_getpos(&x) != n) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

uint64_t xd_digest(xdrproc_t proc, void *obj)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t len, i;
	char *buf = xd_encode(proc, obj, &len);

	if (!buf)
		return 0;
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
	free(buf);
	return h;
}
