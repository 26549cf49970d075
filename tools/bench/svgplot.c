/*
 * rpcrdma_bench's plot: one self-contained SVG, per workload a p50 latency
 * panel and a throughput panel against size on log-log axes, one series per
 * strategy and baseline, and one legend.  No plotting dependency.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "report_int.h"

/* Canvas geometry, in SVG user units. */
#define TITLE_H		40
#define PANEL_W		460
#define PANEL_H		300
#define PAD_L		70	/* room for y tick labels and title */
#define PAD_R		16
#define PAD_T		28	/* panel title */
#define PAD_B		48	/* x tick labels and title */
#define LEGEND_W	130
#define PLOT_W		(PANEL_W - PAD_L - PAD_R)
#define PLOT_H		(PANEL_H - PAD_T - PAD_B)
#define MAX_PANELS	(2 * BW_NR + 2)

/* M_SRV_PIN: the server's registered memory (VmPin), MiB (--conns). */
enum metric { M_P50, M_MBPS, M_CPS, M_SRV_PIN };

/* One panel: which cells it shows, where it sits, its log domain. */
struct panel {
	enum bench_workload p_workload;
	int p_by_inflight;	/* x: calls in flight at size p_fixed, */
	int p_by_conns;		/* or connections (--conns) at inflight
				 * p_fixed, */
	unsigned p_fixed;	/* else size at inflight p_fixed */
	enum metric p_metric;
	double p_left, p_top;	/* on the canvas */
	double p_x0, p_x1;	/* log2 of x */
	double p_y0, p_y1;	/* log10 of y */
};

/* Colour, dash and width of each strategy's line. */
static const struct style {
	const char *colour, *dash;
	double width;
} styles[BS_NR] = {
	[BS_INLINE]	= { "#1f77b4", NULL, 2 },
	[BS_PULLUP]	= { "#ff7f0e", NULL, 2 },
	[BS_MAPPED]	= { "#2ca02c", NULL, 2 },
	[BS_AUTO]	= { "#d62728", NULL, 3 },
	[BS_RAW_POLL]	= { "#555555", "6,3", 1.5 },
	[BS_RAW_EVENT]	= { "#8c564b", "2,2", 1.5 },
	[BS_RAW_WRITE]	= { "#9467bd", "8,3,2,3", 1.5 },
	[BS_RAW_READ]	= { "#e377c2", "4,4", 1.5 },
	[BS_TCP]	= { "#17becf", "10,4", 2 },
	[BS_ASYNC]	= { "#bcbd22", NULL, 2 },
};

static const char *metric_name(enum metric m)
{
	return m == M_P50 ? "p50" : m == M_MBPS ? "mb_per_s" :
	       m == M_SRV_PIN ? "server_pin_mib" : "calls_per_s";
}

/* ---- text --------------------------------------------------------------- */

/* XML-escaped text; control characters dropped, broken UTF-8 as '?'. */
static void xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len = strlen(s), k;

	while (i < len) {
		switch (p[i]) {
		case '&':	fputs("&amp;", f); break;
		case '<':	fputs("&lt;", f); break;
		case '>':	fputs("&gt;", f); break;
		case '"':	fputs("&quot;", f); break;
		case '\'':	fputs("&apos;", f); break;
		default:
			if (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n')
				break;
			if ((k = bench_rep_utf8_len(p + i, len - i))) {
				fwrite(p + i, 1, k, f);
				i += k;
				continue;
			}
			fputc('?', f);
		}
		i++;
	}
}

static void text(FILE *f, double x, double y, const char *anchor,
		 const char *extra, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y,
		anchor, extra ? extra : "");
	xml_text(f, s);
	fputs("</text>\n", f);
}

/* 2^k as 16, 256, 4K, 64K, 1M. */
static void pow2_label(char *buf, size_t len, int k)
{
	static const char *const unit[] = { "", "K", "M", "G" };
	int u = k >= 10 ? (k < 40 ? k / 10 : 3) : 0;

	if (k < 0)
		snprintf(buf, len, "1/%.0f", ldexp(1, -k));
	else
		snprintf(buf, len, "%.0f%s", ldexp(1, k - 10 * u), unit[u]);
}

/* 10^k as 0.01, 0.1, 1, 10, 100, 1k, 10k, 100k, 1M. */
static void decade_label(char *buf, size_t len, int k)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	int u = k >= 3 ? (k < 15 ? k / 3 : 4) : 0;

	if (k < 0)
		snprintf(buf, len, "%.*f", -k, pow(10, k));
	else
		snprintf(buf, len, "%.0f%s", pow(10, k - 3 * u), unit[u]);
}

/* ---- cells of a panel --------------------------------------------------- */

static double x_of(const struct panel *p, const struct bench_cell *c)
{
	if (p->p_by_conns)
		return c->bc_sweep;
	return p->p_by_inflight ? c->bc_inflight : c->bc_size;
}

static double y_of(const struct panel *p, const struct bench_cell *c)
{
	switch (p->p_metric) {
	case M_P50:	return c->bc_lat.bl_p50;
	case M_MBPS:	return c->bc_mb_per_s;
	case M_CPS:	return c->bc_calls_per_s;
	case M_SRV_PIN:	return c->bc_has_scale ?
			       c->bc_scale_server.sc_pin_kb / 1024.0 : 0;
	}
	return 0;
}

/* The point's 95 % interval on the panel's metric. */
static void ci_of(const struct panel *p, const struct bench_cell *c,
		  double *lo, double *hi)
{
	double scale;

	switch (p->p_metric) {
	case M_P50:
		*lo = c->bc_p50_lo;
		*hi = c->bc_p50_hi;
		return;
	case M_MBPS:
		scale = bench_payload_bytes(c->bc_workload, c->bc_size) / 1e6;
		*lo = c->bc_cps_lo * scale;
		*hi = c->bc_cps_hi * scale;
		return;
	case M_CPS:
		*lo = c->bc_cps_lo;
		*hi = c->bc_cps_hi;
		return;
	case M_SRV_PIN:
		*lo = *hi = y_of(p, c);
		return;
	}
	*lo = *hi = 0;
}

static int in_panel(const struct panel *p, const struct bench_cell *c)
{
	if (c->bc_workload != p->p_workload || !c->bc_sweep != !p->p_by_conns)
		return 0;
	if (p->p_by_conns)
		return c->bc_inflight == p->p_fixed;
	return p->p_by_inflight ? c->bc_size == p->p_fixed
				: c->bc_inflight == p->p_fixed;
}

/* A point on log axes: OK, and x and y positive and finite. */
static int plottable(const struct panel *p, const struct bench_cell *c)
{
	double x = x_of(p, c), y = y_of(p, c);

	return c->bc_status == BC_OK && x > 0 && y > 0 && isfinite(y);
}

static int cmp_x_size(const void *a, const void *b)
{
	const struct bench_cell *p = *(const struct bench_cell *const *)a;
	const struct bench_cell *q = *(const struct bench_cell *const *)b;

	if (p->bc_size != q->bc_size)
		return p->bc_size < q->bc_size ? -1 : 1;
	return (p > q) - (p < q);
}

static int cmp_x_inflight(const void *a, const void *b)
{
	const struct bench_cell *p = *(const struct bench_cell *const *)a;
	const struct bench_cell *q = *(const struct bench_cell *const *)b;

	if (p->bc_inflight != q->bc_inflight)
		return p->bc_inflight < q->bc_inflight ? -1 : 1;
	return (p > q) - (p < q);
}

static int cmp_x_conns(const void *a, const void *b)
{
	const struct bench_cell *p = *(const struct bench_cell *const *)a;
	const struct bench_cell *q = *(const struct bench_cell *const *)b;

	if (p->bc_sweep != q->bc_sweep)
		return p->bc_sweep < q->bc_sweep ? -1 : 1;
	return (p > q) - (p < q);
}

/* Strategy s's cells of panel p into v, by x; how many. */
static size_t series_cells(const struct panel *p, const struct bench_cell *c,
			   size_t n, enum bench_strategy s,
			   const struct bench_cell **v)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (c[i].bc_strategy == s && in_panel(p, &c[i]))
			v[k++] = &c[i];
	qsort(v, k, sizeof(*v), p->p_by_conns ? cmp_x_conns :
	      p->p_by_inflight ? cmp_x_inflight : cmp_x_size);
	return k;
}

static int has_points(const struct panel *p, const struct bench_cell *c,
		      size_t n, enum bench_strategy s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].bc_strategy == s && in_panel(p, &c[i]) &&
		    plottable(p, &c[i]))
			return 1;
	return 0;
}

/*
 * The log domain: x over every cell of the panel (n/a sizes show as
 * gaps), y over the points, both widened to whole powers.
 */
static void panel_domain(struct panel *p, const struct bench_cell *c, size_t n)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = x_of(p, &c[i]), y = y_of(p, &c[i]);

		if (!in_panel(p, &c[i]) || !(x > 0))
			continue;
		xlo = fmin(xlo, log2(x));
		xhi = fmax(xhi, log2(x));
		if (!plottable(p, &c[i]))
			continue;
		ylo = fmin(ylo, log10(y));
		yhi = fmax(yhi, log10(y));
	}
	if (xlo > xhi)
		xlo = xhi = 4;
	if (ylo > yhi)
		ylo = yhi = 0;
	p->p_x0 = floor(xlo);
	p->p_x1 = ceil(xhi);
	if (p->p_x1 - p->p_x0 < 1) {
		p->p_x0 -= 1;
		p->p_x1 += 1;
	}
	p->p_y0 = floor(ylo);
	p->p_y1 = ceil(yhi);
	if (p->p_y1 - p->p_y0 < 1)
		p->p_y1 += 1;
}

static double px(const struct panel *p, double x)
{
	return PAD_L + (log2(x) - p->p_x0) / (p->p_x1 - p->p_x0) * PLOT_W;
}

static double py(const struct panel *p, double y)
{
	return PAD_T + PLOT_H - (log10(y) - p->p_y0) / (p->p_y1 - p->p_y0) * PLOT_H;
}

/* ---- choosing the panels ------------------------------------------------ */

/* Smallest (want_max 0) or largest inflight of w's cells; 0 if none. */
static unsigned inflight_bound(const struct bench_cell *c, size_t n,
			       enum bench_workload w, int want_max)
{
	unsigned q = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned x = c[i].bc_inflight;

		if (c[i].bc_workload == w && !c[i].bc_sweep &&
		    (!q || (want_max ? x > q : x < q)))
			q = x;
	}
	return q;
}

/* Whether w's cells have two distinct sizes (by_inflight: inflights). */
static int varies(const struct bench_cell *c, size_t n, enum bench_workload w,
		  int by_inflight)
{
	const struct bench_cell *first = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (c[i].bc_workload != w || c[i].bc_sweep)
			continue;
		if (!first)
			first = &c[i];
		else if (by_inflight ? c[i].bc_inflight != first->bc_inflight
				     : c[i].bc_size != first->bc_size)
			return 1;
	}
	return 0;
}

static unsigned smallest_size(const struct bench_cell *c, size_t n,
			      enum bench_workload w)
{
	unsigned s = 0;
	int any = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].bc_workload == w && !c[i].bc_sweep &&
		    (!any || c[i].bc_size < s)) {
			s = c[i].bc_size;
			any = 1;
		}
	return s;
}

static void add_panel(struct panel *pv, size_t *np, enum bench_workload w,
		      int by_inflight, unsigned fixed, enum metric m)
{
	struct panel *p = &pv[*np];

	memset(p, 0, sizeof(*p));
	p->p_workload = w;
	p->p_by_conns = by_inflight == 2;
	p->p_by_inflight = by_inflight == 1;
	p->p_fixed = fixed;
	p->p_metric = m;
	p->p_left = (*np % 2) * PANEL_W;
	p->p_top = TITLE_H + (double)(*np / 2) * PANEL_H;
	(*np)++;
}

/*
 * A row per workload with several sizes: p50 at the smallest inflight,
 * MB/s at the largest.  NULL moves no bytes: its row, when it ran at
 * several inflights, is p50 and calls/s against calls in flight.
 */
static size_t choose_panels(const struct bench_cell *c, size_t n,
			    struct panel *pv)
{
	size_t np = 0;
	unsigned w, q = 0;

	for (w = 0; w < BW_NR; w++) {
		if (w == BW_NULL || !varies(c, n, w, 0))
			continue;
		add_panel(pv, &np, w, 0, inflight_bound(c, n, w, 0), M_P50);
		add_panel(pv, &np, w, 0, inflight_bound(c, n, w, 1), M_MBPS);
	}
	if (varies(c, n, BW_NULL, 1)) {
		unsigned s = smallest_size(c, n, BW_NULL);

		add_panel(pv, &np, BW_NULL, 1, s, M_P50);
		add_panel(pv, &np, BW_NULL, 1, s, M_CPS);
	}
	/* --conns: calls/s and the server's registered memory against
	 * connections, at the sweep's largest calls in flight. */
	for (size_t i = 0; i < n; i++)
		if (c[i].bc_sweep && c[i].bc_inflight > q)
			q = c[i].bc_inflight;
	if (q) {
		add_panel(pv, &np, BW_NULL, 2, q, M_CPS);
		add_panel(pv, &np, BW_NULL, 2, q, M_SRV_PIN);
	}
	return np;
}

/* ---- drawing ------------------------------------------------------------ */

static void panel_title(FILE *f, const struct panel *p)
{
	const char *w = bench_workload_name(p->p_workload);
	const char *what = p->p_metric == M_P50 ? "p50 latency" :
			   p->p_metric == M_MBPS ? "throughput" :
			   p->p_metric == M_SRV_PIN ? "server VmPin" : "calls/s";
	char buf[128];

	if (p->p_by_conns)
		snprintf(buf, sizeof(buf), "%s: %s vs connections, %u in flight",
			 w, what, p->p_fixed);
	else if (p->p_by_inflight)
		snprintf(buf, sizeof(buf), "%s: %s vs calls in flight", w,
			 what);
	else
		snprintf(buf, sizeof(buf), "%s: %s, %u in flight", w, what,
			 p->p_fixed);
	text(f, PAD_L + PLOT_W / 2.0, PAD_T - 10, "middle",
	     " font-weight=\"bold\" font-size=\"13\"", buf);
}

static void axes(FILE *f, const struct panel *p)
{
	char buf[32];
	int k, step;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#000\"/>\n", PAD_L, PAD_T, PLOT_W, PLOT_H);
	for (step = 1; (p->p_x1 - p->p_x0) / step > 8; step *= 2)
		;
	for (k = (int)p->p_x0; k <= (int)p->p_x1; k++) {
		double x = px(p, ldexp(1, k));

		if (k % step)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#ddd\"/>\n", x, PAD_T, x, PAD_T + PLOT_H);
		pow2_label(buf, sizeof(buf), k);
		text(f, x, PAD_T + PLOT_H + 15, "middle", NULL, buf);
	}
	for (step = 1; (p->p_y1 - p->p_y0) / step > 8; step *= 2)
		;
	for (k = (int)p->p_y0; k <= (int)p->p_y1; k += step) {
		double y = py(p, pow(10, k));

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#ddd\"/>\n", PAD_L, y, PAD_L + PLOT_W, y);
		decade_label(buf, sizeof(buf), k);
		text(f, PAD_L - 6, y + 4, "end", NULL, buf);
	}
	text(f, PAD_L + PLOT_W / 2.0, PAD_T + PLOT_H + 36, "middle", NULL,
	     p->p_by_conns ? "connections" :
	     p->p_by_inflight ? "calls in flight" : "size (bytes)");
	fprintf(f, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 16 %.1f)\">%s</text>\n",
		PAD_T + PLOT_H / 2.0, PAD_T + PLOT_H / 2.0,
		p->p_metric == M_P50 ? "p50 latency (&#181;s)" :
		p->p_metric == M_MBPS ? "MB/s" :
		p->p_metric == M_SRV_PIN ? "MiB registered" : "calls/s");
}

static void polyline(FILE *f, const struct panel *p,
		     const struct bench_cell *const *v, size_t k)
{
	size_t i;

	if (k < 2)
		return;
	fputs("<polyline fill=\"none\" points=\"", f);
	for (i = 0; i < k; i++)
		fprintf(f, "%s%.1f,%.1f", i ? " " : "", px(p, x_of(p, v[i])),
			py(p, y_of(p, v[i])));
	fputs("\"/>\n", f);
}

/* Stroke attributes of strategy s, shared by the series and the legend. */
static void stroke(FILE *f, enum bench_strategy s)
{
	const struct style *st = &styles[s];

	fprintf(f, " stroke=\"%s\" stroke-width=\"%.1f\"", st->colour, st->width);
	if (st->dash)
		fprintf(f, " stroke-dasharray=\"%s\"", st->dash);
}

/*
 * The point's 95 % interval as a vertical bar with caps (clamped to the
 * panel; an interval of one trial is a bar of no height).
 */
static void error_bar(FILE *f, const struct panel *p, const struct bench_cell *c)
{
	double lo, hi, x = px(p, x_of(p, c)), y = y_of(p, c), ylo, yhi;

	ci_of(p, c, &lo, &hi);
	if (!(lo > 0) || !isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = hi = y;
	ylo = fmin(py(p, lo), PAD_T + PLOT_H);
	yhi = fmax(py(p, hi), PAD_T);
	fprintf(f, "<path class=\"ci\" data-lo=\"%.6g\" data-hi=\"%.6g\" "
		"fill=\"none\" stroke-dasharray=\"none\" stroke-width=\"1\" "
		"d=\"M%.1f,%.1fV%.1fM%.1f,%.1fh6M%.1f,%.1fh6\"/>\n", lo, hi, x,
		ylo, yhi, x - 3, ylo, x - 3, yhi);
}

/* Lines through consecutive OK points, broken at cells that are not. */
static void series(FILE *f, const struct panel *p, const struct bench_cell *c,
		   size_t n, enum bench_strategy s, const struct bench_cell **v)
{
	size_t k = series_cells(p, c, n, s, v), i, b;
	const char *name = bench_strategy_name(s);

	fputs("<g class=\"series\" data-strategy=\"", f);
	xml_text(f, name);
	fputc('"', f);
	stroke(f, s);
	fputs(">\n", f);
	for (b = 0; b < k; b = i + 1) {
		for (i = b; i < k && plottable(p, v[i]); i++)
			;
		polyline(f, p, v + b, i - b);
	}
	for (i = 0; i < k; i++)
		if (plottable(p, v[i]))
			error_bar(f, p, v[i]);
	for (i = 0; i < k; i++)
		if (plottable(p, v[i]))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
				"fill=\"%s\" stroke=\"none\"/>\n",
				px(p, x_of(p, v[i])), py(p, y_of(p, v[i])),
				styles[s].colour);
	fputs("</g>\n", f);
}

static void draw_panel(FILE *f, const struct panel *p,
		       const struct bench_cell *c, size_t n,
		       const struct bench_cell **v)
{
	const char *w = bench_workload_name(p->p_workload);
	unsigned s;

	fprintf(f, "<g class=\"panel\" data-workload=\"");
	xml_text(f, w);
	fprintf(f, "\" data-x=\"%s\" data-metric=\"%s\" data-%s=\"%u\" "
		"transform=\"translate(%.1f,%.1f)\">\n",
		p->p_by_conns ? "conns" : p->p_by_inflight ? "inflight" : "size",
		metric_name(p->p_metric),
		p->p_by_inflight ? "size" : "inflight", p->p_fixed,
		p->p_left, p->p_top);
	panel_title(f, p);
	axes(f, p);
	/* auto's wide line first, so the thinner ones stay visible on it */
	if (has_points(p, c, n, BS_AUTO))
		series(f, p, c, n, BS_AUTO, v);
	for (s = 0; s < BS_NR; s++)
		if (s != BS_AUTO && has_points(p, c, n, s))
			series(f, p, c, n, s, v);
	fputs("</g>\n", f);
}

/* One entry per strategy any panel draws. */
static void legend(FILE *f, const struct panel *pv, size_t np,
		   const struct bench_cell *c, size_t n, double left)
{
	double y = TITLE_H + PAD_T;
	unsigned s;
	size_t i;

	fprintf(f, "<g class=\"legend\" transform=\"translate(%.1f,0)\">\n", left);
	for (s = 0; s < BS_NR; s++) {
		const char *name = bench_strategy_name(s);

		for (i = 0; i < np && !has_points(&pv[i], c, n, s); i++)
			;
		if (i == np)
			continue;
		fprintf(f, "<line x1=\"0\" y1=\"%.1f\" x2=\"28\" y2=\"%.1f\"",
			y, y);
		stroke(f, s);
		fprintf(f, "/>\n<circle cx=\"14\" cy=\"%.1f\" r=\"2.5\" "
			"fill=\"%s\"/>\n", y, styles[s].colour);
		text(f, 36, y + 4, "start", NULL, name);
		y += 18;
	}
	fputs("</g>\n", f);
}

int bench_plot_svg(FILE *f, const struct bench_cell *c, size_t n,
		   const char *title)
{
	struct panel pv[MAX_PANELS];
	const struct bench_cell **v;
	size_t np, i;
	double w, h;

	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	np = choose_panels(c, n, pv);
	for (i = 0; i < np; i++)
		panel_domain(&pv[i], c, n);
	w = (np > 1 ? 2 : 1) * PANEL_W + LEGEND_W;
	h = TITLE_H + (double)(np ? (np + 1) / 2 : 1) * PANEL_H;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n<title>",
		w, h, w, h);
	xml_text(f, title ? title : "rpcrdma_bench");
	fprintf(f, "</title>\n<rect width=\"%.0f\" height=\"%.0f\" "
		"fill=\"#fff\"/>\n", w, h);
	text(f, w / 2, 24, "middle", " font-size=\"15\" font-weight=\"bold\"",
	     title ? title : "rpcrdma_bench");
	for (i = 0; i < np; i++)
		draw_panel(f, &pv[i], c, n, v);
	if (np)
		legend(f, pv, np, c, n, w - LEGEND_W + 8);
	else
		text(f, PANEL_W / 2.0, TITLE_H + PANEL_H / 2.0, "middle", NULL,
		     "nothing to plot: no workload ran at more than one size");
	fputs("</svg>\n", f);
	free(v);
	if (fflush(f) || ferror(f))
		return -1;
	return 0;
}
