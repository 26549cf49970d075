/*
 * rpcrdma_bench's connections sweep (--conns): per connection count and
 * strategy, open that many connections, prove each answers a NULL call,
 * run the block's cells over them, read what each process holds
 * (registered memory, threads, descriptors), close them, and wait until
 * the server has let them go before the next block.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "bench.h"

#define RELEASE_GIVE_UP_S 60.0

/* "Name:   1234 kB" from /proc/self/status; 0 when absent. */
static uint64_t status_field(const char *text, const char *name)
{
	const char *p = strstr(text, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

void bench_proc_scale(struct bench_scale *out)
{
	char text[8192];
	FILE *f = fopen("/proc/self/status", "r");
	size_t k = 0;
	DIR *d;
	struct dirent *e;

	out->sc_pin_kb = out->sc_threads = out->sc_fds = 0;
	if (f) {
		k = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[k] = '\0';
	out->sc_pin_kb = status_field(text, "\nVmPin:");
	out->sc_threads = status_field(text, "\nThreads:");
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			out->sc_fds++;
	closedir(d);
	if (out->sc_fds)
		out->sc_fds--;	/* the directory's own descriptor */
}

#define WANT_NOFILE 65536

void bench_raise_nofile(void)
{
	struct rlimit rl, want = { WANT_NOFILE, WANT_NOFILE };

	/* A thousand connections want more descriptors than the usual soft
	 * limit of 1024 (a CLIENT of this library takes several): the hard
	 * limit is the process's to take, and a privileged one (the test
	 * bed's) may raise that too, 4096 being too few for 1000 CLIENTs. */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_max < WANT_NOFILE && !setrlimit(RLIMIT_NOFILE, &want))
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * After a block's connections closed: the server frees them on its own
 * time (a librpcrdma connection after its flushes, a TCP one at its next
 * poll).  The next block waits for its descriptors to be back near where
 * the sweep began, so one block's leftovers neither count against the
 * next nor push its sockets past svc_run's FD_SETSIZE.
 */
static void wait_released(struct bench_ctl *ctl, uint64_t base_fds)
{
	double give_up = bench_now() + RELEASE_GIVE_UP_S;
	struct bench_scale sv;

	while (!bench_ctl_scale(ctl, BS_AUTO, &sv) && sv.sc_fds > base_fds + 2 &&
	       bench_now() < give_up)
		usleep(100 * 1000);
}

static void fail_cell(struct bench_cell *c, unsigned served, unsigned conns)
{
	c->bc_status = BC_FAILED;
	if (served == conns)	/* none made: bench_rpc_connect_n failed */
		snprintf(c->bc_note, sizeof(c->bc_note), "setup failed");
	else
		snprintf(c->bc_note, sizeof(c->bc_note),
			 "%u of %u connections answered", served, conns);
}

int bench_sweep(const struct bench_opts *o, struct bench_ctl *ctl,
		struct bench_cell *cells, size_t b, size_t n,
		struct bench_rpc_client **slot, bench_cell_fn run, void *arg)
{
	struct bench_scale base_sv = { 0 };
	char err[256];
	size_t i, e;

	bench_ctl_scale(ctl, BS_AUTO, &base_sv);
	for (i = b; i < n; i = e) {
		enum bench_strategy s = cells[i].bc_strategy;
		unsigned conns = cells[i].bc_sweep, served = 0;
		struct bench_scale cl0, sv0 = { 0 };
		struct bench_rpc_client *rc;
		double t0, connect_s;

		for (e = i + 1; e < n && cells[e].bc_strategy == s &&
		     cells[e].bc_sweep == conns; e++)
			;
		wait_released(ctl, base_sv.sc_fds);
		bench_proc_scale(&cl0);
		bench_ctl_scale(ctl, s, &sv0);
		err[0] = '\0';
		t0 = bench_now();
		rc = bench_rpc_connect_n(o, s, conns, err, sizeof(err));
		connect_s = bench_now() - t0;
		if (rc)
			served = bench_rpc_touch(rc, err, sizeof(err));
		for (size_t k = i; k < e; k++) {
			struct bench_cell *c = &cells[k];

			c->bc_served = served;
			c->bc_connect_s = connect_s;
			if (!rc)
				fail_cell(c, 0, 0);
			else if (served < conns)
				fail_cell(c, served, conns);
			if (c->bc_status != BC_OK) {
				if (err[0] && strlen(c->bc_note) + 3 < sizeof(c->bc_note))
					snprintf(c->bc_note + strlen(c->bc_note),
						 sizeof(c->bc_note) - strlen(c->bc_note),
						 ": %s", err);
				continue;
			}
			slot[s] = rc;
			run(arg, c, k, n);
			bench_proc_scale(&c->bc_scale_client);
			if (!bench_ctl_scale(ctl, s, &c->bc_scale_server)) {
				c->bc_scale_server.sc_pin0_kb = sv0.sc_pin_kb;
				c->bc_scale_server.sc_threads0 = sv0.sc_threads;
				c->bc_scale_server.sc_fds0 = sv0.sc_fds;
			}
			c->bc_scale_client.sc_pin0_kb = cl0.sc_pin_kb;
			c->bc_scale_client.sc_threads0 = cl0.sc_threads;
			c->bc_scale_client.sc_fds0 = cl0.sc_fds;
			c->bc_has_scale = 1;
		}
		slot[s] = NULL;
		bench_rpc_close(rc);
	}
	wait_released(ctl, base_sv.sc_fds);
	return 0;
}
