/*
 * Typed configuration values (see conf.h): parsing a count, size,
 * duration, boolean, name or string against its key, the range check,
 * and printing a value or a range the way a file would spell it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "conf.h"

const char *rpcrdma_conf_type_name(enum rpcrdma_conf_type t)
{
	static const char *const names[] = {
		"count", "size", "duration", "boolean", "name", "string",
	};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

/* Microseconds per unit, largest first, as a duration is printed. */
static const struct { const char *u; uint64_t us; } dur_units[] = {
	{ "h", 3600000000ull }, { "m", 60000000ull }, { "s", 1000000ull },
	{ "ms", 1000ull }, { "us", 1ull },
};
#define NDUR (sizeof(dur_units) / sizeof(dur_units[0]))

void rpcrdma_conf_format(const struct rpcrdma_conf_key *k, uint64_t val,
			 const char *str, char *buf, size_t len)
{
	uint64_t us;
	size_t i;

	switch (k->ck_type) {
	case RPCRDMA_CT_DURATION:
		us = val * k->ck_unit_us;
		for (i = 0; i < NDUR; i++)
			if (us && us % dur_units[i].us == 0)
				break;
		if (i == NDUR) {	/* zero: in the key's own unit */
			for (i = 0; i < NDUR - 1 && dur_units[i].us != k->ck_unit_us; i++)
				;
			snprintf(buf, len, "0%s", dur_units[i].u);
		} else {
			snprintf(buf, len, "%llu%s",
				 (unsigned long long)(us / dur_units[i].us),
				 dur_units[i].u);
		}
		break;
	case RPCRDMA_CT_BOOL:
		snprintf(buf, len, "%s", val ? "yes" : "no");
		break;
	case RPCRDMA_CT_ENUM:
		snprintf(buf, len, "%s", k->ck_names[val]);
		break;
	case RPCRDMA_CT_STRING:
		snprintf(buf, len, "%s", str ? str : "");
		break;
	case RPCRDMA_CT_SIZE:
		/* Large round sizes the way one would write them. */
		if (val >= (1u << 20) && val % (1u << 30) == 0)
			snprintf(buf, len, "%lluG", (unsigned long long)(val >> 30));
		else if (val >= (1u << 20) && val % (1u << 20) == 0)
			snprintf(buf, len, "%lluM", (unsigned long long)(val >> 20));
		else
			snprintf(buf, len, "%llu", (unsigned long long)val);
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)val);
		break;
	}
}

void rpcrdma_conf_range(const struct rpcrdma_conf_key *k, char *buf, size_t len)
{
	char lo[32], hi[32];
	size_t i, n;

	switch (k->ck_type) {
	case RPCRDMA_CT_BOOL:
		snprintf(buf, len, "yes or no");
		return;
	case RPCRDMA_CT_STRING:
		snprintf(buf, len, "up to %u bytes", RPCRDMA_CONF_STRMAX);
		return;
	case RPCRDMA_CT_ENUM:
		buf[0] = '\0';
		for (i = 0; k->ck_names[i]; i++) {
			n = strlen(buf);
			snprintf(buf + n, len - n, "%s%s", i == 0 ? "" :
				 k->ck_names[i + 1] ? ", " : " or ", k->ck_names[i]);
		}
		return;
	default:
		rpcrdma_conf_format(k, k->ck_min, NULL, lo, sizeof(lo));
		rpcrdma_conf_format(k, k->ck_max, NULL, hi, sizeof(hi));
		if (k->ck_multiple > 1)
			snprintf(buf, len, "%s to %s, a multiple of %u", lo, hi,
				 k->ck_multiple);
		else
			snprintf(buf, len, "%s to %s", lo, hi);
	}
}

int rpcrdma_conf_check_value(const struct rpcrdma_conf_key *k, uint64_t val,
			     char *err, size_t errlen)
{
	char range[160];

	if (k->ck_type == RPCRDMA_CT_STRING)
		return 0;
	if (k->ck_type == RPCRDMA_CT_ENUM || k->ck_type == RPCRDMA_CT_BOOL) {
		size_t n = 0;

		while (k->ck_type == RPCRDMA_CT_ENUM && k->ck_names[n])
			n++;
		if (val < (k->ck_type == RPCRDMA_CT_BOOL ? 2 : n))
			return 0;
	} else if (val >= k->ck_min && val <= k->ck_max &&
		   (k->ck_multiple <= 1 || val % k->ck_multiple == 0)) {
		return 0;
	}
	rpcrdma_conf_range(k, range, sizeof(range));
	snprintf(err, errlen, "out of range (accepted: %s)", range);
	return -EINVAL;
}

/* Decimal digits, then whatever follows in *rest; saturates on overflow. */
static bool parse_number(const char *s, uint64_t *v, const char **rest)
{
	uint64_t n = 0;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++)
		n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX :
		    n * 10 + (uint64_t)(*s - '0');
	*v = n;
	*rest = s;
	return true;
}

static bool mul_ok(uint64_t *v, uint64_t m)
{
	if (m && *v > UINT64_MAX / m)
		return false;
	*v *= m;
	return true;
}

static int parse_scaled(const struct rpcrdma_conf_key *k, const char *text,
			uint64_t *val, char *err, size_t errlen)
{
	static const struct { const char *s; uint64_t m; } sizes[] = {
		{ "", 1 }, { "k", 1024 }, { "kib", 1024 }, { "m", 1u << 20 },
		{ "mib", 1u << 20 }, { "g", 1u << 30 }, { "gib", 1u << 30 },
	};
	static const struct { const char *s; uint64_t us; } durs[] = {
		{ "us", 1 }, { "ms", 1000 }, { "s", 1000000 }, { "m", 60000000 },
		{ "min", 60000000 }, { "h", 3600000000ull },
	};
	const char *rest;
	uint64_t v;
	size_t i;

	if (!parse_number(text, &v, &rest)) {
		snprintf(err, errlen, "not a number");
		return -EINVAL;
	}
	if (k->ck_type == RPCRDMA_CT_UINT) {
		if (!*rest)
			goto done;
	} else if (k->ck_type == RPCRDMA_CT_SIZE) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (!strcasecmp(rest, sizes[i].s)) {
				if (!mul_ok(&v, sizes[i].m))
					goto range;
				goto done;
			}
	} else {
		if (!*rest)
			goto done;	/* in the key's own unit */
		for (i = 0; i < sizeof(durs) / sizeof(durs[0]); i++)
			if (!strcasecmp(rest, durs[i].s)) {
				if (!mul_ok(&v, durs[i].us))
					goto range;
				if (v % k->ck_unit_us) {
					snprintf(err, errlen, "not a whole number of %s",
						 k->ck_unit_us == 1000 ? "ms" : "s");
					return -EINVAL;
				}
				v /= k->ck_unit_us;
				goto done;
			}
	}
	snprintf(err, errlen, "unknown suffix '%s' (accepted: %s)", rest,
		 k->ck_type == RPCRDMA_CT_SIZE ? "K, M, G" :
		 k->ck_type == RPCRDMA_CT_DURATION ? "us, ms, s, m, h" : "none");
	return -EINVAL;
done:
	*val = v;
	return rpcrdma_conf_check_value(k, v, err, errlen);
range:
	*val = UINT64_MAX;
	return rpcrdma_conf_check_value(k, UINT64_MAX, err, errlen);
}

int rpcrdma_conf_parse_value(const struct rpcrdma_conf_key *k, const char *text,
			     uint64_t *val, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "true", "on", "1", NULL };
	static const char *const no[] = { "no", "false", "off", "0", NULL };
	char range[160];
	size_t i;

	*val = 0;
	switch (k->ck_type) {
	case RPCRDMA_CT_STRING:
		if (strlen(text) > RPCRDMA_CONF_STRMAX) {
			snprintf(err, errlen, "longer than %u bytes", RPCRDMA_CONF_STRMAX);
			return -EINVAL;
		}
		return 0;
	case RPCRDMA_CT_BOOL:
		for (i = 0; yes[i]; i++) {
			if (!strcasecmp(text, yes[i])) {
				*val = 1;
				return 0;
			}
			if (!strcasecmp(text, no[i]))
				return 0;
		}
		break;
	case RPCRDMA_CT_ENUM:
		for (i = 0; k->ck_names[i]; i++)
			if (!strcasecmp(text, k->ck_names[i])) {
				*val = i;
				return 0;
			}
		break;
	default:
		return parse_scaled(k, text, val, err, errlen);
	}
	rpcrdma_conf_range(k, range, sizeof(range));
	snprintf(err, errlen, "not understood (accepted: %s)", range);
	return -EINVAL;
}
