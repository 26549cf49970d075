/*
 * The tests' own NFSv3 server (RFC 1813), for the kernel's NFS/RDMA client
 * (tests/rdma/nfs3-cases.sh): NFSv3 over an svc_rdma_create() listener and
 * MOUNT v3 over libtirpc TCP, one svc_run(), backed by a real directory
 * (nfs3_fs.c, nfs3_dir.c; MOUNT in nfs3_mount.c).  Every procedure but MKNOD;
 * a UMNT ends it, its counters printed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <unistd.h>
#include <rpc/rpc.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3_fs.h"

#define IO_MAX (1u << 20)	/* rtmax and wtmax: READ and WRITE use chunks */
#define DIR_PREF 65536u
#define ARG_ROOM 512		/* dtpref: a large listing needs a Reply chunk */

static SVCXPRT *listener;
static char verf[8];		/* write verifier: changes with every start */
static unsigned long nfs_calls, nfs_errors, bad_args;

/* The caller's AUTH_SYS uid and gid (0, 0 under AUTH_NONE). */
static void caller(struct svc_req *rq, uid_t *uid, gid_t *gid)
{
	*uid = 0;
	*gid = 0;
	if (rq->rq_cred.oa_flavor == AUTH_SYS && rq->rq_clntcred) {
		const struct authunix_parms *a = (void *)rq->rq_clntcred;

		*uid = a->aup_uid;
		*gid = a->aup_gid;
	}
}

/* ---- procedures: each fills its result and returns its status ---------- */

static nfsstat3 do_getattr(struct svc_req *rq, void *argp, void *resp)
{
	GETATTR3args *a = argp;
	GETATTR3res *r = resp;
	char path[PATH_MAX];
	struct stat st;

	(void)rq;
	if ((r->status = fs_resolve(&a->object, path, &st)) == NFS3_OK)
		fs_fattr(&st, &r->GETATTR3res_u.resok.obj_attributes);
	return r->status;
}

static nfsstat3 do_setattr(struct svc_req *rq, void *argp, void *resp)
{
	SETATTR3args *a = argp;
	WCC3res *r = resp;
	char path[PATH_MAX];
	struct stat st;

	(void)rq;
	if ((r->status = fs_resolve(&a->object, path, &st)) != NFS3_OK)
		return r->status;
	if (a->guard.check &&
	    (a->guard.sattrguard3_u.obj_ctime.seconds != (nfs3_u32)st.st_ctim.tv_sec ||
	     a->guard.sattrguard3_u.obj_ctime.nseconds != (nfs3_u32)st.st_ctim.tv_nsec))
		r->status = NFS3ERR_NOT_SYNC;
	else
		r->status = fs_sattr(path, &a->new_attributes);
	fs_wcc(&st, path, &r->wcc);
	return r->status;
}

static nfsstat3 do_lookup(struct svc_req *rq, void *argp, void *resp)
{
	LOOKUP3args *a = argp;
	LOOKUP3res *r = resp;
	LOOKUP3resok *ok = &r->LOOKUP3res_u.resok;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat st;

	(void)rq;
	if ((r->status = fs_resolve(&a->what.dir, dir, &st)) != NFS3_OK)
		return r->status;
	if (!S_ISDIR(st.st_mode))
		r->status = NFS3ERR_NOTDIR;
	else if ((r->status = fs_join(dir, a->what.name, path, 1)) == NFS3_OK &&
		 lstat(path, &st))
		r->status = fs_errno(errno);
	if (r->status != NFS3_OK) {
		fs_post(dir, &r->LOOKUP3res_u.resfail);
		return r->status;
	}
	fs_remember(st.st_ino, path);
	if (fs_new_fh(st.st_ino, &ok->object))
		return r->status = NFS3ERR_SERVERFAULT;
	ok->obj_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &ok->obj_attributes.post_op_attr_u.attributes);
	fs_post(dir, &ok->dir_attributes);
	return r->status;
}

static nfsstat3 do_access(struct svc_req *rq, void *argp, void *resp)
{
	ACCESS3args *a = argp;
	ACCESS3res *r = resp;
	char path[PATH_MAX];
	struct stat st;
	uint32_t want = a->access, got, m;
	uid_t uid;
	gid_t gid;

	if ((r->status = fs_resolve(&a->object, path, &st)) != NFS3_OK)
		return r->status;
	caller(rq, &uid, &gid);
	if (uid == 0)
		m = 07;
	else if (uid == st.st_uid)
		m = (st.st_mode >> 6) & 07;
	else if (gid == st.st_gid)
		m = (st.st_mode >> 3) & 07;
	else
		m = st.st_mode & 07;
	/* Root executes only what some execute bit allows. */
	if (uid == 0 && !S_ISDIR(st.st_mode) && !(st.st_mode & 0111))
		m &= ~1u;
	got = 0;
	if (m & 4)
		got |= ACCESS3_READ;
	if (m & 2)
		got |= ACCESS3_MODIFY | ACCESS3_EXTEND |
		       (S_ISDIR(st.st_mode) ? ACCESS3_DELETE : 0);
	if (m & 1)
		got |= S_ISDIR(st.st_mode) ? ACCESS3_LOOKUP : ACCESS3_EXECUTE;
	r->ACCESS3res_u.resok.access = want & got;
	r->ACCESS3res_u.resok.obj_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &r->ACCESS3res_u.resok.obj_attributes.post_op_attr_u.attributes);
	return r->status;
}

static nfsstat3 do_readlink(struct svc_req *rq, void *argp, void *resp)
{
	GETATTR3args *a = argp;
	READLINK3res *r = resp;
	char path[PATH_MAX], *buf;
	struct stat st;
	ssize_t n;

	(void)rq;
	if ((r->status = fs_resolve(&a->object, path, &st)) != NFS3_OK)
		return r->status;
	if (!S_ISLNK(st.st_mode) || !(buf = fs_alloc(PATH_MAX + 1)) ||
	    (n = readlink(path, buf, PATH_MAX)) < 0) {
		r->status = S_ISLNK(st.st_mode) ? fs_errno(errno) : NFS3ERR_INVAL;
		fs_post(path, &r->READLINK3res_u.resfail);
		return r->status;
	}
	buf[n] = '\0';
	r->READLINK3res_u.resok.data = buf;
	fs_post(path, &r->READLINK3res_u.resok.symlink_attributes);
	return r->status;
}

static nfsstat3 do_read(struct svc_req *rq, void *argp, void *resp)
{
	READ3args *a = argp;
	READ3res *r = resp;
	READ3resok *ok = &r->READ3res_u.resok;
	char path[PATH_MAX], *buf = NULL;
	uint32_t count = a->count < IO_MAX ? a->count : IO_MAX;
	struct stat st;
	ssize_t n = -1;
	int fd;

	(void)rq;
	if ((r->status = fs_resolve(&a->file, path, &st)) != NFS3_OK)
		return r->status;
	if (!S_ISREG(st.st_mode))
		r->status = S_ISDIR(st.st_mode) ? NFS3ERR_ISDIR : NFS3ERR_INVAL;
	else if (a->offset > (nfs3_u64)INT64_MAX)
		r->status = NFS3ERR_INVAL;
	else if (!(buf = fs_alloc(count)))
		r->status = NFS3ERR_SERVERFAULT;
	else if ((fd = open(path, O_RDONLY)) < 0)
		r->status = fs_errno(errno);
	else {
		n = pread(fd, buf, count, (off_t)a->offset);
		if (n < 0)
			r->status = fs_errno(errno);
		if (n >= 0 && fstat(fd, &st))
			r->status = fs_errno(errno);
		close(fd);
	}
	if (r->status != NFS3_OK) {
		fs_post(path, &r->READ3res_u.resfail);
		return r->status;
	}
	ok->count = (nfs3_u32)n;
	ok->eof = a->offset + (nfs3_u64)n >= (nfs3_u64)st.st_size;
	ok->data.data_len = (u_int)n;
	ok->data.data_val = buf;
	ok->file_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &ok->file_attributes.post_op_attr_u.attributes);
	return r->status;
}

/* Honours stable: DATA_SYNC and FILE_SYNC reach the disk before the Reply. */
static nfsstat3 do_write(struct svc_req *rq, void *argp, void *resp)
{
	WRITE3args *a = argp;
	WRITE3res *r = resp;
	WRITE3resok *ok = &r->WRITE3res_u.resok;
	char path[PATH_MAX];
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd;

	(void)rq;
	if ((r->status = fs_resolve(&a->file, path, &st)) != NFS3_OK)
		return r->status;
	if (!S_ISREG(st.st_mode))
		r->status = S_ISDIR(st.st_mode) ? NFS3ERR_ISDIR : NFS3ERR_INVAL;
	else if (a->count > a->data.data_len || a->offset > (nfs3_u64)INT64_MAX)
		r->status = NFS3ERR_INVAL;
	else if ((fd = open(path, O_WRONLY)) < 0)
		r->status = fs_errno(errno);
	else {
		while (done < a->count) {
			n = pwrite(fd, a->data.data_val + done, a->count - done,
				   (off_t)(a->offset + done));
			if (n <= 0) {
				r->status = n < 0 ? fs_errno(errno) : NFS3ERR_IO;
				break;
			}
			done += (size_t)n;
		}
		if (r->status == NFS3_OK && a->stable != UNSTABLE &&
		    (a->stable == FILE_SYNC ? fsync(fd) : fdatasync(fd)))
			r->status = fs_errno(errno);
		close(fd);
	}
	if (r->status != NFS3_OK) {
		fs_wcc(&st, path, &r->WRITE3res_u.resfail);
		return r->status;
	}
	ok->count = (nfs3_u32)done;
	ok->committed = a->stable == UNSTABLE ? UNSTABLE : FILE_SYNC;
	memcpy(ok->verf, verf, sizeof(verf));
	fs_wcc(&st, path, &ok->file_wcc);
	return r->status;
}

/* The answer of CREATE, MKDIR and SYMLINK: the new object and its dir. */
static nfsstat3 created(CREATE3res *r, const char *path, const char *dir,
			const struct stat *dst)
{
	CREATE3resok *ok = &r->CREATE3res_u.resok;
	struct stat st;

	if (r->status != NFS3_OK || lstat(path, &st)) {
		if (r->status == NFS3_OK)
			r->status = fs_errno(errno);
		fs_wcc(dst, dir, &r->CREATE3res_u.resfail);
		return r->status;
	}
	fs_remember(st.st_ino, path);
	ok->obj.handle_follows = !fs_new_fh(st.st_ino, &ok->obj.post_op_fh3_u.handle);
	ok->obj_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &ok->obj_attributes.post_op_attr_u.attributes);
	fs_wcc(dst, dir, &ok->dir_wcc);
	return r->status;
}

/* The directory and new name of a creation: NFS3_OK, path filled. */
static nfsstat3 where(const diropargs3 *w, char *dir, char *path,
		      struct stat *dst)
{
	nfsstat3 s;

	path[0] = '\0';
	s = fs_resolve(&w->dir, dir, dst);
	if (s != NFS3_OK)
		return s;
	if (!S_ISDIR(dst->st_mode))
		return NFS3ERR_NOTDIR;
	return fs_join(dir, w->name, path, 0);
}

/* The new object belongs to the caller, then the attributes asked. */
static nfsstat3 own(struct svc_req *rq, const char *path, const sattr3 *s)
{
	uid_t uid;
	gid_t gid;

	caller(rq, &uid, &gid);
	if (lchown(path, uid, gid))
		return fs_errno(errno);
	return s ? fs_sattr(path, s) : NFS3_OK;
}

static nfsstat3 do_create(struct svc_req *rq, void *argp, void *resp)
{
	CREATE3args *a = argp;
	CREATE3res *r = resp;
	const sattr3 *s = &a->how.createhow3_u.obj_attributes;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat dst, st;
	struct timespec ts[2];
	uint32_t v[2];
	int fd, flags = O_WRONLY | O_CREAT;

	if ((r->status = where(&a->where, dir, path, &dst)) != NFS3_OK) {
		fs_wcc(r->status == NFS3ERR_BADHANDLE || r->status == NFS3ERR_STALE ?
		       NULL : &dst, NULL, &r->CREATE3res_u.resfail);
		return r->status;
	}
	if (a->how.mode != UNCHECKED)
		flags |= O_EXCL;
	fd = open(path, flags, 0644);
	if (a->how.mode == EXCLUSIVE) {
		/* The verifier is kept in the times: a retransmitted
		 * EXCLUSIVE CREATE finds it and succeeds again. */
		memcpy(v, a->how.createhow3_u.verf, sizeof(v));
		if (fd < 0 && errno == EEXIST && !lstat(path, &st) &&
		    (uint32_t)st.st_atim.tv_sec == v[0] &&
		    (uint32_t)st.st_mtim.tv_sec == v[1])
			return created(r, path, dir, &dst);
		if (fd >= 0) {
			ts[0].tv_sec = v[0];
			ts[1].tv_sec = v[1];
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
			if (futimens(fd, ts))
				r->status = fs_errno(errno);
			close(fd);
			if (r->status == NFS3_OK)
				r->status = own(rq, path, NULL);
		} else
			r->status = fs_errno(errno);
		return created(r, path, dir, &dst);
	}
	if (fd < 0)
		r->status = fs_errno(errno);
	else {
		close(fd);
		r->status = own(rq, path, s);
	}
	return created(r, path, dir, &dst);
}

static nfsstat3 do_mkdir(struct svc_req *rq, void *argp, void *resp)
{
	MKDIR3args *a = argp;
	CREATE3res *r = resp;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat dst;

	if ((r->status = where(&a->where, dir, path, &dst)) == NFS3_OK) {
		if (mkdir(path, 0755))
			r->status = fs_errno(errno);
		else
			r->status = own(rq, path, &a->attributes);
	}
	return created(r, path, dir, r->status == NFS3ERR_BADHANDLE ||
		       r->status == NFS3ERR_STALE ? NULL : &dst);
}

static nfsstat3 do_symlink(struct svc_req *rq, void *argp, void *resp)
{
	SYMLINK3args *a = argp;
	CREATE3res *r = resp;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat dst;

	if ((r->status = where(&a->where, dir, path, &dst)) == NFS3_OK) {
		if (!a->symlink.symlink_data || !*a->symlink.symlink_data)
			r->status = NFS3ERR_INVAL;
		else if (symlink(a->symlink.symlink_data, path))
			r->status = fs_errno(errno);
		else
			r->status = own(rq, path, NULL);
	}
	return created(r, path, dir, r->status == NFS3ERR_BADHANDLE ||
		       r->status == NFS3ERR_STALE ? NULL : &dst);
}

/* REMOVE and RMDIR: the inode's handle goes stale with its last name. */
static nfsstat3 unlink_common(void *argp, void *resp, int isdir)
{
	diropargs3 *a = argp;
	WCC3res *r = resp;
	char dir[PATH_MAX], path[PATH_MAX];
	struct stat dst, st;

	if ((r->status = where(a, dir, path, &dst)) != NFS3_OK) {
		fs_wcc(NULL, NULL, &r->wcc);
		return r->status;
	}
	if (lstat(path, &st) || (isdir ? rmdir(path) : unlink(path)))
		r->status = fs_errno(errno);
	else if (isdir || st.st_nlink <= 1)
		fs_forget(st.st_ino);
	fs_wcc(&dst, dir, &r->wcc);
	return r->status;
}

static nfsstat3 do_remove(struct svc_req *rq, void *argp, void *resp)
{
	(void)rq;
	return unlink_common(argp, resp, 0);
}

static nfsstat3 do_rmdir(struct svc_req *rq, void *argp, void *resp)
{
	(void)rq;
	return unlink_common(argp, resp, 1);
}

static nfsstat3 do_rename(struct svc_req *rq, void *argp, void *resp)
{
	RENAME3args *a = argp;
	RENAME3res *r = resp;
	char fdir[PATH_MAX], tdir[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	struct stat fst, tst, st, old;
	int had;

	(void)rq;
	if ((r->status = where(&a->from, fdir, from, &fst)) != NFS3_OK ||
	    (r->status = where(&a->to, tdir, to, &tst)) != NFS3_OK) {
		fs_wcc(NULL, NULL, &r->fromdir_wcc);
		fs_wcc(NULL, NULL, &r->todir_wcc);
		return r->status;
	}
	had = !lstat(to, &old);
	if (lstat(from, &st) || rename(from, to))
		r->status = fs_errno(errno);
	else {
		if (had && old.st_ino != st.st_ino &&
		    (S_ISDIR(old.st_mode) || old.st_nlink <= 1))
			fs_forget(old.st_ino);
		/* Paths below a moved directory are found by the next walk. */
		fs_remember(st.st_ino, to);
	}
	fs_wcc(&fst, fdir, &r->fromdir_wcc);
	fs_wcc(&tst, tdir, &r->todir_wcc);
	return r->status;
}

static nfsstat3 do_link(struct svc_req *rq, void *argp, void *resp)
{
	LINK3args *a = argp;
	LINK3res *r = resp;
	char file[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
	struct stat st, dst;

	(void)rq;
	if ((r->status = fs_resolve(&a->file, file, &st)) != NFS3_OK ||
	    (r->status = where(&a->link, dir, path, &dst)) != NFS3_OK) {
		fs_post(NULL, &r->file_attributes);
		fs_wcc(NULL, NULL, &r->linkdir_wcc);
		return r->status;
	}
	if (S_ISDIR(st.st_mode))
		r->status = NFS3ERR_ISDIR;
	else if (link(file, path))
		r->status = fs_errno(errno);
	fs_post(file, &r->file_attributes);
	fs_wcc(&dst, dir, &r->linkdir_wcc);
	return r->status;
}

static nfsstat3 do_fsstat(struct svc_req *rq, void *argp, void *resp)
{
	GETATTR3args *a = argp;
	FSSTAT3res *r = resp;
	FSSTAT3resok *ok = &r->FSSTAT3res_u.resok;
	char path[PATH_MAX];
	struct statvfs v;
	struct stat st;

	(void)rq;
	if ((r->status = fs_resolve(&a->object, path, &st)) != NFS3_OK)
		return r->status;
	if (statvfs(path, &v)) {
		r->status = fs_errno(errno);
		fs_post(path, &r->FSSTAT3res_u.resfail);
		return r->status;
	}
	ok->tbytes = (nfs3_u64)v.f_blocks * v.f_frsize;
	ok->fbytes = (nfs3_u64)v.f_bfree * v.f_frsize;
	ok->abytes = (nfs3_u64)v.f_bavail * v.f_frsize;
	ok->tfiles = v.f_files;
	ok->ffiles = v.f_ffree;
	ok->afiles = v.f_favail;
	ok->invarsec = 0;
	ok->obj_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &ok->obj_attributes.post_op_attr_u.attributes);
	return r->status;
}

static nfsstat3 do_fsinfo(struct svc_req *rq, void *argp, void *resp)
{
	GETATTR3args *a = argp;
	FSINFO3res *r = resp;
	FSINFO3resok *ok = &r->FSINFO3res_u.resok;
	char path[PATH_MAX];
	struct stat st;

	(void)rq;
	if ((r->status = fs_resolve(&a->object, path, &st)) != NFS3_OK)
		return r->status;
	ok->rtmax = ok->rtpref = ok->wtmax = ok->wtpref = IO_MAX;
	ok->rtmult = ok->wtmult = 4096;
	ok->dtpref = DIR_PREF;
	ok->maxfilesize = (nfs3_u64)INT64_MAX;
	ok->time_delta.seconds = 0;
	ok->time_delta.nseconds = 1;
	ok->properties = FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS |
			 FSF3_CANSETTIME;
	ok->obj_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &ok->obj_attributes.post_op_attr_u.attributes);
	return r->status;
}

static nfsstat3 do_pathconf(struct svc_req *rq, void *argp, void *resp)
{
	GETATTR3args *a = argp;
	PATHCONF3res *r = resp;
	PATHCONF3resok *ok = &r->PATHCONF3res_u.resok;
	char path[PATH_MAX];
	struct stat st;

	(void)rq;
	if ((r->status = fs_resolve(&a->object, path, &st)) != NFS3_OK)
		return r->status;
	ok->linkmax = 32000;
	ok->name_max = NAME_MAX;
	ok->no_trunc = TRUE;
	ok->chown_restricted = TRUE;
	ok->case_insensitive = FALSE;
	ok->case_preserving = TRUE;
	ok->obj_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &ok->obj_attributes.post_op_attr_u.attributes);
	return r->status;
}

static nfsstat3 do_commit(struct svc_req *rq, void *argp, void *resp)
{
	COMMIT3args *a = argp;
	COMMIT3res *r = resp;
	char path[PATH_MAX];
	struct stat st;
	int fd;

	(void)rq;
	if ((r->status = fs_resolve(&a->file, path, &st)) != NFS3_OK)
		return r->status;
	if (!S_ISREG(st.st_mode))
		r->status = S_ISDIR(st.st_mode) ? NFS3ERR_ISDIR : NFS3ERR_INVAL;
	else if ((fd = open(path, O_WRONLY)) < 0)
		r->status = fs_errno(errno);
	else {
		if (fsync(fd))
			r->status = fs_errno(errno);
		close(fd);
	}
	if (r->status != NFS3_OK) {
		fs_wcc(&st, path, &r->COMMIT3res_u.resfail);
		return r->status;
	}
	memcpy(r->COMMIT3res_u.resok.verf, verf, sizeof(verf));
	fs_wcc(&st, path, &r->COMMIT3res_u.resok.file_wcc);
	return r->status;
}

/* MKNOD's failure arm is a wcc_data: WCC3res with nothing in it. */
static nfsstat3 do_notsupp(struct svc_req *rq, void *argp, void *resp)
{
	WCC3res *r = resp;

	(void)rq; (void)argp;
	return r->status = NFS3ERR_NOTSUPP;
}

/* ---- dispatch ----------------------------------------------------------- */

struct proc {
	xdrproc_t xargs, xres;
	size_t args_size, res_size;
	nfsstat3 (*fn)(struct svc_req *, void *, void *);
};

#define P(a, r, f) { (xdrproc_t)xdr_##a, (xdrproc_t)xdr_##r, sizeof(a), sizeof(r), f }
static const struct proc procs[] = {
	[NFSPROC3_GETATTR] = P(GETATTR3args, GETATTR3res, do_getattr),
	[NFSPROC3_SETATTR] = P(SETATTR3args, WCC3res, do_setattr),
	[NFSPROC3_LOOKUP] = P(LOOKUP3args, LOOKUP3res, do_lookup),
	[NFSPROC3_ACCESS] = P(ACCESS3args, ACCESS3res, do_access),
	[NFSPROC3_READLINK] = P(GETATTR3args, READLINK3res, do_readlink),
	[NFSPROC3_READ] = P(READ3args, READ3res, do_read),
	[NFSPROC3_WRITE] = P(WRITE3args, WRITE3res, do_write),
	[NFSPROC3_CREATE] = P(CREATE3args, CREATE3res, do_create),
	[NFSPROC3_MKDIR] = P(MKDIR3args, CREATE3res, do_mkdir),
	[NFSPROC3_SYMLINK] = P(SYMLINK3args, CREATE3res, do_symlink),
	[11] = { (xdrproc_t)xdr_nothing, (xdrproc_t)xdr_WCC3res, 0,
		 sizeof(WCC3res), do_notsupp },
	[NFSPROC3_REMOVE] = P(diropargs3, WCC3res, do_remove),
	[NFSPROC3_RMDIR] = P(diropargs3, WCC3res, do_rmdir),
	[NFSPROC3_RENAME] = P(RENAME3args, RENAME3res, do_rename),
	[NFSPROC3_LINK] = P(LINK3args, LINK3res, do_link),
	[NFSPROC3_READDIR] = P(READDIR3args, READDIR3res, do_readdir),
	[NFSPROC3_READDIRPLUS] = P(READDIRPLUS3args, READDIRPLUS3res, do_readdirplus),
	[NFSPROC3_FSSTAT] = P(GETATTR3args, FSSTAT3res, do_fsstat),
	[NFSPROC3_FSINFO] = P(GETATTR3args, FSINFO3res, do_fsinfo),
	[NFSPROC3_PATHCONF] = P(GETATTR3args, PATHCONF3res, do_pathconf),
	[NFSPROC3_COMMIT] = P(COMMIT3args, COMMIT3res, do_commit),
};

static void nfs_dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
	const struct proc *p;
	/* Room for any procedure's arguments and result (main checks). */
	union { char c[ARG_ROOM]; uint64_t align; } args, res;

	nfs_calls++;
	if (rq->rq_proc == NFSPROC3_NULL) {
		svc_sendreply(xprt, (xdrproc_t)xdr_nothing, NULL);
		return;
	}
	if (rq->rq_proc >= sizeof(procs) / sizeof(procs[0]) ||
	    !procs[rq->rq_proc].fn) {
		svcerr_noproc(xprt);
		return;
	}
	p = &procs[rq->rq_proc];
	memset(&args, 0, sizeof(args));
	memset(&res, 0, sizeof(res));
	if (rq->rq_proc != 11 && !svc_getargs(xprt, p->xargs, (char *)&args)) {
		bad_args++;
		svcerr_decode(xprt);
		svc_freeargs(xprt, p->xargs, (char *)&args);
		return;
	}
	if (p->fn(rq, &args, &res) != NFS3_OK)
		nfs_errors++;
	if (!svc_sendreply(xprt, p->xres, (char *)&res))
		fprintf(stderr, "nfs3_server: proc %u: reply not sent\n",
			(unsigned)rq->rq_proc);
	fs_alloc_free();
	if (rq->rq_proc != 11)
		svc_freeargs(xprt, p->xargs, (char *)&args);
}

/* SIGTERM ends svc_run() as a UMNT does.  svc_exit() is not async-signal
 * safe; the signal is sent to an idle server, asleep in svc_run's poll. */
static void on_term(int sig)
{
	(void)sig;
	svc_exit();
}

static void print_stats(void)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (svc_rdma_get_stats(listener, &s))
		return;
	printf("server: nfs calls %lu errors %lu bad_args %lu\n",
	       nfs_calls, nfs_errors, bad_args);
	printf("server: rdma calls %llu replies %llu bad_calls %llu "
	       "read_chunk_calls %llu read_chunk_bytes %llu long_calls %llu "
	       "write_chunks %llu write_chunk_bytes %llu "
	       "reply_chunk_replies %llu reply_chunk_bytes %llu "
	       "conns_accepted %llu conns_lost %llu remote_inv_sends %llu\n",
	       (unsigned long long)s.rs_calls, (unsigned long long)s.rs_replies,
	       (unsigned long long)s.rs_bad_calls,
	       (unsigned long long)s.rs_read_chunk_calls,
	       (unsigned long long)s.rs_read_chunk_bytes,
	       (unsigned long long)s.rs_long_calls,
	       (unsigned long long)s.rs_write_chunks,
	       (unsigned long long)s.rs_write_chunk_bytes,
	       (unsigned long long)s.rs_reply_chunk_replies,
	       (unsigned long long)s.rs_reply_chunk_bytes,
	       (unsigned long long)s.rs_conns_accepted,
	       (unsigned long long)s.rs_conns_lost,
	       (unsigned long long)s.rs_remote_inv_sends);
}

int main(int argc, char **argv)
{
	const char *addr = NULL, *port = NULL, *mport = NULL, *dir = NULL;
	const char *ready = NULL, *tport = NULL;
	struct rpcrdma_options o;
	struct timeval tv;
	char tmp[PATH_MAX + 8];
	SVCXPRT *tcp, *ntcp;
	FILE *f;
	int c;

	while ((c = getopt(argc, argv, "a:p:m:d:r:T:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'm': mport = optarg; break;
		case 'd': dir = optarg; break;
		case 'r': ready = optarg; break;
		case 'T': tport = optarg; break;
		default: return 2;
		}
	}
	if (!addr || !port || !mport || !dir || !ready) {
		fprintf(stderr, "usage: nfs3_server -a ADDR -p PORT -m MOUNTPORT "
			"-d DIR -r READYFILE [-T NFSTCPPORT]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A MOUNT client that hangs up must not kill us in a write. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_term);
	for (c = 0; c < (int)(sizeof(procs) / sizeof(procs[0])); c++)
		if (procs[c].args_size > ARG_ROOM || procs[c].res_size > ARG_ROOM)
			return 99;
	if (fs_init(dir)) {
		perror(dir);
		return 1;
	}
	gettimeofday(&tv, NULL);
	memcpy(verf, &tv.tv_sec, 4);
	memcpy(verf + 4, &tv.tv_usec, 4);
	rpcrdma_options_init(&o);
	listener = svc_rdma_create(addr, port, &o);
	if (!listener) {
		clnt_pcreateerror("svc_rdma_create");
		if (!tport)	/* -T alone serves a native run, for development */
			return 1;
	}
	tcp = mount_listener(addr, mport);
	if (!tcp) {
		fprintf(stderr, "nfs3_server: svctcp_create failed\n");
		return 1;
	}
	/* No rpcbind: the client is told both ports. */
	if ((listener && !svc_reg(listener, NFS_PROGRAM, NFS_V3, nfs_dispatch, NULL)) ||
	    !svc_register(tcp, MOUNT_PROGRAM, MOUNT_V3, mount_dispatch, 0)) {
		fprintf(stderr, "nfs3_server: svc_reg failed\n");
		return 1;
	}
	/* -T: NFS over TCP too, to drive the server without RDMA. */
	if (tport && (!(ntcp = mount_listener(addr, tport)) ||
		      !svc_register(ntcp, NFS_PROGRAM, NFS_V3, nfs_dispatch, 0))) {
		fprintf(stderr, "nfs3_server: NFS over TCP failed\n");
		return 1;
	}
	/* The ready file appears whole, with our pid in it. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) ||
	    rename(tmp, ready))
		return 1;
	svc_run();
	if (listener) {
		print_stats();
		svc_destroy(listener);
	}
	return 0;
}
