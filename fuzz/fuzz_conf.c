/*
 * Fuzz target: the rpcrdma.conf parser and RPCRDMA_<KEY> variables, over
 * the real key table.  Whatever the text, every diagnostic names the file
 * and a line it has, and every value a lookup returns is in its key's
 * range, came from a line that set it, and survives format and re-parse.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "conf.h"
#include "options.h"

#define FILE_NAME "fuzz.conf"
#define MAX_TEXT 8192
#define MAX_ENV 64

static const char *const devices[] = { NULL, "rxe0", "siw0", "mlx5_0" };
static const unsigned int roles[] = { RPCRDMA_CS_CLIENT, RPCRDMA_CS_SERVER };

static unsigned int count_lines(const char *t)
{
	unsigned int n = 1;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* "NAME:LINE: ..." with 1 <= LINE <= nlines, or "NAME: ..." (no line). */
static void check_diag(const char *d, const char *name, unsigned int nlines)
{
	size_t n = strlen(name);
	unsigned long line = 0;
	const char *p;

	FUZZ_CHECK(!strncmp(d, name, n) && d[n] == ':');
	p = d + n + 1;
	if (*p == ' ')
		return;
	FUZZ_CHECK(*p >= '1' && *p <= '9');
	while (*p >= '0' && *p <= '9' && line <= nlines)
		line = line * 10 + (unsigned long)(*p++ - '0');
	FUZZ_CHECK(line >= 1 && line <= nlines && p[0] == ':' && p[1] == ' ');
}

/* A value as set: in range, and what format() spells parses back to it. */
static void check_value(const struct rpcrdma_conf_key *k, uint64_t v,
			const char *str)
{
	char text[RPCRDMA_CONF_STRMAX + 64], err[256];
	uint64_t again = ~v;

	if (k->ck_type == RPCRDMA_CT_STRING) {
		FUZZ_CHECK(str && strlen(str) <= RPCRDMA_CONF_STRMAX);
		return;
	}
	FUZZ_CHECK(rpcrdma_conf_check_value(k, v, err, sizeof(err)) == 0);
	if (k->ck_type == RPCRDMA_CT_ENUM || k->ck_type == RPCRDMA_CT_BOOL)
		FUZZ_CHECK(v <= (k->ck_type == RPCRDMA_CT_BOOL ? 1 : k->ck_max));
	rpcrdma_conf_format(k, v, str, text, sizeof(text));
	FUZZ_CHECK(rpcrdma_conf_parse_value(k, text, &again, err, sizeof(err)) == 0);
	FUZZ_CHECK(again == v);
}

static void check_lookups(const struct rpcrdma_conf *c, enum rpcrdma_conf_layer layer,
			  unsigned int nlines)
{
	struct rpcrdma_conf_origin o;
	const char *str;
	uint64_t v;
	size_t k, d, r;

	for (k = 0; k < rpcrdma_nkeys; k++)
		for (r = 0; r < sizeof(roles) / sizeof(roles[0]); r++)
			for (d = 0; d < sizeof(devices) / sizeof(devices[0]); d++) {
				str = NULL;
				if (!rpcrdma_conf_lookup(c, k, roles[r], devices[d], &v,
							 &str, &o))
					continue;
				FUZZ_CHECK(rpcrdma_keys[k].ck_where & roles[r]);
				check_value(&rpcrdma_keys[k], v, str);
				if (o.co_device) {
					FUZZ_CHECK(devices[d] && !strcmp(o.co_device, devices[d]));
					FUZZ_CHECK(o.co_layer == RPCRDMA_CL_DEVICE);
				} else {
					FUZZ_CHECK(o.co_layer == layer);
					FUZZ_CHECK(!o.co_section || o.co_section == roles[r]);
				}
				if (layer == RPCRDMA_CL_ENV) {
					FUZZ_CHECK(!strncmp(o.co_file, "RPCRDMA_", 8));
					FUZZ_CHECK(rpcrdma_conf_key_index(c, o.co_file + 8) == (int)k);
				} else {
					FUZZ_CHECK(!strcmp(o.co_file, FILE_NAME));
					FUZZ_CHECK(o.co_line >= 1 && o.co_line <= nlines);
				}
			}
}

static void check_diags(const struct rpcrdma_conf *c, unsigned int errors,
			const char *name, unsigned int nlines)
{
	unsigned int nerr = 0;
	size_t i;
	bool is_err;

	for (i = 0; i < rpcrdma_conf_ndiags(c); i++) {
		const char *d = rpcrdma_conf_diag(c, i, &is_err);

		FUZZ_CHECK(d != NULL);
		if (name)
			check_diag(d, name, nlines);
		else
			FUZZ_CHECK(!strncmp(d, "RPCRDMA_", 8));
		nerr += is_err;
	}
	FUZZ_CHECK(rpcrdma_conf_diag(c, i, &is_err) == NULL);
	FUZZ_CHECK(nerr == errors && rpcrdma_conf_errors(c) == errors);
}

/* The same text as environment: one variable a line. */
static void run_env(char *text)
{
	char *envp[MAX_ENV + 1], *line = text, *nl;
	struct rpcrdma_conf *c = rpcrdma_conf_new(rpcrdma_keys, rpcrdma_nkeys);
	unsigned int n = 0, errors;

	FUZZ_CHECK(c != NULL);
	while (line && n < MAX_ENV) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		envp[n++] = line;
		line = nl;
	}
	envp[n] = NULL;
	errors = rpcrdma_conf_load_env(c, envp);
	check_diags(c, errors, NULL, 0);
	check_lookups(c, RPCRDMA_CL_ENV, 0);
	rpcrdma_conf_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[MAX_TEXT + 1];
	enum rpcrdma_conf_layer layer;
	struct rpcrdma_conf *c;
	unsigned int errors, nlines;

	if (!size || size - 1 > MAX_TEXT)
		return 0;
	layer = data[0] & 1 ? RPCRDMA_CL_CONFD : RPCRDMA_CL_MAIN;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';	/* the parser reads C strings */
	nlines = count_lines(text);

	c = rpcrdma_conf_new(rpcrdma_keys, rpcrdma_nkeys);
	FUZZ_CHECK(c != NULL);
	errors = rpcrdma_conf_parse(c, FILE_NAME, text, layer);
	check_diags(c, errors, FILE_NAME, nlines);
	check_lookups(c, layer, nlines);
	rpcrdma_conf_free(c);

	if (data[0] & 2)
		run_env(text);
	return 0;
}
