/*
 * rpcrdma_bench's machine-readable reports: every cell as one JSON object
 * a line, and the same scalars flattened into RFC 4180 CSV.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bench.h"
#include "report_int.h"

/* ---- JSON --------------------------------------------------------------- */

/* A JSON string; bytes that are not UTF-8 become U+FFFD. */
static void json_str(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	fputc('"', f);
	while (i < len) {
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(f, "\\%c", p[i]);
		} else if (p[i] == '\n') {
			fputs("\\n", f);
		} else if (p[i] == '\t') {
			fputs("\\t", f);
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			fprintf(f, "\\u%04x", p[i]);
		} else if ((k = bench_rep_utf8_len(p + i, len - i))) {
			fwrite(p + i, 1, k, f);
			i += k;
			continue;
		} else {
			fputs("\\ufffd", f);
		}
		i++;
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.15g", v);
	else
		fputs("null", f);
}

/* v, or null unless present. */
static void json_opt(FILE *f, double v, int present)
{
	if (present)
		json_num(f, v);
	else
		fputs("null", f);
}

/* [lo, hi], or null unless present. */
static void json_pair(FILE *f, double lo, double hi, int present)
{
	if (!present) {
		fputs("null", f);
		return;
	}
	fputc('[', f);
	json_num(f, lo);
	fputs(", ", f);
	json_num(f, hi);
	fputc(']', f);
}

static void json_array(FILE *f, const double *v, size_t n)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

/* --cost: per call and side, null where not counted; null without --cost. */
static void json_cost(FILE *f, const struct bench_cell *c)
{
	static const char *const name[K_NR] = {
		"syscalls", "vol_csw", "invol_csw", "channel_sleeps",
		"busy_poll_hits", "allocs", "instructions",
	};
	int side, k;

	if (!c->bc_has_cost || c->bc_status != BC_OK) {
		fputs("null", f);
		return;
	}
	for (side = 0; side < 2; side++) {
		fputs(side ? ", \"server\": {" : "{\"client\": {", f);
		for (k = 0; k < K_NR; k++) {
			double v = bench_cost_per_call(c, side, k);

			fprintf(f, "%s\"%s\": ", k ? ", " : "", name[k]);
			json_opt(f, v, !isnan(v));
		}
		fputc('}', f);
	}
	fputc('}', f);
}

static void json_counters(FILE *f, const struct bench_counters *k)
{
	size_t i;

	fputc('{', f);
	for (i = 0; i < bench_rep_nr_counters; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "",
			bench_rep_counter_fields[i].name,
			bench_rep_counter(k, i));
	fputc('}', f);
}

/* One side's holdings in a connections-sweep cell. */
static void json_scale(FILE *f, const struct bench_scale *k, int server)
{
	fprintf(f, "{\"pin_kb\": %" PRIu64 ", \"pin_kb_before\": %" PRIu64
		", \"threads\": %" PRIu64 ", \"threads_before\": %" PRIu64
		", \"fds\": %" PRIu64 ", \"fds_before\": %" PRIu64,
		k->sc_pin_kb, k->sc_pin0_kb, k->sc_threads, k->sc_threads0,
		k->sc_fds, k->sc_fds0);
	if (server)
		fprintf(f, ", \"recv_bytes\": %" PRIu64 ", \"ring_bytes\": %" PRIu64,
			k->sc_recv_bytes, k->sc_ring_bytes);
	fputc('}', f);
}

static void json_cell(FILE *f, const struct bench_cell *c, const char *testbed)
{
	const struct bench_lat *l = &c->bc_lat;
	const char *w = bench_workload_name(c->bc_workload);
	const char *s = bench_strategy_name(c->bc_strategy);

	fputs("{\"testbed\": ", f);
	if (testbed)
		json_str(f, testbed, strlen(testbed));
	else
		fputs("null", f);
	fputs(", \"workload\": ", f);
	json_str(f, w, strlen(w));
	fprintf(f, ", \"size\": %u, \"strategy\": ", c->bc_size);
	json_str(f, s, strlen(s));
	fprintf(f, ", \"inflight\": %u, \"threads\": %u, \"connections\": %u, "
		"\"status\": \"%s\", \"note\": ", c->bc_inflight, c->bc_threads,
		c->bc_conns, bench_rep_status_name(c->bc_status));
	json_str(f, c->bc_note, bench_rep_note_len(c));
	fprintf(f, ", \"calls\": %" PRIu64 ", \"seconds\": ", c->bc_calls);
	json_num(f, c->bc_secs);
	fputs(", \"calls_per_s\": ", f);
	json_num(f, c->bc_calls_per_s);
	fputs(", \"mb_per_s\": ", f);
	json_num(f, c->bc_mb_per_s);
	fputs(", \"lat_us\": {\"mean\": ", f);
	json_num(f, l->bl_mean);
	fputs(", \"p50\": ", f);
	json_num(f, l->bl_p50);
	fputs(", \"p99\": ", f);
	json_num(f, l->bl_p99);
	fputs(", \"p999\": ", f);
	json_num(f, l->bl_p999);
	fputs(", \"min\": ", f);
	json_num(f, l->bl_min);
	fputs(", \"max\": ", f);
	json_num(f, l->bl_max);
	fputs("}, \"cpu_us_per_call\": {\"client\": ", f);
	json_opt(f, c->bc_cpu_client, c->bc_cpu_client >= 0);
	fputs(", \"server\": ", f);
	json_opt(f, c->bc_cpu_server, c->bc_cpu_server >= 0);
	fputs("}, \"counters\": ", f);
	if (c->bc_has_counters) {
		fputs("{\"client\": ", f);
		json_counters(f, &c->bc_client);
		fputs(", \"server\": ", f);
		json_counters(f, &c->bc_server);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputs(", \"vs_raw\": ", f);
	json_opt(f, c->bc_vs_raw, c->bc_vs_raw != 0);
	fputs(", \"vs_tcp\": ", f);
	json_opt(f, c->bc_vs_tcp, c->bc_vs_tcp != 0);
	fprintf(f, ", \"winner\": %s, \"tied\": %s", c->bc_winner ? "true" : "false",
		c->bc_tied ? "true" : "false");
	fputs(", \"calls_per_s_ci\": ", f);
	json_pair(f, c->bc_cps_lo, c->bc_cps_hi, c->bc_status == BC_OK);
	fputs(", \"p50_ci\": ", f);
	json_pair(f, c->bc_p50_lo, c->bc_p50_hi, c->bc_status == BC_OK);
	fputs(", \"cost_per_call\": ", f);
	json_cost(f, c);
	fputs(", \"trials\": {\"calls_per_s\": ", f);
	json_array(f, c->bc_trial_cps, c->bc_ntrials);
	fputs(", \"p50\": ", f);
	json_array(f, c->bc_trial_p50, c->bc_ntrials);
	fputs("}, \"sweep\": ", f);
	if (c->bc_sweep) {
		fprintf(f, "{\"connections\": %u, \"served\": %u, "
			"\"connect_s\": ", c->bc_sweep, c->bc_served);
		json_num(f, c->bc_connect_s);
		fputs(", \"client\": ", f);
		if (c->bc_has_scale)
			json_scale(f, &c->bc_scale_client, 0);
		else
			fputs("null", f);
		fputs(", \"server\": ", f);
		if (c->bc_has_scale)
			json_scale(f, &c->bc_scale_server, 1);
		else
			fputs("null", f);
		fputc('}', f);
	} else {
		fputs("null", f);
	}
	fputc('}', f);
}

/* One array, one object a line, in the array's order. */
void bench_report_json(FILE *f, const struct bench_cell *c, size_t n,
		       const char *testbed)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_cell(f, &c[i], testbed);
	}
	fputs(n ? "\n]\n" : "]\n", f);
}

/* ---- CSV ---------------------------------------------------------------- */

/* RFC 4180: quoted when it holds a comma, a quote or a line break. */
static void csv_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	if (!memchr(s, ',', len) && !memchr(s, '"', len) &&
	    !memchr(s, '\n', len) && !memchr(s, '\r', len)) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

/* ",v", or an empty field unless present and finite. */
static void csv_num(FILE *f, double v, int present)
{
	fputc(',', f);
	if (present && isfinite(v))
		fprintf(f, "%.15g", v);
}

static void csv_header(FILE *f)
{
	static const char *const side[] = { "client", "server" };
	size_t s, i;

	fputs("workload,size,strategy,inflight,threads,connections,status,note,"
	      "calls,seconds,calls_per_s,mb_per_s,lat_mean_us,lat_p50_us,"
	      "lat_p99_us,lat_p999_us,lat_min_us,lat_max_us,"
	      "cpu_client_us_per_call,cpu_server_us_per_call", f);
	for (s = 0; s < 2; s++)
		for (i = 0; i < bench_rep_nr_counters; i++)
			fprintf(f, ",%s_%s", side[s],
				bench_rep_counter_fields[i].name);
	fputs(",vs_raw,vs_tcp,winner,tied,trials,calls_per_s_lo,calls_per_s_hi,"
	      "lat_p50_lo_us,lat_p50_hi_us,trial_calls_per_s,trial_p50_us,"
	      "sweep_connections,sweep_served,sweep_connect_s,"
	      "client_pin_kb,client_pin_kb_before,client_threads,"
	      "client_threads_before,client_fds,client_fds_before,"
	      "server_pin_kb,server_pin_kb_before,server_threads,"
	      "server_threads_before,server_fds,server_fds_before,"
	      "server_recv_bytes,server_ring_bytes\n", f);
}

static void csv_counters(FILE *f, const struct bench_counters *k, int present)
{
	size_t i;

	for (i = 0; i < bench_rep_nr_counters; i++) {
		fputc(',', f);
		if (present)
			fprintf(f, "%" PRIu64, bench_rep_counter(k, i));
	}
}

static void csv_list(FILE *f, const double *v, size_t n);

/* The sweep's fields: empty unless the cell is of the sweep. */
static void csv_sweep(FILE *f, const struct bench_cell *c)
{
	const struct bench_scale *k[2] = { &c->bc_scale_client,
					   &c->bc_scale_server };
	int have = c->bc_sweep && c->bc_has_scale;

	csv_num(f, c->bc_sweep, c->bc_sweep != 0);
	csv_num(f, c->bc_served, c->bc_sweep != 0);
	csv_num(f, c->bc_connect_s, c->bc_sweep != 0);
	for (int i = 0; i < 2; i++) {
		csv_num(f, (double)k[i]->sc_pin_kb, have);
		csv_num(f, (double)k[i]->sc_pin0_kb, have);
		csv_num(f, (double)k[i]->sc_threads, have);
		csv_num(f, (double)k[i]->sc_threads0, have);
		csv_num(f, (double)k[i]->sc_fds, have);
		csv_num(f, (double)k[i]->sc_fds0, have);
	}
	csv_num(f, (double)c->bc_scale_server.sc_recv_bytes, have);
	csv_num(f, (double)c->bc_scale_server.sc_ring_bytes, have);
}

static void csv_row(FILE *f, const struct bench_cell *c)
{
	const struct bench_lat *l = &c->bc_lat;
	const char *w = bench_workload_name(c->bc_workload);
	const char *s = bench_strategy_name(c->bc_strategy);

	csv_str(f, w, strlen(w));
	fprintf(f, ",%u,", c->bc_size);
	csv_str(f, s, strlen(s));
	fprintf(f, ",%u,%u,%u,%s,", c->bc_inflight, c->bc_threads, c->bc_conns,
		bench_rep_status_name(c->bc_status));
	csv_str(f, c->bc_note, bench_rep_note_len(c));
	fprintf(f, ",%" PRIu64, c->bc_calls);
	csv_num(f, c->bc_secs, 1);
	csv_num(f, c->bc_calls_per_s, 1);
	csv_num(f, c->bc_mb_per_s, 1);
	csv_num(f, l->bl_mean, 1);
	csv_num(f, l->bl_p50, 1);
	csv_num(f, l->bl_p99, 1);
	csv_num(f, l->bl_p999, 1);
	csv_num(f, l->bl_min, 1);
	csv_num(f, l->bl_max, 1);
	csv_num(f, c->bc_cpu_client, c->bc_cpu_client >= 0);
	csv_num(f, c->bc_cpu_server, c->bc_cpu_server >= 0);
	csv_counters(f, &c->bc_client, c->bc_has_counters);
	csv_counters(f, &c->bc_server, c->bc_has_counters);
	csv_num(f, c->bc_vs_raw, c->bc_vs_raw != 0);
	csv_num(f, c->bc_vs_tcp, c->bc_vs_tcp != 0);
	fprintf(f, ",%d,%d,%u", c->bc_winner ? 1 : 0, c->bc_tied ? 1 : 0,
		c->bc_ntrials);
	csv_num(f, c->bc_cps_lo, c->bc_status == BC_OK);
	csv_num(f, c->bc_cps_hi, c->bc_status == BC_OK);
	csv_num(f, c->bc_p50_lo, c->bc_status == BC_OK);
	csv_num(f, c->bc_p50_hi, c->bc_status == BC_OK);
	csv_list(f, c->bc_trial_cps, c->bc_ntrials);
	csv_list(f, c->bc_trial_p50, c->bc_ntrials);
	csv_sweep(f, c);
	fputc('\n', f);
}

/* ",a;b;c": a cell's trials in one field (no comma, no quoting). */
static void csv_list(FILE *f, const double *v, size_t n)
{
	size_t i;

	fputc(',', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%.15g", i ? ";" : "", isfinite(v[i]) ? v[i] : 0);
}

/* The JSON's scalars flattened; an empty field where JSON has null. */
void bench_report_csv(FILE *f, const struct bench_cell *c, size_t n)
{
	size_t i;

	csv_header(f);
	for (i = 0; i < n; i++)
		csv_row(f, &c[i]);
}

