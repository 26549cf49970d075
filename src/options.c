/*
 * Options by precedence: per handle (fields the program set) over the
 * environment over [device NAME] over conf.d over rpcrdma.conf over the
 * built-in defaults: the driver's (conf_keys.c), else the key table's.
 * No verbs and no global state: unit-tested as is.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "abi.h"
#include "options.h"

static bool handle_value(const struct rpcrdma_options *o,
			 const struct rpcrdma_conf_key *k, uint64_t *val,
			 const char **str)
{
	const char *p = (const char *)o + k->ck_offset;
	uint32_t v;

	if (k->ck_type == RPCRDMA_CT_STRING) {
		memcpy(str, p, sizeof(*str));
		return *str != NULL;
	}
	memcpy(&v, p, sizeof(v));
	*val = v;
	return v != RPCRDMA_OPT_UNSET;
}

/* Every field the program set must be in range, like a file's value. */
static int check_handle(const struct rpcrdma_options *o, unsigned int role,
			char *err, size_t errlen)
{
	char why[200], shown[64];
	const char *str;
	uint64_t v;
	size_t k;

	for (k = 0; k < rpcrdma_nkeys; k++) {
		const struct rpcrdma_conf_key *key = &rpcrdma_keys[k];

		if (!(key->ck_where & role) || !handle_value(o, key, &v, &str))
			continue;
		if (key->ck_type == RPCRDMA_CT_STRING) {
			if (strlen(str) <= RPCRDMA_CONF_STRMAX)
				continue;
			snprintf(err, errlen, "ro_%s (set by the program): longer "
				 "than %u bytes", key->ck_name, RPCRDMA_CONF_STRMAX);
			return -EINVAL;
		}
		if (!rpcrdma_conf_check_value(key, v, why, sizeof(why)))
			continue;
		if (key->ck_type == RPCRDMA_CT_ENUM || key->ck_type == RPCRDMA_CT_BOOL)
			snprintf(shown, sizeof(shown), "%llu", (unsigned long long)v);
		else
			rpcrdma_conf_format(key, v, NULL, shown, sizeof(shown));
		snprintf(err, errlen, "ro_%s = %s (set by the program): %s",
			 key->ck_name, shown, why);
		return -EINVAL;
	}
	return 0;
}

int rpcrdma_optsrc_init(struct rpcrdma_optsrc *src,
			const struct rpcrdma_options *handle, unsigned int role,
			const char *file, bool must_exist, char *const *envp,
			char *err, size_t errlen)
{
	int rc;

	memset(src, 0, sizeof(*src));
	pthread_mutex_init(&src->os_lock, NULL);
	err[0] = '\0';
	src->os_role = role;
	/* The program's fields, read only as far as its ro_size. */
	rc = rpcrdma_options_import(&src->os_handle, handle, err, errlen);
	src->os_conf = rpcrdma_conf_new(rpcrdma_keys, rpcrdma_nkeys);
	if (!src->os_conf)
		return -ENOMEM;
	if (file && *file)
		rpcrdma_conf_load(src->os_conf, file, must_exist);
	rpcrdma_conf_load_env(src->os_conf, envp);
	if (rc)
		return rc;
	rc = check_handle(&src->os_handle, role, err, errlen);
	if (rc)
		return rc;
	if (rpcrdma_conf_errors(src->os_conf)) {
		snprintf(err, errlen, "%u error%s in the configuration",
			 rpcrdma_conf_errors(src->os_conf),
			 rpcrdma_conf_errors(src->os_conf) == 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

void rpcrdma_optsrc_fini(struct rpcrdma_optsrc *src)
{
	rpcrdma_conf_free(src->os_conf);
	src->os_conf = NULL;
	pthread_mutex_destroy(&src->os_lock);
}

/* Check every field change sets: live keys of this role, in range. */
static int check_live(const struct rpcrdma_options *change, unsigned int role,
		      char *err, size_t errlen)
{
	const char *str;
	uint64_t v;
	size_t k;
	int rc;

	rc = check_handle(change, role, err, errlen);
	if (rc)
		return rc;
	for (k = 0; k < rpcrdma_nkeys; k++) {
		const struct rpcrdma_conf_key *key = &rpcrdma_keys[k];

		if (!handle_value(change, key, &v, &str))
			continue;
		if ((key->ck_where & role) && (key->ck_where & RPCRDMA_CS_LIVE))
			continue;
		snprintf(err, errlen, "ro_%s cannot change on a live %s", key->ck_name,
			 role == RPCRDMA_CS_CLIENT ? "client" : "server");
		return -EINVAL;
	}
	return 0;
}

/*
 * Readers on the fast path load these words without the lock: each store
 * is one word, so a reader sees the old value or the new one.
 */
static void apply_live(struct rpcrdma_options *live,
		       const struct rpcrdma_options *change)
{
	const char *str;
	uint64_t v = 0;
	size_t k;

	for (k = 0; k < rpcrdma_nkeys; k++)
		if (rpcrdma_keys[k].ck_type != RPCRDMA_CT_STRING &&
		    handle_value(change, &rpcrdma_keys[k], &v, &str))
			__atomic_store_n((uint32_t *)((char *)live +
						      rpcrdma_keys[k].ck_offset),
					 (uint32_t)v, __ATOMIC_RELAXED);
}

int rpcrdma_options_update(struct rpcrdma_options *live,
			   const struct rpcrdma_options *prog,
			   unsigned int role, char *err, size_t errlen)
{
	struct rpcrdma_options change;
	int rc = rpcrdma_options_import(&change, prog, err, errlen);

	if (!rc)
		rc = check_live(&change, role, err, errlen);
	if (!rc)
		apply_live(live, &change);
	return rc;
}

int rpcrdma_optsrc_update(struct rpcrdma_optsrc *src,
			  const struct rpcrdma_options *prog,
			  char *err, size_t errlen)
{
	struct rpcrdma_options change;
	int rc = rpcrdma_options_import(&change, prog, err, errlen);

	if (!rc)
		rc = check_live(&change, src->os_role, err, errlen);
	if (rc)
		return rc;
	pthread_mutex_lock(&src->os_lock);
	apply_live(&src->os_handle, &change);
	pthread_mutex_unlock(&src->os_lock);
	return 0;
}

const char *rpcrdma_driver_name(enum rpcrdma_driver drv)
{
	switch (drv) {
	case RPCRDMA_DRV_RXE:
		return "rxe";
	case RPCRDMA_DRV_SIW:
		return "siw";
	default:
		return NULL;
	}
}

/*
 * Key k's built-in default on drv for role; *from: the driver's name if
 * its own.
 */
static uint64_t builtin_default(size_t k, enum rpcrdma_driver drv,
				unsigned int role, const char **from)
{
	size_t i;

	*from = NULL;
	for (i = 0; drv != RPCRDMA_DRV_OTHER && i < rpcrdma_ndriver_defaults; i++) {
		const struct rpcrdma_driver_default *d = &rpcrdma_driver_defaults[i];

		if (d->dd_driver == drv &&
		    !strcmp(d->dd_key, rpcrdma_keys[k].ck_name)) {
			*from = rpcrdma_driver_name(drv);
			return d->dd_value;
		}
	}
	for (i = 0; i < rpcrdma_nrole_defaults; i++)
		if (rpcrdma_role_defaults[i].rd_role == role &&
		    !strcmp(rpcrdma_role_defaults[i].rd_key, rpcrdma_keys[k].ck_name))
			return rpcrdma_role_defaults[i].rd_value;
	return rpcrdma_keys[k].ck_default;
}

void rpcrdma_optsrc_get(const struct rpcrdma_optsrc *src, size_t k,
			const char *device, enum rpcrdma_driver drv,
			uint64_t *val, const char **str,
			struct rpcrdma_conf_origin *origin)
{
	const struct rpcrdma_conf_key *key = &rpcrdma_keys[k];
	struct rpcrdma_conf_origin o;

	memset(&o, 0, sizeof(o));
	*str = NULL;
	*val = key->ck_default;
	if ((key->ck_where & src->os_role) &&
	    handle_value(&src->os_handle, key, val, str))
		o.co_layer = RPCRDMA_CL_HANDLE;
	else if (!src->os_conf ||
		 !rpcrdma_conf_lookup(src->os_conf, k, src->os_role, device, val,
				      str, &o)) {
		memset(&o, 0, sizeof(o));
		*val = builtin_default(k, drv, src->os_role, &o.co_device);
		*str = NULL;
		o.co_layer = RPCRDMA_CL_DEFAULT;
	}
	if (origin)
		*origin = o;
}

void rpcrdma_optsrc_resolve(const struct rpcrdma_optsrc *src,
			    const char *device, enum rpcrdma_driver drv,
			    struct rpcrdma_options *out)
{
	const char *str;
	uint64_t v;
	uint32_t v32;
	size_t k;

	memset(out, 0, sizeof(*out));
	/* Resolution only reads; the lock is the handle layer's writer's. */
	pthread_mutex_lock((pthread_mutex_t *)&src->os_lock);
	for (k = 0; k < rpcrdma_nkeys; k++) {
		char *p = (char *)out + rpcrdma_keys[k].ck_offset;

		rpcrdma_optsrc_get(src, k, device, drv, &v, &str, NULL);
		if (rpcrdma_keys[k].ck_type == RPCRDMA_CT_STRING) {
			memcpy(p, &str, sizeof(str));
		} else {
			v32 = (uint32_t)v;
			memcpy(p, &v32, sizeof(v32));
		}
	}
	pthread_mutex_unlock((pthread_mutex_t *)&src->os_lock);
}
