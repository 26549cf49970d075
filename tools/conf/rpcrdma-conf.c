/*
 * rpcrdma-conf: shows the configuration librpcrdma would run with, for
 * clients and servers, optionally on one device, with where each value
 * came from; checks the files; lists the keys.  Built from the library's
 * own parser and key table, so it reads exactly what a handle reads.
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

extern char **environ;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rpcrdma-conf [--file PATH] [--client|--server] [--device NAME]\n"
		"                    [--driver rxe|siw] --dump\n"
		"       rpcrdma-conf [--file PATH] --check\n"
		"       rpcrdma-conf --keys\n"
		"Default file: $RPCRDMA_CONF, else %s (and its .d folder).\n",
		RPCRDMA_CONF_FILE);
}

static const char *where_name(unsigned int w)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "%s%s%s", w & RPCRDMA_CS_CLIENT ? "client" : "",
		 (w & RPCRDMA_CS_CLIENT) && (w & RPCRDMA_CS_SERVER) ? "," : "",
		 w & RPCRDMA_CS_SERVER ? "server" : "");
	if (w & RPCRDMA_CS_DEVICE)
		strcat(buf, ",device");
	if (w & RPCRDMA_CS_LIVE)
		strcat(buf, ",live");
	return buf;
}

/* Tab-separated: name, type, default, range, sections, summary. */
static void list_keys(void)
{
	char def[64], range[160];
	size_t k;

	for (k = 0; k < rpcrdma_nkeys; k++) {
		const struct rpcrdma_conf_key *key = &rpcrdma_keys[k];

		rpcrdma_conf_format(key, key->ck_default, NULL, def, sizeof(def));
		rpcrdma_conf_range(key, range, sizeof(range));
		printf("%s\t%s\t%s\t%s\t%s\t%s\n", key->ck_name,
		       rpcrdma_conf_type_name(key->ck_type),
		       key->ck_type == RPCRDMA_CT_STRING ? "(none)" : def, range,
		       where_name(key->ck_where), key->ck_doc);
	}
}

static void origin_text(const struct rpcrdma_conf_origin *o, char *buf,
			size_t len)
{
	static const char *const sect[] = { "global", "client", "server" };

	switch (o->co_layer) {
	case RPCRDMA_CL_DEFAULT:
		if (o->co_device)
			snprintf(buf, len, "default for %s", o->co_device);
		else
			snprintf(buf, len, "default");
		break;
	case RPCRDMA_CL_ENV:
		snprintf(buf, len, "environment %s", o->co_file);
		break;
	case RPCRDMA_CL_DEVICE:
		snprintf(buf, len, "%s:%u [device %s]", o->co_file, o->co_line,
			 o->co_device);
		break;
	default:
		snprintf(buf, len, "%s:%u [%s]", o->co_file, o->co_line,
			 sect[o->co_section < 3 ? o->co_section : 0]);
		break;
	}
}

/* The driver rpcrdma_driver_name() calls name, or RPCRDMA_DRV_OTHER. */
static enum rpcrdma_driver driver_named(const char *name)
{
	enum rpcrdma_driver d;

	for (d = RPCRDMA_DRV_RXE; d < RPCRDMA_NDRV; d++)
		if (!strcmp(name, rpcrdma_driver_name(d)))
			return d;
	return RPCRDMA_DRV_OTHER;
}

static void dump(const struct rpcrdma_optsrc *src, const char *device,
		 enum rpcrdma_driver drv)
{
	struct rpcrdma_conf_origin o;
	char val[300], from[600];
	const char *str;
	uint64_t v;
	size_t k;

	printf("[%s]%s%s%s%s\n", src->os_role == RPCRDMA_CS_CLIENT ? "client" : "server",
	       device ? " # on device " : "", device ? device : "",
	       drv != RPCRDMA_DRV_OTHER ? " # driver " : "",
	       drv != RPCRDMA_DRV_OTHER ? rpcrdma_driver_name(drv) : "");
	for (k = 0; k < rpcrdma_nkeys; k++) {
		const struct rpcrdma_conf_key *key = &rpcrdma_keys[k];

		if (!(key->ck_where & src->os_role))
			continue;
		rpcrdma_optsrc_get(src, k, device, drv, &v, &str, &o);
		rpcrdma_conf_format(key, v, str, val, sizeof(val));
		origin_text(&o, from, sizeof(from));
		printf("%-20s = %-10s # %s\n", key->ck_name,
		       key->ck_type == RPCRDMA_CT_STRING && !str ? "" : val, from);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "device", required_argument, NULL, 'd' },
		{ "driver", required_argument, NULL, 'r' },
		{ "client", no_argument, NULL, 'c' },
		{ "server", no_argument, NULL, 's' },
		{ "dump", no_argument, NULL, 'D' },
		{ "check", no_argument, NULL, 'C' },
		{ "keys", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = getenv("RPCRDMA_CONF"), *device = NULL, *d;
	bool must_exist = file != NULL, is_err, first = true;
	unsigned int roles = RPCRDMA_CS_CLIENT | RPCRDMA_CS_SERVER, r;
	int c, mode = 0, rc = 0;
	enum rpcrdma_driver drv = RPCRDMA_DRV_OTHER;
	struct rpcrdma_optsrc src;
	char err[512];
	size_t i;

	while ((c = getopt_long(argc, argv, "f:d:r:csDCkh", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': file = optarg; must_exist = true; break;
		case 'd': device = optarg; break;
		case 'r':
			drv = driver_named(optarg);
			if (drv == RPCRDMA_DRV_OTHER) {
				fprintf(stderr, "rpcrdma-conf: --driver: rxe or siw, "
					"not \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'c': roles = RPCRDMA_CS_CLIENT; break;
		case 's': roles = RPCRDMA_CS_SERVER; break;
		case 'D': case 'C': case 'k': mode = c; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!mode || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (mode == 'k') {
		list_keys();
		return 0;
	}
	if (!file)
		file = RPCRDMA_CONF_FILE;
	for (r = RPCRDMA_CS_CLIENT; r <= RPCRDMA_CS_SERVER; r <<= 1) {
		if (!(roles & r))
			continue;
		if (rpcrdma_optsrc_init(&src, NULL, r, file, must_exist, environ,
					err, sizeof(err)) == -ENOMEM) {
			fprintf(stderr, "rpcrdma-conf: out of memory\n");
			return 1;
		}
		/* The diagnostics are the same for both roles: print once. */
		for (i = 0; first && (d = rpcrdma_conf_diag(src.os_conf, i, &is_err)); i++)
			fprintf(stderr, "%s%s\n", is_err ? "" : "warning: ", d);
		if (rpcrdma_conf_errors(src.os_conf))
			rc = 1;
		if (mode == 'D') {
			if (!first)
				putchar('\n');
			dump(&src, device, drv);
		}
		first = false;
		rpcrdma_optsrc_fini(&src);
	}
	if (rc)
		fprintf(stderr, "rpcrdma-conf: %s: errors: a handle would not be "
			"created\n", file);
	return rc;
}
