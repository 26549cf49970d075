/*
 * The backing directory of the tests' NFSv3 server: a file handle is the
 * object's inode number, mapped to a path by a table that a walk of the
 * directory rebuilds when a handle is unknown (a restarted server) or its
 * path went stale (a renamed directory); attributes and errno mapping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "nfs3_fs.h"

struct node {
	uint64_t ino;
	char *path;		/* NULL: removed, its handle is stale */
};

static struct node *nodes;
static size_t nnodes, cap;
static char root_path[PATH_MAX];
static dev_t root_dev;
static uint64_t root_ino;

static struct node *find(uint64_t ino)
{
	size_t i;

	for (i = 0; i < nnodes; i++)
		if (nodes[i].ino == ino)
			return &nodes[i];
	return NULL;
}

void fs_remember(uint64_t ino, const char *path)
{
	struct node *n = find(ino);
	char *p = strdup(path);

	if (!p)
		return;
	if (!n) {
		if (nnodes == cap) {
			size_t c = cap ? 2 * cap : 256;
			struct node *m = realloc(nodes, c * sizeof(*m));

			if (!m) {
				free(p);
				return;
			}
			nodes = m;
			cap = c;
		}
		n = &nodes[nnodes++];
		n->ino = ino;
		n->path = NULL;
	}
	free(n->path);
	n->path = p;
}

void fs_forget(uint64_t ino)
{
	struct node *n = find(ino);

	if (n) {
		free(n->path);
		n->path = NULL;
	}
}

static int walk_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)flag; (void)ftw;
	if (st->st_dev == root_dev)
		fs_remember(st->st_ino, path);
	return 0;
}

/* Why a walk: after a restart, or once a directory moved, the handles the
 * client holds name inodes whose paths only the directory itself knows. */
static void rescan(void)
{
	nftw(root_path, walk_one, 16, FTW_PHYS | FTW_MOUNT);
}

int fs_init(const char *root)
{
	struct stat st;

	if (!realpath(root, root_path) || lstat(root_path, &st) ||
	    !S_ISDIR(st.st_mode))
		return -1;
	root_dev = st.st_dev;
	root_ino = st.st_ino;
	fs_remember(root_ino, root_path);
	return 0;
}

const char *fs_root(void)
{
	return root_path;
}

/* Memory a Reply points into, freed once it is sent. */
static void **arena;
static size_t narena, arena_cap;

void *fs_alloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		return NULL;
	if (narena == arena_cap) {
		size_t c = arena_cap ? 2 * arena_cap : 64;
		void **a = realloc(arena, c * sizeof(*a));

		if (!a) {
			free(p);
			return NULL;
		}
		arena = a;
		arena_cap = c;
	}
	arena[narena++] = p;
	return p;
}

void fs_alloc_free(void)
{
	while (narena)
		free(arena[--narena]);
}

int fs_new_fh(uint64_t ino, nfs_fh3 *fh)
{
	char *s = fs_alloc(FH_LEN);

	if (!s)
		return -1;
	fs_fh(ino, fh, s);
	return 0;
}

void fs_fh(uint64_t ino, nfs_fh3 *fh, char *storage)
{
	memcpy(storage, "N3FH\0\0\0\0", 8);
	memcpy(storage + 8, &ino, 8);
	fh->data.data_len = FH_LEN;
	fh->data.data_val = storage;
}

/* Whether n's path still names inode ino on our device. */
static int still(const struct node *n, uint64_t ino, struct stat *st)
{
	return n && n->path && !lstat(n->path, st) && st->st_ino == ino &&
	       st->st_dev == root_dev;
}

nfsstat3 fs_resolve(const nfs_fh3 *fh, char *path, struct stat *st)
{
	struct node *n;
	uint64_t ino;

	path[0] = '\0';
	if (fh->data.data_len != FH_LEN || !fh->data.data_val ||
	    memcmp(fh->data.data_val, "N3FH\0\0\0\0", 8))
		return NFS3ERR_BADHANDLE;
	memcpy(&ino, fh->data.data_val + 8, 8);
	n = find(ino);
	if (n && !n->path)
		return NFS3ERR_STALE;	/* removed here */
	if (!still(n, ino, st)) {
		rescan();
		n = find(ino);
		if (!still(n, ino, st))
			return NFS3ERR_STALE;
	}
	/* A copy: a later walk may replace the table's. */
	strcpy(path, n->path);
	return NFS3_OK;
}

nfsstat3 fs_join(const char *dir, const char *name, char *buf, int dots)
{
	size_t dl = strlen(dir), nl = name ? strlen(name) : 0;

	if (!nl || strchr(name, '/'))
		return NFS3ERR_INVAL;
	if (nl > NAME_MAX)
		return NFS3ERR_NAMETOOLONG;
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		if (!dots)
			return NFS3ERR_INVAL;
		memcpy(buf, dir, dl + 1);
		/* Stored paths are canonical: ".." is the path's parent,
		 * and the root is its own parent. */
		if (name[1] && strcmp(dir, root_path))
			*strrchr(buf, '/') = '\0';
		return NFS3_OK;
	}
	if (dl + 1 + nl + 1 > PATH_MAX)
		return NFS3ERR_NAMETOOLONG;
	memcpy(buf, dir, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, name, nl + 1);
	return NFS3_OK;
}

nfsstat3 fs_errno(int e)
{
	switch (e) {
	case EPERM: return NFS3ERR_PERM;
	case ENOENT: return NFS3ERR_NOENT;
	case ENXIO: return NFS3ERR_NXIO;
	case EACCES: return NFS3ERR_ACCES;
	case EEXIST: return NFS3ERR_EXIST;
	case EXDEV: return NFS3ERR_XDEV;
	case ENODEV: return NFS3ERR_NODEV;
	case ENOTDIR: return NFS3ERR_NOTDIR;
	case EISDIR: return NFS3ERR_ISDIR;
	case EINVAL: return NFS3ERR_INVAL;
	case EFBIG: return NFS3ERR_FBIG;
	case ENOSPC: return NFS3ERR_NOSPC;
	case EROFS: return NFS3ERR_ROFS;
	case EMLINK: return NFS3ERR_MLINK;
	case ENAMETOOLONG: return NFS3ERR_NAMETOOLONG;
	case ENOTEMPTY: return NFS3ERR_NOTEMPTY;
	case EDQUOT: return NFS3ERR_DQUOT;
	case ESTALE: return NFS3ERR_STALE;
	default: return NFS3ERR_IO;
	}
}

static ftype3 ftype(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFDIR: return NF3DIR;
	case S_IFBLK: return NF3BLK;
	case S_IFCHR: return NF3CHR;
	case S_IFLNK: return NF3LNK;
	case S_IFSOCK: return NF3SOCK;
	case S_IFIFO: return NF3FIFO;
	default: return NF3REG;
	}
}

void fs_fattr(const struct stat *st, fattr3 *a)
{
	a->type = ftype(st->st_mode);
	a->mode = st->st_mode & 07777;
	a->nlink = (nfs3_u32)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->size = (nfs3_u64)st->st_size;
	a->used = (nfs3_u64)st->st_blocks * 512;
	a->rdev.specdata1 = major(st->st_rdev);
	a->rdev.specdata2 = minor(st->st_rdev);
	a->fsid = root_dev;
	a->fileid = st->st_ino;
	a->atime.seconds = (nfs3_u32)st->st_atim.tv_sec;
	a->atime.nseconds = (nfs3_u32)st->st_atim.tv_nsec;
	a->mtime.seconds = (nfs3_u32)st->st_mtim.tv_sec;
	a->mtime.nseconds = (nfs3_u32)st->st_mtim.tv_nsec;
	a->ctime.seconds = (nfs3_u32)st->st_ctim.tv_sec;
	a->ctime.nseconds = (nfs3_u32)st->st_ctim.tv_nsec;
}

void fs_post(const char *path, post_op_attr *p)
{
	struct stat st;

	p->attributes_follow = path && !lstat(path, &st);
	if (p->attributes_follow)
		fs_fattr(&st, &p->post_op_attr_u.attributes);
}

void fs_pre(const struct stat *st, pre_op_attr *p)
{
	wcc_attr *w = &p->pre_op_attr_u.attributes;

	p->attributes_follow = st != NULL;
	if (!st)
		return;
	w->size = (nfs3_u64)st->st_size;
	w->mtime.seconds = (nfs3_u32)st->st_mtim.tv_sec;
	w->mtime.nseconds = (nfs3_u32)st->st_mtim.tv_nsec;
	w->ctime.seconds = (nfs3_u32)st->st_ctim.tv_sec;
	w->ctime.nseconds = (nfs3_u32)st->st_ctim.tv_nsec;
}

void fs_wcc(const struct stat *before, const char *path, wcc_data *w)
{
	fs_pre(before, &w->before);
	fs_post(path, &w->after);
}

static struct timespec when(const set_time3 *t)
{
	struct timespec ts = { 0, UTIME_OMIT };

	if (t->set_it == SET_TO_SERVER_TIME)
		ts.tv_nsec = UTIME_NOW;
	else if (t->set_it == SET_TO_CLIENT_TIME) {
		ts.tv_sec = t->set_time3_u.time.seconds;
		ts.tv_nsec = t->set_time3_u.time.nseconds % 1000000000u;
	}
	return ts;
}

nfsstat3 fs_sattr(const char *path, const sattr3 *s)
{
	struct timespec ts[2];
	struct stat st;

	if (lstat(path, &st))
		return fs_errno(errno);
	if (s->mode.set_it && !S_ISLNK(st.st_mode) &&
	    chmod(path, s->mode.set_mode3_u.mode & 07777))
		return fs_errno(errno);
	if ((s->uid.set_it || s->gid.set_it) &&
	    lchown(path, s->uid.set_it ? s->uid.set_u32_3_u.val : (uid_t)-1,
		   s->gid.set_it ? s->gid.set_u32_3_u.val : (gid_t)-1))
		return fs_errno(errno);
	if (s->size.set_it) {
		if (S_ISDIR(st.st_mode))
			return NFS3ERR_ISDIR;
		if (!S_ISREG(st.st_mode))
			return NFS3ERR_INVAL;
		if (s->size.set_size3_u.size > (nfs3_u64)INT64_MAX)
			return NFS3ERR_FBIG;
		if (truncate(path, (off_t)s->size.set_size3_u.size))
			return fs_errno(errno);
	}
	ts[0] = when(&s->atime);
	ts[1] = when(&s->mtime);
	if ((ts[0].tv_nsec != UTIME_OMIT || ts[1].tv_nsec != UTIME_OMIT) &&
	    utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
		return fs_errno(errno);
	return NFS3_OK;
}
