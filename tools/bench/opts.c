/*
 * rpcrdma_bench options: perftest/rping-style flags into struct
 * bench_opts, the size and name lists, and the workload/strategy names
 * every output uses.  Pure: no device, no I/O but the usage text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"

static const char *const workload_names[BW_NR] = {
	[BW_NULL] = "null", [BW_WRITE] = "write",
	[BW_READ] = "read", [BW_ECHO] = "echo",
};

static const char *const strategy_names[BS_NR] = {
	[BS_INLINE] = "inline", [BS_PULLUP] = "pullup",
	[BS_MAPPED] = "mapped", [BS_AUTO] = "auto",
	[BS_RAW_POLL] = "raw-poll", [BS_RAW_EVENT] = "raw-event",
	[BS_RAW_WRITE] = "raw-write", [BS_RAW_READ] = "raw-read",
	[BS_TCP] = "tcp", [BS_ASYNC] = "async",
};

/* 16 B to 1 MiB: powers of two and a few odd sizes around the edges. */
static const unsigned default_sizes[] = {
	16, 32, 64, 100, 128, 256, 512, 1000, 1024, 2048, 4000, 4096,
	8192, 10000, 16384, 32768, 65536, 100000, 131072, 262144, 524288,
	1048576,
};
static const unsigned quick_sizes[] = {
	16, 64, 256, 1024, 4096, 16384, 65536, 1048576,
};

#define MAX_PAYLOAD (64u << 20)	/* a cell's size may not exceed this */

const char *bench_workload_name(enum bench_workload w)
{
	return (unsigned)w < BW_NR ? workload_names[w] : "?";
}

const char *bench_strategy_name(enum bench_strategy s)
{
	return (unsigned)s < BS_NR ? strategy_names[s] : "?";
}

int bench_workload_from_name(const char *name)
{
	for (int i = 0; i < BW_NR; i++)
		if (!strcmp(name, workload_names[i]))
			return i;
	return -1;
}

int bench_strategy_from_name(const char *name)
{
	for (int i = 0; i < BS_NR; i++)
		if (!strcmp(name, strategy_names[i]))
			return i;
	return -1;
}

/* One-sided baselines only mean something where the data goes one way. */
int bench_applies(enum bench_strategy s, enum bench_workload w)
{
	switch (s) {
	case BS_RAW_WRITE:
		return w == BW_WRITE;
	case BS_RAW_READ:
		return w == BW_READ;
	default:
		return (unsigned)s < BS_NR && (unsigned)w < BW_NR;
	}
}

double bench_payload_bytes(enum bench_workload w, unsigned size)
{
	switch (w) {
	case BW_WRITE:
	case BW_READ:
		return size;
	case BW_ECHO:
		return 2.0 * size;
	default:
		return 0;
	}
}

long bench_parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	default: break;
	}
	if (*end || v > MAX_PAYLOAD)
		return -1;
	return (long)v;
}

/*
 * Items separated by commas; "A-B" is A, 2A, 4A ... up to B (and B
 * itself).  Sizes are kept in the order given, duplicates dropped.
 */
int bench_parse_sizes(const char *s, unsigned *sizes, unsigned max)
{
	char buf[512], *item, *save = NULL;
	unsigned n = 0;

	if (!s || strlen(s) >= sizeof(buf) || !*s)
		return -1;
	strcpy(buf, s);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(item, '-');
		long lo, hi;

		if (dash)
			*dash = '\0';
		lo = bench_parse_size(item);
		hi = dash ? bench_parse_size(dash + 1) : lo;
		if (lo < 0 || hi < lo || (dash && lo == 0))
			return -1;
		for (unsigned long v = (unsigned long)lo; ; v *= 2) {
			unsigned long x = v > (unsigned long)hi ? (unsigned long)hi : v;
			unsigned i;

			for (i = 0; i < n && sizes[i] != x; i++)
				;
			if (i == n) {
				if (n == max)
					return -1;
				sizes[n++] = (unsigned)x;
			}
			if (x == (unsigned long)hi || v == 0)
				break;
		}
	}
	return n ? (int)n : -1;
}

/* One name of a strategy list, aliases expanding to groups: its bits. */
static unsigned strategy_bits(const char *name)
{
	int v;

	if (!strcmp(name, "all"))
		return (1u << BS_NR) - 1;
	if (!strcmp(name, "rpc"))
		return (1u << BS_NR_RPC) - 1;
	if (!strcmp(name, "raw"))
		return 1u << BS_RAW_POLL | 1u << BS_RAW_EVENT |
		       1u << BS_RAW_WRITE | 1u << BS_RAW_READ;
	v = bench_strategy_from_name(name);
	return v < 0 ? 0 : 1u << v;
}

static unsigned workload_bits(const char *name)
{
	int v;

	if (!strcmp(name, "all"))
		return (1u << BW_NR) - 1;
	v = bench_workload_from_name(name);
	return v < 0 ? 0 : 1u << v;
}

/* Names separated by commas into a bit mask; -1 on an unknown name. */
static int parse_mask(const char *s, unsigned (*bits)(const char *),
		      unsigned *mask)
{
	char buf[256], *item, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	*mask = 0;
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		unsigned b = bits(item);

		if (!b)
			return -1;
		*mask |= b;
	}
	return *mask ? 0 : -1;
}

static int parse_uint_list(const char *s, unsigned *v, unsigned max,
			   unsigned lo, unsigned hi)
{
	unsigned n = 0;
	const char *p = s;

	for (;;) {
		unsigned long x;
		char *end;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		x = strtoul(p, &end, 10);
		if (errno || x < lo || x > hi || n == max)
			return -1;
		v[n++] = (unsigned)x;
		if (!*end)
			return (int)n;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || v > 3600)
		return -1;
	if (*end == 'm' && end[1] == 's') {
		v /= 1000;
		end += 2;
	} else if (*end == 's') {
		end++;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

double bench_trial_duration(const struct bench_opts *o)
{
	return o->bo_trials > 1 ? o->bo_duration / o->bo_trials : o->bo_duration;
}

unsigned long bench_trial_count(const struct bench_opts *o)
{
	unsigned long n = o->bo_trials > 1 ? o->bo_trials : 1;

	return o->bo_count ? (o->bo_count + n - 1) / n : 0;
}

double bench_trial_warmup(const struct bench_opts *o, unsigned trial)
{
	return trial && o->bo_trials > 1 ? o->bo_warmup / o->bo_trials :
	       o->bo_warmup;
}

void bench_opts_init(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->bo_role = BR_CLIENT;
	o->bo_port = BENCH_DEFAULT_PORT;
	memcpy(o->bo_sizes, default_sizes, sizeof(default_sizes));
	o->bo_nsizes = sizeof(default_sizes) / sizeof(default_sizes[0]);
	o->bo_inflight[0] = 1;
	o->bo_inflight[1] = 32;
	o->bo_ninflight = 2;
	o->bo_conns = 1;
	o->bo_workloads = (1u << BW_NR) - 1;
	o->bo_strategies = (1u << BS_NR) - 1;
	o->bo_duration = 1.0;
	o->bo_count = 0;
	o->bo_warmup = 0.2;
	o->bo_format = BF_TABLE;
	o->bo_trials = BENCH_DEFAULT_TRIALS;
}

enum {
	OPT_PAIR = 256, OPT_SERVER_EXEC, OPT_CORRUPT, OPT_QUICK, OPT_TESTBED,
	OPT_JSON, OPT_CSV, OPT_TRIALS, OPT_COST, OPT_CALIBRATE, OPT_CALIB_FOR,
	OPT_TOTALS, OPT_CONNS,
};

static const struct option long_opts[] = {
	{ "server", no_argument, NULL, 's' },
	{ "client", required_argument, NULL, 'c' },
	{ "pair", required_argument, NULL, OPT_PAIR },
	{ "address", required_argument, NULL, 'a' },
	{ "bind", required_argument, NULL, 'b' },
	{ "port", required_argument, NULL, 'p' },
	{ "device", required_argument, NULL, 'd' },
	{ "sizes", required_argument, NULL, 'S' },
	{ "duration", required_argument, NULL, 'D' },
	{ "count", required_argument, NULL, 'n' },
	{ "warmup", required_argument, NULL, 'w' },
	{ "inflight", required_argument, NULL, 'q' },
	{ "threads", required_argument, NULL, 't' },
	{ "workloads", required_argument, NULL, 'W' },
	{ "strategies", required_argument, NULL, 'x' },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "plot", required_argument, NULL, 'P' },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "server-exec", required_argument, NULL, OPT_SERVER_EXEC },
	{ "corrupt", required_argument, NULL, OPT_CORRUPT },
	{ "svc-threads", required_argument, NULL, 'j' },
	{ "testbed", required_argument, NULL, OPT_TESTBED },
	{ "trials", required_argument, NULL, OPT_TRIALS },
	{ "cost", no_argument, NULL, OPT_COST },
	{ "calibrate", required_argument, NULL, OPT_CALIBRATE },
	{ "calibrate-for", required_argument, NULL, OPT_CALIB_FOR },
	{ "totals", required_argument, NULL, OPT_TOTALS },
	{ "conns", required_argument, NULL, OPT_CONNS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int bench_opts_parse(struct bench_opts *o, int argc, char **argv,
		     char *err, size_t errlen)
{
	int c, n, sizes_given = 0, duration_given = 0, warmup_given = 0;
	int quick = 0, trials_given = 0;
	long v;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":sc:a:b:p:d:S:D:n:w:q:t:W:x:f:o:P:Qj:h",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 's': o->bo_role = BR_SERVER; break;
		case 'c': o->bo_role = BR_CLIENT; o->bo_addr = optarg; break;
		case OPT_PAIR: o->bo_role = BR_PAIR; o->bo_addr = optarg; break;
		case 'a': o->bo_addr = optarg; break;
		case 'b': o->bo_source = optarg; break;
		case 'd': o->bo_device = optarg; break;
		case 'p':
			v = bench_parse_size(optarg);
			if (v < 1 || v > 65535 - BENCH_PORT_TCP)
				return fail(err, errlen, "--port %s: 1..%u", optarg,
					    65535 - BENCH_PORT_TCP);
			o->bo_port = (unsigned)v;
			break;
		case 'S':
			n = bench_parse_sizes(optarg, o->bo_sizes, BENCH_MAX_SIZES);
			if (n < 0)
				return fail(err, errlen, "--sizes %s: a list like "
					    "16,64,1K,4K-1M (at most %d sizes, each "
					    "at most 64M)", optarg, BENCH_MAX_SIZES);
			o->bo_nsizes = (unsigned)n;
			sizes_given = 1;
			break;
		case 'D':
			if (parse_seconds(optarg, &o->bo_duration) || !o->bo_duration)
				return fail(err, errlen, "--duration %s: seconds "
					    "(e.g. 1, 0.5, 300ms), more than 0", optarg);
			o->bo_count = 0;
			duration_given = 1;
			break;
		case 'n':
			v = bench_parse_size(optarg);
			if (v < 1)
				return fail(err, errlen, "--count %s: a positive number", optarg);
			o->bo_count = (unsigned long)v;
			o->bo_duration = 0;
			break;
		case 'w':
			if (parse_seconds(optarg, &o->bo_warmup))
				return fail(err, errlen, "--warmup %s: seconds", optarg);
			warmup_given = 1;
			break;
		case 'q':
			n = parse_uint_list(optarg, o->bo_inflight, BENCH_MAX_INFLIGHT,
					    1, BENCH_MAX_CALLERS);
			if (n < 0)
				return fail(err, errlen, "--inflight %s: a list of "
					    "1..%d", optarg, BENCH_MAX_CALLERS);
			o->bo_ninflight = (unsigned)n;
			break;
		case 't':
			v = bench_parse_size(optarg);
			if (v < 1 || v > 64)
				return fail(err, errlen, "--threads %s: 1..64", optarg);
			o->bo_conns = (unsigned)v;
			break;
		case 'W':
			if (parse_mask(optarg, workload_bits, &o->bo_workloads))
				return fail(err, errlen, "--workloads %s: null, write, "
					    "read, echo or all", optarg);
			break;
		case 'x':
			if (parse_mask(optarg, strategy_bits, &o->bo_strategies))
				return fail(err, errlen, "--strategies %s: inline, "
					    "pullup, mapped, auto, raw-poll, raw-event, "
					    "raw-write, raw-read, tcp, rpc, raw or all",
					    optarg);
			break;
		case 'f':
			if (!strcmp(optarg, "table"))
				o->bo_format = BF_TABLE;
			else if (!strcmp(optarg, "json"))
				o->bo_format = BF_JSON;
			else if (!strcmp(optarg, "csv"))
				o->bo_format = BF_CSV;
			else
				return fail(err, errlen, "--format %s: table, json or csv",
					    optarg);
			break;
		case 'o': o->bo_output = optarg; break;
		case 'P': o->bo_plot = optarg; break;
		case OPT_JSON: o->bo_json = optarg; break;
		case OPT_CSV: o->bo_csv = optarg; break;
		case 'Q': o->bo_quiet = 1; break;
		case OPT_QUICK: quick = 1; break;
		case OPT_SERVER_EXEC: o->bo_server_exec = optarg; break;
		case OPT_TESTBED: o->bo_testbed = optarg; break;
		case OPT_CORRUPT:
			v = bench_parse_size(optarg);
			if (v < 1)
				return fail(err, errlen, "--corrupt %s: a positive number", optarg);
			o->bo_corrupt = (unsigned)v;
			break;
		case 'j':
			v = bench_parse_size(optarg);
			if (v < 0 || v > 64)
				return fail(err, errlen, "--svc-threads %s: service threads, 0..64", optarg);
			o->bo_svc_threads = (unsigned)v;
			break;
		case OPT_TRIALS:
			v = bench_parse_size(optarg);
			if (v < 1 || v > BENCH_MAX_TRIALS)
				return fail(err, errlen, "--trials %s: 1..%d", optarg,
					    BENCH_MAX_TRIALS);
			o->bo_trials = (unsigned)v;
			trials_given = 1;
			break;
		case OPT_COST: o->bo_cost = 1; break;
		case OPT_CALIBRATE: o->bo_calibrate = optarg; break;
		case OPT_CALIB_FOR: o->bo_calib_devices = optarg; break;
		case OPT_TOTALS: o->bo_totals = optarg; break;
		case OPT_CONNS:
			n = parse_uint_list(optarg, o->bo_sweep, BENCH_MAX_SWEEP,
					    1, BENCH_MAX_CONNS);
			if (n < 0)
				return fail(err, errlen, "--conns %s: a list of "
					    "1..%d", optarg, BENCH_MAX_CONNS);
			o->bo_nsweep = (unsigned)n;
			break;
		case 'h':
			return 1;
		case ':':
			return fail(err, errlen, "%s needs a value", argv[optind - 1]);
		default:
			return fail(err, errlen, "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fail(err, errlen, "unexpected argument %s", argv[optind]);
	/* --quick: the README's few-minute sweep; explicit flags still win. */
	if (quick) {
		if (!sizes_given) {
			memcpy(o->bo_sizes, quick_sizes, sizeof(quick_sizes));
			o->bo_nsizes = sizeof(quick_sizes) / sizeof(quick_sizes[0]);
		}
		if (!duration_given && !o->bo_count)
			o->bo_duration = 0.3;
		if (!warmup_given)
			o->bo_warmup = 0.1;
		if (!trials_given)
			o->bo_trials = BENCH_QUICK_TRIALS;
	}
	/* --calibrate measures what auto decides: echo, the fixed
	 * strategies and auto, at the first depth given. */
	if (o->bo_calibrate) {
		o->bo_workloads = 1u << BW_ECHO;
		o->bo_strategies = (1u << BS_NR_RPC) - 1;
		o->bo_ninflight = 1;
		o->bo_nsweep = 0;
		if (o->bo_cost)
			return fail(err, errlen, "--calibrate and --cost are "
				    "separate passes");
	}
	if (o->bo_role != BR_SERVER && !o->bo_addr)
		return fail(err, errlen, "say -s (server), -c HOST (client) or "
			    "--pair HOST (both)");
	o->bo_max_size = 0;
	for (unsigned i = 0; i < o->bo_nsizes; i++)
		if (o->bo_sizes[i] > o->bo_max_size)
			o->bo_max_size = o->bo_sizes[i];
	return 0;
}

void bench_usage(FILE *f)
{
	fputs(
"usage: rpcrdma_bench -s [-a ADDR] [-p PORT] [-S SIZES]\n"
"       rpcrdma_bench -c HOST [-b ADDR] [options]\n"
"       rpcrdma_bench --pair HOST [--server-exec PREFIX] [-b ADDR] [options]\n"
"\n"
"Compares librpcrdma's Send strategies with raw verbs and RPC over TCP.\n"
"  -s, --server            serve (RDMA, raw verbs and TCP listeners)\n"
"  -c, --client HOST       measure against the server at HOST\n"
"      --pair HOST         start a server bound to HOST, then measure it\n"
"      --server-exec CMD   pair: run the server under this prefix\n"
"                          (e.g. \"ip netns exec rpcsrv\")\n"
"  -a, --address ADDR      server: address to bind (default: any)\n"
"  -b, --bind ADDR         client: local address to connect from\n"
"  -p, --port PORT         base port (default 20080; uses PORT..PORT+5)\n"
"  -d, --device NAME       fail unless the address maps to this device\n"
"  -S, --sizes LIST        e.g. 16,64,1K,4K-1M (default 16 B..1 MiB sweep)\n"
"  -W, --workloads LIST    null,write,read,echo (default all)\n"
"  -x, --strategies LIST   inline,pullup,mapped,auto,raw-poll,raw-event,\n"
"                          raw-write,raw-read,tcp,async (one thread,\n"
"                          clnt_rdma_call_async); rpc, raw, all (default)\n"
"  -q, --inflight LIST     calls in flight per cell (default 1,32)\n"
"  -t, --threads N         client connections the calls share (default 1)\n"
"      --conns LIST        connections sweep, e.g. 1,16,128,1000: NULL calls\n"
"                          over that many connections of auto and of TCP,\n"
"                          callers going round them;\n"
"                          each side's registered memory, threads, fds\n"
"  -D, --duration SECS     measured time per cell, split across its trials\n"
"                          (default 1: 5 trials of 0.2 s)\n"
"  -n, --count N           measured calls per cell (split likewise) instead\n"
"  -w, --warmup SECS       unmeasured calls before a cell's first trial\n"
"                          (default 0.2; later trials: SECS / trials)\n"
"      --trials N          interleaved trials per cell (default 5): medians\n"
"                          and 95% bootstrap intervals, ties when they overlap\n"
"      --quick             8 sizes, 0.3 s cells (3 trials of 0.1 s), 0.1 s\n"
"                          warm-up\n"
"      --cost              the cost pass: syscalls, context switches, sleeps,\n"
"                          busy-poll hits, allocations per call (no timings)\n"
"      --calibrate FILE    measure (echo, inline/pullup/mapped/auto, first\n"
"                          depth) where auto's thresholds should lie on this\n"
"                          device; write a [device NAME] section to FILE\n"
"      --calibrate-for LIST  the section's device names (default: the\n"
"                          client's device)\n"
"  -f, --format FMT        table (default), json or csv\n"
"  -o, --output FILE       write the report there instead of stdout\n"
"  -P, --plot FILE.svg     write latency and throughput plots\n"
"      --json FILE         also write the cells as JSON there\n"
"      --csv FILE          also write the cells as CSV there\n"
"      --totals FILE       write the client's pid and its librpcrdma\n"
"                          counters, summed over its CLIENTs, there\n"
"      --testbed NAME      label for the report (default $RPCRDMA_TESTBED)\n"
"      --corrupt N         server: corrupt the Nth data reply (tests the\n"
"                          client's verification; the run must fail)\n"
"  -j, --svc-threads N     server: N service threads (default 0: svc_run)\n"
"  -Q, --quiet             no progress line on stderr\n"
"  -h, --help              this text\n", f);
}
