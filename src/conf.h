/*
 * The configuration parser: INI-style files (rpcrdma.conf, conf.d) and
 * RPCRDMA_<KEY> environment variables read into a reentrant object, then
 * looked up per key, role and device by precedence.  Pure: it knows no
 * transport, only the key table it is given.  See rpcrdma.conf(5).
 */
#ifndef RPCRDMA_CONF_H
#define RPCRDMA_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rpcrdma_conf_type {
	RPCRDMA_CT_UINT,	/* a count: decimal digits */
	RPCRDMA_CT_SIZE,	/* bytes, with an optional K, M or G suffix */
	RPCRDMA_CT_DURATION,	/* a bare number in the key's unit, or us, ms, s, m */
	RPCRDMA_CT_BOOL,	/* yes/no, true/false, on/off, 1/0 */
	RPCRDMA_CT_ENUM,	/* one of ck_names */
	RPCRDMA_CT_STRING,	/* anything up to RPCRDMA_CONF_STRMAX bytes */
};

/* ck_where: the sections a key may be set in, beside [global]. */
#define RPCRDMA_CS_CLIENT	0x1u
#define RPCRDMA_CS_SERVER	0x2u
#define RPCRDMA_CS_DEVICE	0x4u
/* ... and whether a live handle may change it (RPCRDMA_CLSET_OPTIONS). */
#define RPCRDMA_CS_LIVE		0x8u

/* Precedence, lowest first; a higher layer wins. */
enum rpcrdma_conf_layer {
	RPCRDMA_CL_DEFAULT,	/* built in */
	RPCRDMA_CL_MAIN,	/* rpcrdma.conf */
	RPCRDMA_CL_CONFD,	/* rpcrdma.conf.d/ *.conf, later files win */
	RPCRDMA_CL_DEVICE,	/* a [device NAME] section of either */
	RPCRDMA_CL_ENV,		/* RPCRDMA_<KEY> */
	RPCRDMA_CL_HANDLE,	/* set by the program for one handle */
};

#define RPCRDMA_CONF_STRMAX	255

/*
 * One tunable: the single place a key is defined.  The parser reads the
 * name, type, range and where; ck_offset is for the caller's own use.
 */
struct rpcrdma_conf_key {
	const char *ck_name;
	enum rpcrdma_conf_type ck_type;
	uint64_t ck_min, ck_max;	/* inclusive, in the key's unit */
	uint64_t ck_default;
	uint32_t ck_multiple;		/* value must be a multiple of this; 0: any */
	uint32_t ck_unit_us;		/* durations: the key's unit in µs */
	const char *const *ck_names;	/* enums: the names of 0, 1, ... */
	unsigned int ck_where;		/* RPCRDMA_CS_* */
	size_t ck_offset;		/* opaque to the parser */
	const char *ck_doc;		/* one line, for rpcrdma-conf --keys */
};

/* Where a value came from: the layer, and the file and line if any. */
struct rpcrdma_conf_origin {
	enum rpcrdma_conf_layer co_layer;
	const char *co_file;		/* file name, or the variable's name */
	unsigned int co_line;
	const char *co_device;		/* [device NAME] it came from */
	unsigned int co_section;	/* 0: [global], else RPCRDMA_CS_* */
};

struct rpcrdma_conf;

struct rpcrdma_conf *rpcrdma_conf_new(const struct rpcrdma_conf_key *keys,
				      size_t nkeys);
void rpcrdma_conf_free(struct rpcrdma_conf *c);

/*
 * Parse one file's text into layer MAIN or CONFD.  Every problem becomes
 * a diagnostic "NAME:LINE: message"; bad values and syntax are errors,
 * unknown or misplaced keys and sections are warnings (and ignored).
 * Returns the number of errors in this text.
 */
unsigned int rpcrdma_conf_parse(struct rpcrdma_conf *c, const char *name,
				const char *text, enum rpcrdma_conf_layer layer);
/*
 * Read FILE (missing is fine unless must_exist) and every FILE.d/ *.conf in
 * name order as CONFD.  Returns the number of errors so far, in total.
 */
unsigned int rpcrdma_conf_load(struct rpcrdma_conf *c, const char *file,
			       bool must_exist);
/* Read RPCRDMA_<KEY>=value entries of envp; other variables are ignored. */
unsigned int rpcrdma_conf_load_env(struct rpcrdma_conf *c, char *const *envp);

unsigned int rpcrdma_conf_errors(const struct rpcrdma_conf *c);
size_t rpcrdma_conf_ndiags(const struct rpcrdma_conf *c);
/* The i-th diagnostic, in the order found; *is_error says which kind. */
const char *rpcrdma_conf_diag(const struct rpcrdma_conf *c, size_t i,
			      bool *is_error);

/*
 * The value of key k for role (RPCRDMA_CS_CLIENT or _SERVER) on device
 * (NULL: not known yet, no [device] section applies): the highest layer
 * that set it, then the most specific section ([client] over [global]),
 * then the last one set.  Returns false when nothing set it (the default
 * applies).  *str is set for strings; origin may be NULL.
 */
bool rpcrdma_conf_lookup(const struct rpcrdma_conf *c, size_t k,
			 unsigned int role, const char *device, uint64_t *val,
			 const char **str, struct rpcrdma_conf_origin *origin);

/* Table helpers, also for values a program sets per handle. */
int rpcrdma_conf_key_index(const struct rpcrdma_conf *c, const char *name);
const char *rpcrdma_conf_suggest(const struct rpcrdma_conf_key *keys,
				 size_t nkeys, const char *name);
/* 0, or -EINVAL with a message naming the key and its accepted range. */
int rpcrdma_conf_parse_value(const struct rpcrdma_conf_key *k, const char *text,
			     uint64_t *val, char *err, size_t errlen);
int rpcrdma_conf_check_value(const struct rpcrdma_conf_key *k, uint64_t val,
			     char *err, size_t errlen);
/* The accepted range in words, e.g. "1024 to 262144, a multiple of 1024". */
void rpcrdma_conf_range(const struct rpcrdma_conf_key *k, char *buf, size_t len);
/* A value as a file would spell it: "4096", "300us", "mapped", "yes". */
void rpcrdma_conf_format(const struct rpcrdma_conf_key *k, uint64_t val,
			 const char *str, char *buf, size_t len);
const char *rpcrdma_conf_type_name(enum rpcrdma_conf_type t);

#endif /* RPCRDMA_CONF_H */
