/*
 * Library identity: the version string of the librpcrdma that was loaded,
 * so programs can log it beside their own.
 */
#include "config.h"
#include <rpcrdma/rpcrdma.h>

const char *rpcrdma_version(void)
{
	return PACKAGE_VERSION;
}
