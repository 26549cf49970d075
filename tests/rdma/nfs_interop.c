/*
 * Interop with the Linux kernel's NFS server over RDMA: the export's root
 * handle comes from mountd over TCP (plain libtirpc), then NFSv3 goes over
 * clnt_rdma_create() through rpcgen stubs: NULL and GETATTR (the
 * attributes must match stat(2) of the export when it is local, -l), then
 * with -c the chunk steps (nfs_chunks.c): CREATE, WRITE of 1 MiB and odd
 * sizes (Read chunks), READ of 1 MiB and odd sizes/offsets (Reply chunk,
 * then zero-copy into a Write chunk), READDIR of hundreds of entries
 * (Reply chunk), and more READs in flight than credits, every byte checked
 * against the export.  Also reports the transport counters and the mean
 * round trip of a run of NULL calls (informational, never asserted).
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <rpcrdma/rpcrdma.h>
#include "nfs3.h"
#include "nfs_chunks.h"

static const char *prog_name = "nfs_interop";

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: FAIL: ", prog_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct rpcrdma_stats stats(CLIENT *cl)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	if (!clnt_control(cl, RPCRDMA_CLGET_STATS, (char *)&s))
		die("RPCRDMA_CLGET_STATS refused");
	return s;
}

static void print_stats(const char *when, CLIENT *cl)
{
	struct rpcrdma_stats s = stats(cl);

	printf("stats %s: calls %llu replies %llu bad_replies %llu timeouts %llu "
	       "credits_granted %llu credit_waits %llu recv_posted %llu "
	       "signaled_sends %llu pullup_sends %llu too_large %llu\n", when,
	       (unsigned long long)s.rs_calls, (unsigned long long)s.rs_replies,
	       (unsigned long long)s.rs_bad_replies,
	       (unsigned long long)s.rs_timeouts,
	       (unsigned long long)s.rs_credits_granted,
	       (unsigned long long)s.rs_credit_waits,
	       (unsigned long long)s.rs_recv_posted,
	       (unsigned long long)s.rs_signaled_sends,
	       (unsigned long long)s.rs_pullup_sends,
	       (unsigned long long)s.rs_too_large);
}

static void print_fh(const char *what, unsigned len, const char *val)
{
	unsigned i;

	printf("%s (%u bytes): ", what, len);
	for (i = 0; i < len; i++)
		printf("%02x", (unsigned char)val[i]);
	putchar('\n');
}

/* MNT the export over TCP; fills fh (the caller frees it) and umounts later. */
static CLIENT *mount_export(const char *server, dirpath path, nfs_fh3 *fh)
{
	struct timeval tv = { 20, 0 };
	mountres3 res;
	enum clnt_stat st;
	CLIENT *mcl;
	unsigned i;

	mcl = clnt_create(server, MOUNT_PROGRAM, MOUNT_V3, "tcp");
	if (!mcl) {
		clnt_pcreateerror("clnt_create(mountd, tcp)");
		die("cannot reach mountd v3 over TCP at %s", server);
	}
	clnt_control(mcl, CLSET_TIMEOUT, (char *)&tv);
	auth_destroy(mcl->cl_auth);
	mcl->cl_auth = authunix_create_default();
	memset(&res, 0, sizeof(res));
	st = mountproc3_mnt_3(&path, &res, mcl);
	if (st != RPC_SUCCESS)
		die("MNT %s: %s", path, clnt_sperror(mcl, "MOUNTPROC3_MNT"));
	if (res.fhs_status != MNT3_OK)
		die("MNT %s: mountstat3 %d", path, (int)res.fhs_status);
	fh->data.data_len = res.mountres3_u.mountinfo.fhandle.fhandle3_len;
	fh->data.data_val = malloc(fh->data.data_len + 1);
	if (!fh->data.data_val)
		die("out of memory");
	memcpy(fh->data.data_val, res.mountres3_u.mountinfo.fhandle.fhandle3_val,
	       fh->data.data_len);
	print_fh("mountd: root handle", fh->data.data_len, fh->data.data_val);
	printf("mountd: auth flavors:");
	for (i = 0; i < res.mountres3_u.mountinfo.auth_flavors.auth_flavors_len; i++)
		printf(" %d", res.mountres3_u.mountinfo.auth_flavors.auth_flavors_val[i]);
	putchar('\n');
	xdr_free((xdrproc_t)xdr_mountres3, (char *)&res);
	return mcl;
}

static const char *ftype_name(ftype3 t)
{
	static const char *names[] = { "?", "REG", "DIR", "BLK", "CHR", "LNK",
				       "SOCK", "FIFO" };

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

int main(int argc, char **argv)
{
	const char *server = NULL, *port = "20049", *local = NULL;
	char *export = "/export";
	struct rpcrdma_options o;
	unsigned i, nulls = 1000;
	int chunks = 0, bench = 0;
	GETATTR3args ga;
	GETATTR3res gr;
	fattr3 *a;
	enum clnt_stat st;
	CLIENT *mcl, *cl;
	double t0, dt;
	int c;

	rpcrdma_options_init(&o);
	while ((c = getopt(argc, argv, "a:b:p:e:l:n:cB")) != -1) {
		switch (c) {
		case 'a': server = optarg; break;
		case 'b': o.ro_source = optarg; break;
		case 'p': port = optarg; break;
		case 'e': export = optarg; break;
		case 'l': local = optarg; break;
		case 'n': nulls = (unsigned)atoi(optarg); break;
		case 'c': chunks = 1; break;
		case 'B': bench = 1; break;
		default: return 2;
		}
	}
	if (!server)
		die("usage: nfs_interop -a SERVER [-b SOURCE] [-p PORT] [-e EXPORT] "
		    "[-l LOCALPATH] [-n NULLCALLS] [-c] [-B]");

	memset(&ga, 0, sizeof(ga));
	mcl = mount_export(server, export, &ga.object);

	/* A connection attempt on the emulated test bed can fail half-way:
	 * retry a few times before calling it a failure. */
	for (int tries = 0; !(cl = clnt_rdma_create(server, port, NFS_PROGRAM,
						    NFS_V3, &o)); tries++) {
		clnt_pcreateerror("clnt_rdma_create");
		if (tries == 20)
			die("cannot connect to nfsd over RDMA at %s port %s",
			    server, port);
		usleep(200 * 1000);
	}
	printf("rdma: connected to %s port %s\n", server, port);

	/* NULL with the AUTH_NONE the handle comes with. */
	st = nfsproc3_null_3(NULL, NULL, cl);
	if (st != RPC_SUCCESS)
		die("NFSv3 NULL (AUTH_NONE): %s", clnt_sperror(cl, "NFSPROC3_NULL"));
	printf("rdma: NFSv3 NULL with AUTH_NONE ok\n");
	print_stats("after NULL", cl);

	/* GETATTR needs a credential the export accepts. */
	auth_destroy(cl->cl_auth);
	cl->cl_auth = authunix_create_default();
	if (!cl->cl_auth)
		die("authunix_create_default failed");
	memset(&gr, 0, sizeof(gr));
	st = nfsproc3_getattr_3(&ga, &gr, cl);
	if (st != RPC_SUCCESS)
		die("NFSv3 GETATTR (AUTH_SYS): %s", clnt_sperror(cl, "NFSPROC3_GETATTR"));
	if (gr.status != NFS3_OK)
		die("NFSv3 GETATTR: nfsstat3 %d", (int)gr.status);
	a = &gr.GETATTR3res_u.resok.obj_attributes;
	printf("rdma: GETATTR %s: type %s mode %04o nlink %u uid %u gid %u "
	       "size %llu used %llu fsid %#llx fileid %llu mtime %u.%09u\n",
	       export, ftype_name(a->type), a->mode, a->nlink, a->uid, a->gid,
	       (unsigned long long)a->size, (unsigned long long)a->used,
	       (unsigned long long)a->fsid, (unsigned long long)a->fileid,
	       a->mtime.seconds, a->mtime.nseconds);
	if (a->type != NF3DIR)
		die("the export root is not a directory (type %d)", (int)a->type);
	if (a->mode & ~07777u)
		die("mode %#o has bits beyond 07777", a->mode);
	if (a->fileid == 0 || a->nlink < 2)
		die("implausible fileid %llu / nlink %u",
		    (unsigned long long)a->fileid, a->nlink);
	if (local) {
		struct stat sb;

		if (stat(local, &sb) != 0)
			die("stat %s failed", local);
		if (!S_ISDIR(sb.st_mode) || (unsigned)(sb.st_mode & 07777) != a->mode ||
		    (unsigned long long)sb.st_ino != a->fileid ||
		    (unsigned)sb.st_nlink != a->nlink || sb.st_uid != a->uid ||
		    sb.st_gid != a->gid)
			die("attributes differ from stat(%s): mode %04o ino %llu "
			    "nlink %u uid %u gid %u", local,
			    (unsigned)(sb.st_mode & 07777),
			    (unsigned long long)sb.st_ino, (unsigned)sb.st_nlink,
			    (unsigned)sb.st_uid, (unsigned)sb.st_gid);
		printf("rdma: attributes match stat(%s)\n", local);
	}
	xdr_free((xdrproc_t)xdr_GETATTR3res, (char *)&gr);
	print_stats("after GETATTR", cl);
	if (chunks) {
		if (!local)
			die("-c needs -l: the data is checked on the export");
		nfs_chunk_steps(cl, &ga.object, local);
	}
	if (bench)
		nfs_chunk_bench(cl, &ga.object);

	/* Informational: mean round trip of back-to-back NULL calls. */
	t0 = now();
	for (i = 0; i < nulls; i++) {
		st = nfsproc3_null_3(NULL, NULL, cl);
		if (st != RPC_SUCCESS)
			die("NULL call %u of %u: %s", i, nulls,
			    clnt_sperror(cl, "NFSPROC3_NULL"));
	}
	dt = now() - t0;
	if (nulls)
		printf("rdma: %u NULL calls in %.3f s, mean round trip %.1f us\n",
		       nulls, dt, dt * 1e6 / nulls);
	print_stats("final", cl);
	{
		struct rpcrdma_stats s = stats(cl);

		if (s.rs_bad_replies || s.rs_timeouts)
			die("bad replies %llu, timeouts %llu",
			    (unsigned long long)s.rs_bad_replies,
			    (unsigned long long)s.rs_timeouts);
		if (s.rs_bad_chunks || s.rs_err_chunk)
			die("bad chunks %llu, ERR_CHUNK answers %llu",
			    (unsigned long long)s.rs_bad_chunks,
			    (unsigned long long)s.rs_err_chunk);
		if (s.rs_chunk_regs != s.rs_chunk_deregs)
			die("%llu chunk registrations but %llu revoked",
			    (unsigned long long)s.rs_chunk_regs,
			    (unsigned long long)s.rs_chunk_deregs);
		if (s.rs_replies < (uint64_t)nulls + 2)
			die("only %llu replies counted",
			    (unsigned long long)s.rs_replies);
	}
	auth_destroy(cl->cl_auth);
	cl->cl_auth = NULL;
	clnt_destroy(cl);

	/* Tidy mountd's table; a failure here is not the transport's. */
	if (mountproc3_umnt_3(&export, NULL, mcl) != RPC_SUCCESS)
		printf("mountd: UMNT failed: %s\n", clnt_sperror(mcl, "UMNT"));
	auth_destroy(mcl->cl_auth);
	mcl->cl_auth = NULL;
	clnt_destroy(mcl);
	free(ga.object.data.data_val);
	printf("%s: ok\n", prog_name);
	return 0;
}
