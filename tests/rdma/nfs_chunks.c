/*
 * nfs_interop's chunk steps against the kernel's nfsd, through our client
 * and unmodified rpcgen stubs: Calls with Read chunks (WRITE), Replies in
 * Reply chunks (READ, READDIR, and every Reply while one is offered),
 * zero-copy READ into a Write chunk, and more calls in flight than
 * credits.  Every byte written is read back over RDMA and from the
 * export's local path, and every listing is compared with readdir(3).
 */
#include "config.h"
#include <dirent.h>
#include <time.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nfs_chunks.h"

static struct timeval tmo = { 60, 0 };

/* The byte at file offset @off: every write of a range agrees. */
static unsigned char pat(uint64_t off)
{
	return (unsigned char)(off * 131 + (off >> 9) * 7 + 1);
}

static void fill(char *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (char)pat(off + i);
}

static void check(const char *what, const char *buf, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] != pat(off + i))
			die("%s: byte %zu (file offset %llu) is %#x, expected %#x",
			    what, i, (unsigned long long)(off + i),
			    (unsigned char)buf[i], pat(off + i));
}

static void copy_fh(nfs_fh3 *dst, const nfs_fh3 *src)
{
	dst->data.data_len = src->data.data_len;
	dst->data.data_val = malloc(src->data.data_len + 1);
	if (!dst->data.data_val)
		die("out of memory");
	memcpy(dst->data.data_val, src->data.data_val, src->data.data_len);
}

static void create(CLIENT *cl, nfs_fh3 *dir, const char *name, nfs_fh3 *fh)
{
	CREATE3args a;
	CREATE3res r;

	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.where.dir = *dir;
	a.where.name = (char *)name;
	a.how.mode = UNCHECKED;
	a.how.createhow3_u.obj_attributes.mode.set_it = TRUE;
	a.how.createhow3_u.obj_attributes.mode.set_mode3_u.mode = 0644;
	if (clnt_call(cl, NFSPROC3_CREATE, (xdrproc_t)xdr_CREATE3args,
		      (char *)&a, (xdrproc_t)xdr_CREATE3res, (char *)&r,
		      tmo) != RPC_SUCCESS)
		die("CREATE %s: %s", name, clnt_sperror(cl, "NFSPROC3_CREATE"));
	if (r.status != NFS3_OK)
		die("CREATE %s: nfsstat3 %d", name, (int)r.status);
	if (fh) {
		if (!r.CREATE3res_u.resok.obj.handle_follows)
			die("CREATE %s: no handle returned", name);
		copy_fh(fh, &r.CREATE3res_u.resok.obj.post_op_fh3_u.handle);
	}
	xdr_free((xdrproc_t)xdr_CREATE3res, (char *)&r);
}

/* WRITE @len pattern bytes at @off, FILE_SYNC: a Read chunk carries them. */
static void write_at(CLIENT *cl, nfs_fh3 *fh, uint64_t off, uint32_t len)
{
	WRITE3args a;
	WRITE3res r;
	char *buf = malloc(len ? len : 1);

	if (!buf)
		die("out of memory");
	fill(buf, off, len);
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.file = *fh;
	a.offset = off;
	a.count = len;
	a.stable = FILE_SYNC;
	a.data.data_len = len;
	a.data.data_val = buf;
	if (clnt_call(cl, NFSPROC3_WRITE, (xdrproc_t)xdr_WRITE3args,
		      (char *)&a, (xdrproc_t)xdr_WRITE3res, (char *)&r,
		      tmo) != RPC_SUCCESS)
		die("WRITE %u at %llu: %s", len, (unsigned long long)off,
		    clnt_sperror(cl, "NFSPROC3_WRITE"));
	if (r.status != NFS3_OK)
		die("WRITE %u at %llu: nfsstat3 %d", len,
		    (unsigned long long)off, (int)r.status);
	if (r.WRITE3res_u.resok.count != len)
		die("WRITE %u at %llu: the server wrote %u", len,
		    (unsigned long long)off, r.WRITE3res_u.resok.count);
	xdr_free((xdrproc_t)xdr_WRITE3res, (char *)&r);
	free(buf);
}

/*
 * READ @len at @off and check the data; @want: the bytes the file has
 * there.  @zc: into our own buffer as a Write chunk (zero-copy).
 */
static void read_at(CLIENT *cl, nfs_fh3 *fh, uint64_t off, uint32_t len,
		    uint32_t want, int zc)
{
	struct rpcrdma_result_buf rb;
	READ3args a;
	READ3res r;
	char *buf = NULL;
	char what[96];

	snprintf(what, sizeof(what), "READ%s %u at %llu", zc ? " (zero-copy)" : "",
		 len, (unsigned long long)off);
	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	a.file = *fh;
	a.offset = off;
	a.count = len;
	if (zc) {
		buf = malloc(len ? len : 1);
		if (!buf)
			die("out of memory");
		memset(buf, 0, len);
		r.READ3res_u.resok.data.data_val = buf;
		rb = (struct rpcrdma_result_buf){ .rb_size = sizeof(rb),
						  .rb_addr = buf, .rb_len = len };
		if (clnt_rdma_set_result_buf(cl, &rb))
			die("%s: clnt_rdma_set_result_buf failed", what);
	}
	if (clnt_call(cl, NFSPROC3_READ, (xdrproc_t)xdr_READ3args, (char *)&a,
		      (xdrproc_t)xdr_READ3res, (char *)&r, tmo) != RPC_SUCCESS)
		die("%s: %s", what, clnt_sperror(cl, "NFSPROC3_READ"));
	if (r.status != NFS3_OK)
		die("%s: nfsstat3 %d", what, (int)r.status);
	if (r.READ3res_u.resok.count != want ||
	    r.READ3res_u.resok.data.data_len != want)
		die("%s: count %u, data %u bytes, expected %u", what,
		    r.READ3res_u.resok.count, r.READ3res_u.resok.data.data_len,
		    want);
	check(what, r.READ3res_u.resok.data.data_val, off, want);
	if (zc) {
		if (r.READ3res_u.resok.data.data_val != buf)
			die("%s: the data did not land in our buffer", what);
		/* The server chose the Write chunk: it says how much it wrote. */
		if (rb.rb_written != want)
			die("%s: the server wrote %u bytes into the Write chunk, "
			    "expected %u", what, rb.rb_written, want);
		r.READ3res_u.resok.data.data_val = NULL;
		free(buf);
	}
	xdr_free((xdrproc_t)xdr_READ3res, (char *)&r);
}

static void check_local(const char *path, uint64_t size)
{
	char *buf = malloc(size);
	int fd = open(path, O_RDONLY);

	if (!buf || fd < 0)
		die("open %s", path);
	if (pread(fd, buf, size, 0) != (ssize_t)size)
		die("pread %s: short", path);
	if (lseek(fd, 0, SEEK_END) != (off_t)size)
		die("%s: size %lld, expected %llu", path,
		    (long long)lseek(fd, 0, SEEK_END), (unsigned long long)size);
	check(path, buf, 0, size);
	close(fd);
	free(buf);
}

/* ---- READDIR ------------------------------------------------------------ */

/* Names over NFS (paged by @count) must be the local directory's. */
static unsigned int readdir_all(CLIENT *cl, nfs_fh3 *dir, const char *local,
				uint32_t count)
{
	char seen[1000] = { 0 };
	unsigned int n = 0, calls = 0, nlocal = 0;
	READDIR3args a;
	READDIR3res r;
	entry3 *e;
	bool_t eof = FALSE;
	DIR *d;
	struct dirent *de;

	memset(&a, 0, sizeof(a));
	a.dir = *dir;
	a.count = count;
	while (!eof) {
		memset(&r, 0, sizeof(r));
		if (clnt_call(cl, NFSPROC3_READDIR, (xdrproc_t)xdr_READDIR3args,
			      (char *)&a, (xdrproc_t)xdr_READDIR3res,
			      (char *)&r, tmo) != RPC_SUCCESS)
			die("READDIR count %u: %s", count,
			    clnt_sperror(cl, "NFSPROC3_READDIR"));
		if (r.status != NFS3_OK)
			die("READDIR count %u: nfsstat3 %d", count, (int)r.status);
		calls++;
		for (e = r.READDIR3res_u.resok.reply.entries; e; e = e->nextentry) {
			unsigned int k;

			n++;
			a.cookie = e->cookie;
			if (sscanf(e->name, "f%u", &k) == 1 && k < sizeof(seen)) {
				if (seen[k]++)
					die("READDIR: %s listed twice", e->name);
			}
		}
		memcpy(a.cookieverf, r.READDIR3res_u.resok.cookieverf,
		       sizeof(a.cookieverf));
		eof = r.READDIR3res_u.resok.reply.eof;
		xdr_free((xdrproc_t)xdr_READDIR3res, (char *)&r);
		if (calls > 10000)
			die("READDIR never reached eof");
	}
	d = opendir(local);
	if (!d)
		die("opendir %s", local);
	while ((de = readdir(d))) {
		unsigned int k;

		nlocal++;
		if (sscanf(de->d_name, "f%u", &k) == 1 && k < sizeof(seen) &&
		    !seen[k])
			die("READDIR count %u: %s missing", count, de->d_name);
	}
	closedir(d);
	if (n != nlocal)
		die("READDIR count %u: %u entries, readdir(3) finds %u", count,
		    n, nlocal);
	printf("rdma: READDIR count %u: %u entries in %u calls, as readdir(3)\n",
	       count, n, calls);
	return n;
}

/* ---- many callers ------------------------------------------------------- */

struct reader {
	pthread_t r_t;
	CLIENT *r_cl;
	nfs_fh3 *r_fh;
	unsigned int r_id;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	unsigned int k;

	for (k = 0; k < 4; k++) {
		uint64_t off = ((uint64_t)r->r_id * 4 + k) * 4096 + r->r_id;

		read_at(r->r_cl, r->r_fh, off, 4096, 4096, 0);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* @n calls of @len each: WRITE (Read chunk), READ (Reply chunk), READ zc. */
static void bench_size(CLIENT *cl, nfs_fh3 *fh, uint32_t len, unsigned n)
{
	static const char *what[] = { "WRITE (Read chunk)", "READ (Reply chunk)",
				      "READ (Write chunk, zero-copy)" };
	unsigned k, i;

	for (k = 0; k < 3; k++) {
		double t0 = now_s(), dt;

		for (i = 0; i < n; i++) {
			uint64_t off = 2097152 + (uint64_t)(i % 4) * len;

			if (k == 0)
				write_at(cl, fh, off, len);
			else
				read_at(cl, fh, off, len, len, k == 2);
		}
		dt = now_s() - t0;
		printf("rdma: bench %s %u B x %u: %.1f MB/s, %.0f us per call\n",
		       what[k], len, n, (double)len * n / dt / 1e6, dt * 1e6 / n);
	}
}

void nfs_chunk_bench(CLIENT *cl, nfs_fh3 *root)
{
	nfs_fh3 fh;
	unsigned i;

	create(cl, root, "bench.bin", &fh);
	for (i = 0; i < 4; i++)		/* the range read below */
		write_at(cl, &fh, 2097152 + (uint64_t)i * 1048576, 1048576);
	bench_size(cl, &fh, 65536, 200);
	bench_size(cl, &fh, 1048576, 30);
	free(fh.data.data_val);
}

void nfs_chunk_steps(CLIENT *cl, nfs_fh3 *root, const char *local)
{
	static const uint32_t odd[] = { 4093, 4094, 4095, 4097, 65537, 200003 };
	struct rpcrdma_stats s0 = stats(cl), s;
	struct reader rd[64];
	char path[4096], name[32];
	uint64_t end = 1048576;
	unsigned int i;
	nfs_fh3 fh;

	/* WRITE: 1 MiB, then odd sizes appended, then an odd rewrite. */
	create(cl, root, "chunks.bin", &fh);
	write_at(cl, &fh, 0, 1048576);
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		write_at(cl, &fh, end, odd[i]);
		end += odd[i];
	}
	write_at(cl, &fh, 12345, 7777);
	snprintf(path, sizeof(path), "%s/chunks.bin", local);
	check_local(path, end);
	s = stats(cl);
	printf("rdma: %zu WRITEs (1 MiB, odd sizes, an odd rewrite): %llu Calls with Read chunks, "
	       "%llu bytes; the export holds every byte\n",
	       sizeof(odd) / sizeof(odd[0]) + 2,
	       (unsigned long long)(s.rs_read_chunk_calls - s0.rs_read_chunk_calls),
	       (unsigned long long)(s.rs_read_chunk_bytes - s0.rs_read_chunk_bytes));
	if (s.rs_read_chunk_calls - s0.rs_read_chunk_calls < 8)
		die("the WRITEs did not go as Read chunks");

	/* READ, results through the Reply chunk (no source change). */
	s0 = stats(cl);
	read_at(cl, &fh, 0, 1048576, 1048576, 0);
	read_at(cl, &fh, 3, 4097, 4097, 0);
	read_at(cl, &fh, 1048573, 65539, 65539, 0);
	read_at(cl, &fh, 12345, 1, 1, 0);
	read_at(cl, &fh, end - 5, 100, 5, 0);
	s = stats(cl);
	printf("rdma: READ 1 MiB and odd sizes/offsets: %llu Replies in Reply "
	       "chunks, %llu bytes\n",
	       (unsigned long long)(s.rs_reply_chunk_replies - s0.rs_reply_chunk_replies),
	       (unsigned long long)(s.rs_reply_chunk_bytes - s0.rs_reply_chunk_bytes));
	if (s.rs_reply_chunk_bytes - s0.rs_reply_chunk_bytes < 1048576)
		die("the 1 MiB READ did not come through a Reply chunk");

	/* READ zero-copy: the data lands in our buffer by RDMA Write. */
	s0 = stats(cl);
	read_at(cl, &fh, 0, 1048576, 1048576, 1);
	read_at(cl, &fh, 7, 65541, 65541, 1);
	read_at(cl, &fh, 1048573, 4099, 4099, 1);
	s = stats(cl);
	printf("rdma: READ zero-copy: %llu Write chunks, %llu bytes placed, "
	       "%llu unused\n",
	       (unsigned long long)(s.rs_write_chunks - s0.rs_write_chunks),
	       (unsigned long long)(s.rs_write_chunk_bytes - s0.rs_write_chunk_bytes),
	       (unsigned long long)(s.rs_write_chunks_unused - s0.rs_write_chunks_unused));
	if (s.rs_write_chunk_bytes - s0.rs_write_chunk_bytes !=
	    1048576 + 65541 + 4099)
		die("the Write chunks did not carry the READ data");

	/* READDIR of hundreds of entries: one big Reply, then paged. */
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "f%03u", i);
		create(cl, root, name, NULL);
	}
	s0 = stats(cl);
	if (readdir_all(cl, root, local, 262144) < 300)
		die("READDIR: too few entries");
	readdir_all(cl, root, local, 8192);
	s = stats(cl);
	if (s.rs_reply_chunk_replies == s0.rs_reply_chunk_replies)
		die("READDIR did not come through a Reply chunk");

	/* 64 callers on one CLIENT: more calls than credits. */
	s0 = stats(cl);
	for (i = 0; i < 64; i++) {
		rd[i].r_cl = cl;
		rd[i].r_fh = &fh;
		rd[i].r_id = i;
		if (pthread_create(&rd[i].r_t, NULL, reader_main, &rd[i]))
			die("pthread_create");
	}
	for (i = 0; i < 64; i++)
		pthread_join(rd[i].r_t, NULL);
	s = stats(cl);
	printf("rdma: 64 threads x 4 READs of 4 KiB: ok, credits granted %llu, "
	       "credit waits %llu\n", (unsigned long long)s.rs_credits_granted,
	       (unsigned long long)(s.rs_credit_waits - s0.rs_credit_waits));
	printf("stats chunks: read_chunk_calls %llu long_calls %llu reply_chunks %llu "
	       "reply_chunk_replies %llu write_chunks %llu write_chunk_bytes %llu "
	       "unused %llu regs %llu deregs %llu err_chunk %llu bad_chunks %llu\n",
	       (unsigned long long)s.rs_read_chunk_calls,
	       (unsigned long long)s.rs_long_calls,
	       (unsigned long long)s.rs_reply_chunks,
	       (unsigned long long)s.rs_reply_chunk_replies,
	       (unsigned long long)s.rs_write_chunks,
	       (unsigned long long)s.rs_write_chunk_bytes,
	       (unsigned long long)s.rs_write_chunks_unused,
	       (unsigned long long)s.rs_chunk_regs,
	       (unsigned long long)s.rs_chunk_deregs,
	       (unsigned long long)s.rs_err_chunk,
	       (unsigned long long)s.rs_bad_chunks);
	free(fh.data.data_val);
}
