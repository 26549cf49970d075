/*
 * READDIR and READDIRPLUS of the tests' NFSv3 server: a directory read
 * from the cookie on (the cookie is the entry's d_off, which tmpfs keeps
 * stable), as many entries as the client's byte counts allow.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <rpc/rpc.h>
#include "nfs3_fs.h"

#define XDR_LEN(n) (((size_t)(n) + 3) & ~(size_t)3)
/* Encoded sizes: a post_op_attr with attributes, a post_op_fh3 with our
 * handle, and what every answer has beside its entries (status, the
 * directory's attributes, the verifier, the list's end and eof). */
#define ATTR_XDR (4 + 84)
#define FH_XDR (4 + 4 + FH_LEN)
#define BASE_XDR (4 + ATTR_XDR + 8 + 4 + 4)

/* One entry read: name, fileid, cookie; NULL at the end (*eof) or on an
 * error (*st set). */
static struct dirent *next(DIR *d, int *eof, nfsstat3 *st)
{
	struct dirent *e;

	errno = 0;
	e = readdir(d);
	if (!e) {
		if (errno)
			*st = fs_errno(errno);
		else
			*eof = 1;
	}
	return e;
}

/* The directory a READDIR names, opened at the cookie. */
static nfsstat3 open_at(const nfs_fh3 *fh, cookie3 cookie, char *path,
			DIR **d)
{
	struct stat st;
	nfsstat3 s = fs_resolve(fh, path, &st);

	if (s != NFS3_OK)
		return s;
	if (!S_ISDIR(st.st_mode))
		return NFS3ERR_NOTDIR;
	*d = opendir(path);
	if (!*d)
		return fs_errno(errno);
	if (cookie)
		seekdir(*d, (long)cookie);
	return NFS3_OK;
}

static char *name_copy(const char *n)
{
	size_t l = strlen(n) + 1;
	char *p = fs_alloc(l);

	if (p)
		memcpy(p, n, l);
	return p;
}

nfsstat3 do_readdir(struct svc_req *rq, void *argp, void *resp)
{
	READDIR3args *a = argp;
	READDIR3res *r = resp;
	READDIR3resok *ok = &r->READDIR3res_u.resok;
	char path[PATH_MAX];
	entry3 **tail = &ok->reply.entries, *en;
	size_t used = BASE_XDR, need;
	struct dirent *e;
	DIR *d = NULL;
	int eof = 0;

	(void)rq;
	r->status = open_at(&a->dir, a->cookie, path, &d);
	while (r->status == NFS3_OK && (e = next(d, &eof, &r->status))) {
		need = 4 + 8 + 4 + XDR_LEN(strlen(e->d_name)) + 8;
		if (used + need > a->count) {
			if (!ok->reply.entries)
				r->status = NFS3ERR_TOOSMALL;
			break;
		}
		en = fs_alloc(sizeof(*en));
		if (!en || !(en->name = name_copy(e->d_name))) {
			r->status = NFS3ERR_SERVERFAULT;
			break;
		}
		en->fileid = e->d_ino;
		en->cookie = (cookie3)e->d_off;
		en->nextentry = NULL;
		*tail = en;
		tail = &en->nextentry;
		used += need;
	}
	if (d)
		closedir(d);
	if (r->status != NFS3_OK) {
		fs_post(path, &r->READDIR3res_u.resfail);
		return r->status;
	}
	ok->reply.eof = eof;
	fs_post(path, &ok->dir_attributes);
	return r->status;
}

/* One READDIRPLUS entry: its attributes and handle, but for "." and "..". */
static nfsstat3 plus_entry(const char *dir, const struct dirent *e,
			   entryplus3 *en)
{
	char path[PATH_MAX];
	struct stat st;

	memset(en, 0, sizeof(*en));
	en->fileid = e->d_ino;
	en->cookie = (cookie3)e->d_off;
	if (!(en->name = name_copy(e->d_name)))
		return NFS3ERR_SERVERFAULT;
	if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
	    fs_join(dir, e->d_name, path, 0) != NFS3_OK || lstat(path, &st))
		return NFS3_OK;	/* listed without attributes and handle */
	fs_remember(st.st_ino, path);
	en->fileid = st.st_ino;
	en->name_attributes.attributes_follow = TRUE;
	fs_fattr(&st, &en->name_attributes.post_op_attr_u.attributes);
	if (fs_new_fh(st.st_ino, &en->name_handle.post_op_fh3_u.handle))
		return NFS3ERR_SERVERFAULT;
	en->name_handle.handle_follows = TRUE;
	return NFS3_OK;
}

nfsstat3 do_readdirplus(struct svc_req *rq, void *argp, void *resp)
{
	READDIRPLUS3args *a = argp;
	READDIRPLUS3res *r = resp;
	READDIRPLUS3resok *ok = &r->READDIRPLUS3res_u.resok;
	char path[PATH_MAX];
	entryplus3 **tail = &ok->reply.entries, *en;
	size_t used = BASE_XDR, dused = 0, need, dneed;
	struct dirent *e;
	DIR *d = NULL;
	int eof = 0;

	(void)rq;
	r->status = open_at(&a->dir, a->cookie, path, &d);
	while (r->status == NFS3_OK && (e = next(d, &eof, &r->status))) {
		/* dircount counts fileid, name and cookie; maxcount all. */
		dneed = 8 + 4 + XDR_LEN(strlen(e->d_name)) + 8;
		need = 4 + dneed + ATTR_XDR + FH_XDR;
		if (used + need > a->maxcount || dused + dneed > a->dircount) {
			if (!ok->reply.entries)
				r->status = NFS3ERR_TOOSMALL;
			break;
		}
		en = fs_alloc(sizeof(*en));
		if (!en) {
			r->status = NFS3ERR_SERVERFAULT;
			break;
		}
		r->status = plus_entry(path, e, en);
		*tail = en;
		tail = &en->nextentry;
		used += need;
		dused += dneed;
	}
	if (d)
		closedir(d);
	if (r->status != NFS3_OK) {
		ok->reply.entries = NULL;
		fs_post(path, &r->READDIRPLUS3res_u.resfail);
		return r->status;
	}
	ok->reply.eof = eof;
	fs_post(path, &ok->dir_attributes);
	return r->status;
}
