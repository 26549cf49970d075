/*
 * The backing directory of the tests' NFSv3 server (nfs3_server.c): file
 * handles that outlive a restart of the server, attributes, and errno to
 * nfsstat3.  Declarations shared by nfs3_fs.c and nfs3_server.c.
 */
#ifndef NFS3_FS_H
#define NFS3_FS_H

#include <stdint.h>
#include <sys/stat.h>
#include "nfs3.h"

#define FH_LEN 16		/* "N3FH", 4 bytes zero, the inode number */

int fs_init(const char *root);
const char *fs_root(void);
/* The object a handle names: its path into path (PATH_MAX), lstat'ed into
 * *st: NFS3_OK, BADHANDLE, STALE. */
nfsstat3 fs_resolve(const nfs_fh3 *fh, char *path, struct stat *st);
/* DIR's path joined with NAME into buf (PATH_MAX): NFS3_OK or an error. */
nfsstat3 fs_join(const char *dir, const char *name, char *buf, int dots);
void fs_remember(uint64_t ino, const char *path);
void fs_forget(uint64_t ino);
/* fh->data_val points into storage the caller owns (FH_LEN bytes). */
void fs_fh(uint64_t ino, nfs_fh3 *fh, char *storage);
/* Memory the Reply being built points into; fs_alloc_free() after it
 * is sent. */
void *fs_alloc(size_t n);
void fs_alloc_free(void);
/* A handle in fs_alloc() memory: 0, or -1 out of memory. */
int fs_new_fh(uint64_t ino, nfs_fh3 *fh);
nfsstat3 fs_errno(int e);
void fs_fattr(const struct stat *st, fattr3 *a);
void fs_post(const char *path, post_op_attr *p);
void fs_pre(const struct stat *st, pre_op_attr *p);
void fs_wcc(const struct stat *before, const char *path, wcc_data *w);
/* Sets what a sattr3 asks on path: NFS3_OK or an error. */
nfsstat3 fs_sattr(const char *path, const sattr3 *s);

/* nfs3_mount.c: MOUNT v3 over TCP; xdr_void as a cast xdrproc_t cannot be. */
bool_t xdr_nothing(XDR *x, void *p);
void mount_dispatch(struct svc_req *rq, SVCXPRT *xprt);
SVCXPRT *mount_listener(const char *addr, const char *port);

/* nfs3_dir.c: READDIR and READDIRPLUS. */
nfsstat3 do_readdir(struct svc_req *rq, void *argp, void *resp);
nfsstat3 do_readdirplus(struct svc_req *rq, void *argp, void *resp);

#endif
