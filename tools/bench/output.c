/*
 * rpcrdma_bench's outputs at the end of a client run: the report in each
 * format asked for, the plot, the cost table's reasons, and --calibrate's
 * [device NAME] section.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"


/* Writes one report format to path; 0 or -1. */
/* Why this process could not count what the cost table shows as -. */
static void cost_reasons(FILE *f)
{
	static const unsigned what[] = {
		BENCH_COST_SYSCALLS, BENCH_COST_INSTR, BENCH_COST_ALLOCS,
	};
	struct bench_cost k;

	if (bench_cost_snapshot(&k))
		return;
	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		if (!(k.ck_have & what[i]))
			fprintf(f, "  (%s here: %s)\n", what[i] == BENCH_COST_SYSCALLS ?
				"system calls" : what[i] == BENCH_COST_INSTR ?
				"instructions" : "allocations",
				bench_cost_why(what[i]));
}

static int write_file(const char *path, enum bench_format fmt,
		      const struct bench_cell *cells, size_t n, const char *testbed,
		      int cost)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f) {
		perror(path);
		return -1;
	}
	switch (fmt) {
	case BF_JSON:
		bench_report_json(f, cells, n, testbed);
		break;
	case BF_CSV:
		bench_report_csv(f, cells, n);
		break;
	default:
		if (testbed)
			fprintf(f, "test bed: %s\n", testbed);
		if (cost) {
			bench_report_cost(f, cells, n);
			cost_reasons(f);
			break;
		}
		bench_report_table(f, cells, n);
		fputc('\n', f);
		bench_report_scale(f, cells, n);
		bench_report_summary(f, cells, n);
		break;
	}
	if (path ? fclose(f) : fflush(f)) {
		perror(path ? path : "stdout");
		return -1;
	}
	return 0;
}

int bench_write_reports(const struct bench_opts *o, const struct bench_cell *cells,
			 size_t n)
{
	const char *testbed = o->bo_testbed ? o->bo_testbed : getenv("RPCRDMA_TESTBED");
	char label[160];
	int rc;

	/* A paired server's threads change what was measured: say so. */
	if (o->bo_role == BR_PAIR && o->bo_svc_threads) {
		snprintf(label, sizeof(label), "%s, server with %u service threads",
			 testbed ? testbed : "?", o->bo_svc_threads);
		testbed = label;
	}
	rc = write_file(o->bo_output, o->bo_format, cells, n, testbed, o->bo_cost);

	if (o->bo_json && write_file(o->bo_json, BF_JSON, cells, n, testbed, 0))
		rc = -1;
	if (o->bo_csv && write_file(o->bo_csv, BF_CSV, cells, n, testbed, 0))
		rc = -1;
	if (o->bo_plot) {
		char title[300];
		FILE *f;

		snprintf(title, sizeof(title), "rpcrdma_bench%s%s", testbed ? ": " : "",
			 testbed ? testbed : "");
		f = fopen(o->bo_plot, "w");
		if (!f || bench_plot_svg(f, cells, n, title) || fclose(f)) {
			perror(o->bo_plot);
			rc = -1;
		}
	}
	return rc;
}

/*
 * --calibrate: the [device NAME] section (one per name of
 * --calibrate-for, else the client's device) into the file, and shown.
 */
int bench_write_calibration(const struct bench_opts *o,
			     const struct bench_cell *cells, size_t n,
			     const char *testbed)
{
	struct bench_calib cal = {
		.bk_inline_cutoff = BENCH_DEF_INLINE_CUTOFF,
		.bk_mapped_min = BENCH_DEF_MAPPED_MIN,
		.bk_page_threshold = BENCH_DEF_PAGE_THRESHOLD,
		.bk_trials = o->bo_trials,
	};
	char names[256], *name, *save = NULL;
	FILE *f;

	if (bench_calibrate(cells, n, &cal)) {
		fprintf(stderr, "rpcrdma_bench: no echo cells to calibrate from\n");
		return -1;
	}
	if (o->bo_calib_devices)
		snprintf(names, sizeof(names), "%s", o->bo_calib_devices);
	else if (o->bo_device)
		snprintf(names, sizeof(names), "%s", o->bo_device);
	else if (bench_device_of(o->bo_addr, o->bo_source, names, sizeof(names))) {
		fprintf(stderr, "rpcrdma_bench: which device? say -d NAME\n");
		return -1;
	}
	f = fopen(o->bo_calibrate, "w");
	if (!f) {
		perror(o->bo_calibrate);
		return -1;
	}
	for (name = strtok_r(names, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		bench_calib_write(f, &cal, name, testbed);
		bench_calib_write(stdout, &cal, name, testbed);
	}
	if (fclose(f)) {
		perror(o->bo_calibrate);
		return -1;
	}
	printf("rpcrdma_bench: wrote %s\n", o->bo_calibrate);
	return 0;
}
