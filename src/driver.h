/*
 * The device drivers the library knows apart, for the few built-in
 * defaults that differ by driver (conf_keys.c, rpcrdma_driver_defaults).
 * verbs.c tells which one a connection runs on; options.c applies them.
 */
#ifndef RPCRDMA_DRIVER_H
#define RPCRDMA_DRIVER_H

enum rpcrdma_driver {
	RPCRDMA_DRV_OTHER,	/* hardware, or not known yet */
	RPCRDMA_DRV_RXE,	/* rdma_rxe, soft RoCE */
	RPCRDMA_DRV_SIW,	/* siw, soft iWARP */
	RPCRDMA_NDRV		/* how many: new drivers go before it */
};

/* "siw", "rxe", or NULL for RPCRDMA_DRV_OTHER. */
const char *rpcrdma_driver_name(enum rpcrdma_driver drv);

#endif /* RPCRDMA_DRIVER_H */
