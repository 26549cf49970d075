/*
 * The options a handle runs with: the key table (conf_keys.c), and the
 * layers read once at creation (the program's fields, the environment,
 * rpcrdma.conf and conf.d) resolved by precedence, again per device.
 */
#ifndef RPCRDMA_OPTIONS_H
#define RPCRDMA_OPTIONS_H

#include <pthread.h>
#include <stddef.h>
#include <rpcrdma/rpcrdma.h>
#include "conf.h"
#include "driver.h"

extern const struct rpcrdma_conf_key rpcrdma_keys[];
extern const size_t rpcrdma_nkeys;

/*
 * A built-in default that differs on one driver: it replaces the key
 * table's default there, and any layer that sets the key still wins.
 */
struct rpcrdma_driver_default {
	enum rpcrdma_driver dd_driver;
	const char *dd_key;
	uint64_t dd_value;
};
extern const struct rpcrdma_driver_default rpcrdma_driver_defaults[];
extern const size_t rpcrdma_ndriver_defaults;

/*
 * A built-in default that differs for one role: it replaces the key
 * table's default (the client's) there; a driver's default and any layer
 * that sets the key still win.
 */
struct rpcrdma_role_default {
	unsigned int rd_role;		/* RPCRDMA_CS_CLIENT or _SERVER */
	const char *rd_key;
	uint64_t rd_value;
};
extern const struct rpcrdma_role_default rpcrdma_role_defaults[];
extern const size_t rpcrdma_nrole_defaults;

/* ro_log_level / log_level. */
enum {
	RPCRDMA_LOG_OFF,
	RPCRDMA_LOG_ERROR,
	RPCRDMA_LOG_WARNING,
	RPCRDMA_LOG_DEBUG,
};

/* What a handle was created with, kept to resolve again per device. */
struct rpcrdma_optsrc {
	struct rpcrdma_conf *os_conf;		/* files and environment */
	struct rpcrdma_options os_handle;	/* the program's; all unset for NULL */
	unsigned int os_role;			/* RPCRDMA_CS_CLIENT or _SERVER */
	/* os_handle may change while connections resolve from it (a
	 * server's listener): resolution and updates hold os_lock. */
	pthread_mutex_t os_lock;
};

/*
 * Read the configuration FILE (and FILE.d; must_exist when the program or
 * RPCRDMA_CONF named it) and envp, and check every field the program set
 * (handle: its own struct, read as far as its ro_size).
 * 0; -EINVAL when a file, a variable, a field or ro_size is bad (the conf's
 * diagnostics and err say why); -ENOMEM.  src needs fini either way.
 */
int rpcrdma_optsrc_init(struct rpcrdma_optsrc *src,
			const struct rpcrdma_options *handle, unsigned int role,
			const char *file, bool must_exist, char *const *envp,
			char *err, size_t errlen);
void rpcrdma_optsrc_fini(struct rpcrdma_optsrc *src);

/*
 * Change the live keys (RPCRDMA_CS_LIVE) that `change` (the program's
 * struct, read as far as its ro_size) sets, in `live`: all or none.
 * -EINVAL, with err saying why, when a set field is not a live key of
 * this role or is out of range, or ro_size is bad.
 */
int rpcrdma_options_update(struct rpcrdma_options *live,
			   const struct rpcrdma_options *change,
			   unsigned int role, char *err, size_t errlen);
/* The same into the handle layer, for connections resolved later. */
int rpcrdma_optsrc_update(struct rpcrdma_optsrc *src,
			  const struct rpcrdma_options *change,
			  char *err, size_t errlen);

/*
 * The options in force on device (NULL: not known yet), whose driver is
 * drv (RPCRDMA_DRV_OTHER: not known yet, or one without defaults of its
 * own).
 */
void rpcrdma_optsrc_resolve(const struct rpcrdma_optsrc *src,
			    const char *device, enum rpcrdma_driver drv,
			    struct rpcrdma_options *out);
/*
 * One key's value and where it came from; a driver's built-in default
 * comes from layer RPCRDMA_CL_DEFAULT with co_device the driver's name.
 */
void rpcrdma_optsrc_get(const struct rpcrdma_optsrc *src, size_t k,
			const char *device, enum rpcrdma_driver drv,
			uint64_t *val, const char **str,
			struct rpcrdma_conf_origin *origin);

/* The configuration file when RPCRDMA_CONF does not name one. */
#ifndef RPCRDMA_SYSCONFDIR
#define RPCRDMA_SYSCONFDIR "/etc"
#endif
#define RPCRDMA_CONF_FILE RPCRDMA_SYSCONFDIR "/rpcrdma.conf"

#endif /* RPCRDMA_OPTIONS_H */
