/*
 * Unit test: the configuration parser (conf.c) and options by precedence
 * (options.c) over the real key table: every syntax form, each error with
 * its line, conf.d order, every layer, range checks, suggestions.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"

static struct rpcrdma_conf *conf;

static void setup(void)
{
	conf = rpcrdma_conf_new(rpcrdma_keys, rpcrdma_nkeys);
	ck_assert_ptr_nonnull(conf);
}

static void teardown(void)
{
	rpcrdma_conf_free(conf);
}

static size_t key(const char *name)
{
	size_t i;

	for (i = 0; i < rpcrdma_nkeys; i++)
		if (!strcmp(rpcrdma_keys[i].ck_name, name))
			return i;
	ck_abort_msg("no key %s", name);
	return 0;
}

static uint64_t get(const char *name, unsigned int role, const char *dev)
{
	uint64_t v = 0;

	ck_assert_msg(rpcrdma_conf_lookup(conf, key(name), role, dev, &v, NULL, NULL),
		      "%s is not set", name);
	return v;
}

static bool is_set(const char *name, unsigned int role, const char *dev)
{
	uint64_t v;

	return rpcrdma_conf_lookup(conf, key(name), role, dev, &v, NULL, NULL);
}

/* The only diagnostic must be this one, of this kind. */
static void only_diag(const char *want, bool error)
{
	bool is_err;
	const char *d;

	ck_assert_uint_eq(rpcrdma_conf_ndiags(conf), 1);
	d = rpcrdma_conf_diag(conf, 0, &is_err);
	ck_assert_msg(strstr(d, want), "diagnostic '%s' lacks '%s'", d, want);
	ck_assert_int_eq(is_err, error);
}

#define CL RPCRDMA_CS_CLIENT
#define SV RPCRDMA_CS_SERVER

START_TEST(syntax_forms)
{
	static const char text[] =
		"# a comment\n"
		"; another\n"
		"\n"
		"max_requests = 16\n"		/* before any section: [global] */
		"   [ Client ]   \n"
		"\tinline-send=8K   # hyphen, suffix, comment\n"
		"INLINE_RECV = 16k ; comment\n"
		"source = \"10.0.0.2\"  # quoted\n"
		"busy_poll_us = 1ms\n"
		"[server]\n"
		"svc_threads = 4\n"
		"connect_timeout_ms = 2s\n"	/* misplaced: warned */
		"[device rxe0]\n"
		"send_strategy = Mapped\n"
		"[device \"siw0\"]\n"
		"max_inline_data = 64\n"
		"[global]\n"
		"call_timeout_ms = 1m\n";
	const char *str = NULL;
	uint64_t v;

	ck_assert_uint_eq(rpcrdma_conf_parse(conf, "t.conf", text, RPCRDMA_CL_MAIN), 0);
	only_diag("t.conf:12: connect_timeout_ms cannot be set in a [server] section "
		  "(clients only); ignored", false);
	ck_assert_uint_eq(get("max_requests", CL, NULL), 16);
	ck_assert_uint_eq(get("max_requests", SV, NULL), 16);
	ck_assert_uint_eq(get("inline_send", CL, NULL), 8192);
	ck_assert(!is_set("inline_send", SV, NULL));
	ck_assert_uint_eq(get("inline_recv", CL, NULL), 16384);
	ck_assert(rpcrdma_conf_lookup(conf, key("source"), CL, NULL, &v, &str, NULL));
	ck_assert_str_eq(str, "10.0.0.2");
	ck_assert_uint_eq(get("busy_poll_us", CL, NULL), 1000);
	ck_assert_uint_eq(get("svc_threads", SV, NULL), 4);
	ck_assert(!is_set("connect_timeout_ms", CL, NULL));
	ck_assert_uint_eq(get("call_timeout_ms", CL, NULL), 60000);
	ck_assert_uint_eq(get("send_strategy", CL, "rxe0"), RPCRDMA_SEND_MAPPED);
	ck_assert(!is_set("send_strategy", CL, "siw0"));
	ck_assert(!is_set("send_strategy", CL, NULL));
	ck_assert_uint_eq(get("max_inline_data", SV, "siw0"), 64);
}
END_TEST

/* Each error names the file, the line, the key and what is accepted. */
START_TEST(errors_with_lines)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "[client]\nmax_requests 8\n", "e:2: syntax error: expected 'key = value'" },
		{ "\n\n[client\n", "e:3: syntax error: a section header must end with ']'" },
		{ "[device]\n", "e:1: [device NAME] needs one device name" },
		{ "[device a b]\n", "e:1: [device NAME] needs one device name" },
		{ "[client x]\n", "e:1: [client] takes no name" },
		{ "= 5\n", "e:1: syntax error" },
		{ "max_requests = many\n", "e:1: max_requests = many: not a number" },
		{ "max_requests = 0\n", "e:1: max_requests = 0: out of range (accepted: 1 to 1024)" },
		{ "max_requests = 2000\n", "out of range (accepted: 1 to 1024)" },
		{ "max_requests = 99999999999999999999999\n", "out of range" },
		{ "inline_send = 1500\n",
		  "e:1: inline_send = 1500: out of range (accepted: 1024 to 262144, a multiple of 1024)" },
		{ "inline_send = 4X\n", "e:1: inline_send = 4X: unknown suffix 'X' (accepted: K, M, G)" },
		{ "inline_send = 1G\n", "out of range" },
		{ "busy_poll_us = 2s\n", "e:1: busy_poll_us = 2s: out of range (accepted: 0us to 1s)" },
		{ "connect_timeout_ms = 500us\n", "connect_timeout_ms = 500us: not a whole number of ms" },
		{ "connect_timeout_ms = 0\n", "accepted: 1ms to 10m" },
		{ "send_strategy = fast\n",
		  "e:1: send_strategy = fast: not understood (accepted: auto, inline, pullup or mapped)" },
		{ "log_level = loud\n", "accepted: off, error, warning or debug" },
		{ "mr_cache =\n", "e:1: mr_cache: no value" },
		{ "source = \"10.0.0.1\n", "e:1: syntax error" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setup();
		ck_assert_uint_eq(rpcrdma_conf_parse(conf, "e", cases[i].text,
						     RPCRDMA_CL_MAIN), 1);
		ck_assert_uint_eq(rpcrdma_conf_errors(conf), 1);
		only_diag(cases[i].want, true);
		teardown();
	}
}
END_TEST

/* A bad value is an error and sets nothing; the lines after it still count. */
START_TEST(bad_value_sets_nothing)
{
	ck_assert_uint_eq(rpcrdma_conf_parse(conf, "f", "max_requests = 4\n"
					     "max_requests = 0\nmr_cache = 3\n",
					     RPCRDMA_CL_MAIN), 1);
	ck_assert_uint_eq(get("max_requests", CL, NULL), 4);
	ck_assert_uint_eq(get("mr_cache", CL, NULL), 3);
}
END_TEST

START_TEST(unknown_keys_suggested)
{
	static const struct { const char *text, *want; } cases[] = {
		{ "max_request = 8\n", "f:1: unknown key 'max_request' (did you mean 'max_requests'?); ignored" },
		{ "\n[server]\nsvc_thread = 2\n", "f:3: unknown key 'svc_thread' (did you mean 'svc_threads'?)" },
		{ "inline_snd = 8K\n", "(did you mean 'inline_send'?)" },
		{ "busy_poll = 0\n", "(did you mean 'busy_poll_us'?)" },
		{ "colour = blue\n", "f:1: unknown key 'colour'; ignored" },
		{ "[clinet]\nmax_requests = 8\n",
		  "f:1: unknown section [clinet] (did you mean [client]?); its keys are ignored" },
		{ "[device rxe0]\nmax_requests = 8\n",
		  "f:2: max_requests cannot be set in a [device] section (it is used before "
		  "the device is known); ignored" },
		{ "[client]\nsvc_threads = 8\n",
		  "f:2: svc_threads cannot be set in a [client] section (servers only); ignored" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		setup();
		ck_assert_uint_eq(rpcrdma_conf_parse(conf, "f", cases[i].text,
						     RPCRDMA_CL_MAIN), 0);
		only_diag(cases[i].want, false);
		ck_assert(!is_set("max_requests", CL, "rxe0"));
		ck_assert(!is_set("svc_threads", SV, NULL));
		teardown();
	}
}
END_TEST

START_TEST(values)
{
	const struct rpcrdma_conf_key *k;
	char err[200], buf[64];
	uint64_t v;

	k = &rpcrdma_keys[key("mapped_min")];
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "1M", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 1u << 20);
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "2KiB", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 2048);
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "-1", &v, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "1.5K", &v, err, sizeof(err)), -EINVAL);
	rpcrdma_conf_format(k, 1u << 30, NULL, buf, sizeof(buf));
	ck_assert_str_eq(buf, "1G");
	k = &rpcrdma_keys[key("busy_poll_us")];
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "250", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 250);
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "250us", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 250);
	rpcrdma_conf_format(k, 2000, NULL, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2ms");
	rpcrdma_conf_format(k, 0, NULL, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0us");
	k = &rpcrdma_keys[key("call_timeout_ms")];
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "1h", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 3600000);
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "25s", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 25000);
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "25 s", &v, err, sizeof(err)), -EINVAL);
	k = &rpcrdma_keys[key("log_level")];
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, "DEBUG", &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, RPCRDMA_LOG_DEBUG);
	k = &rpcrdma_keys[key("source")];
	memset(buf, 'a', sizeof(buf));
	buf[sizeof(buf) - 1] = '\0';
	ck_assert_int_eq(rpcrdma_conf_parse_value(k, buf, &v, err, sizeof(err)), 0);
}
END_TEST

/* No tunable is a boolean yet; the type is the parser's, tested on its own. */
START_TEST(booleans)
{
	static const struct rpcrdma_conf_key keys[] = {
		{ "flag", RPCRDMA_CT_BOOL, 0, 1, 0, 0, 0, NULL, CL, 0, "a flag" },
	};
	static const char *const yes[] = { "yes", "TRUE", "on", "1" };
	static const char *const no[] = { "no", "false", "Off", "0" };
	char err[200];
	uint64_t v;
	size_t i;

	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(rpcrdma_conf_parse_value(&keys[0], yes[i], &v, err,
							  sizeof(err)), 0);
		ck_assert_uint_eq(v, 1);
		ck_assert_int_eq(rpcrdma_conf_parse_value(&keys[0], no[i], &v, err,
							  sizeof(err)), 0);
		ck_assert_uint_eq(v, 0);
	}
	ck_assert_int_eq(rpcrdma_conf_parse_value(&keys[0], "maybe", &v, err,
						  sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "not understood (accepted: yes or no)");
}
END_TEST

START_TEST(sections_by_specificity)
{
	/* Within one layer [client] beats [global] whatever the order;
	 * the same section: the last line wins. */
	rpcrdma_conf_parse(conf, "m", "[client]\nmax_requests = 8\n[global]\n"
			   "max_requests = 64\nmr_cache = 1\nmr_cache = 2\n",
			   RPCRDMA_CL_MAIN);
	ck_assert_uint_eq(get("max_requests", CL, NULL), 8);
	ck_assert_uint_eq(get("max_requests", SV, NULL), 64);
	ck_assert_uint_eq(get("mr_cache", CL, NULL), 2);
	/* A higher layer's [global] beats a lower layer's [client]. */
	rpcrdma_conf_parse(conf, "d", "max_requests = 100\n", RPCRDMA_CL_CONFD);
	ck_assert_uint_eq(get("max_requests", CL, NULL), 100);
}
END_TEST

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void make_tree(void)
{
	char path[256];

	strcpy(tmpdir, "/tmp/test_conf.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/rpcrdma.conf.d", tmpdir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	write_file("rpcrdma.conf",
		   "[global]\nmax_requests = 10\nmr_cache = 1\nsignal_every = 2\n"
		   "send_strategy = inline\nmax_inline_data = 32\npage_threshold = 100\n"
		   "[device rxe0]\nsend_strategy = pullup\nmax_inline_data = 80\n");
	write_file("rpcrdma.conf.d/20-b.conf", "mr_cache = 3\nsignal_every = 4\n");
	write_file("rpcrdma.conf.d/10-a.conf", "mr_cache = 2\nsignal_every = 3\n"
		   "[device rxe0]\nmax_inline_data = 64\n");
	write_file("rpcrdma.conf.d/05-ignored.txt", "this is not read\n");
	write_file("rpcrdma.conf.d/.00-hidden.conf", "this is not read\n");
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(confd_order)
{
	struct rpcrdma_conf_origin o;
	char main[128];
	uint64_t v;

	make_tree();
	snprintf(main, sizeof(main), "%s/rpcrdma.conf", tmpdir);
	ck_assert_uint_eq(rpcrdma_conf_load(conf, main, true), 0);
	ck_assert_uint_eq(rpcrdma_conf_ndiags(conf), 0);
	ck_assert_uint_eq(get("max_requests", CL, NULL), 10);	/* main only */
	ck_assert_uint_eq(get("mr_cache", CL, NULL), 3);	/* 20-b after 10-a */
	ck_assert(rpcrdma_conf_lookup(conf, key("signal_every"), CL, NULL, &v, NULL, &o));
	ck_assert_uint_eq(v, 4);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_CONFD);
	ck_assert_ptr_nonnull(strstr(o.co_file, "rpcrdma.conf.d/20-b.conf"));
	ck_assert_uint_eq(o.co_line, 2);
	/* Device sections: conf.d's over the main file's, and only on rxe0. */
	ck_assert(rpcrdma_conf_lookup(conf, key("max_inline_data"), CL, "rxe0", &v, NULL, &o));
	ck_assert_uint_eq(v, 64);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_DEVICE);
	ck_assert_str_eq(o.co_device, "rxe0");
	ck_assert_uint_eq(get("max_inline_data", CL, "siw0"), 32);
	ck_assert_uint_eq(get("send_strategy", SV, "rxe0"), RPCRDMA_SEND_PULLUP);
	remove_tree();
}
END_TEST

START_TEST(missing_files)
{
	ck_assert_uint_eq(rpcrdma_conf_load(conf, "/nonexistent/rpcrdma.conf", false), 0);
	ck_assert_uint_eq(rpcrdma_conf_ndiags(conf), 0);
	ck_assert_uint_eq(rpcrdma_conf_load(conf, "/nonexistent/rpcrdma.conf", true), 1);
	only_diag("/nonexistent/rpcrdma.conf: cannot read: No such file or directory", true);
}
END_TEST

START_TEST(environment)
{
	char *envp[] = {
		"PATH=/bin", "RPCRDMA_MAX_REQUESTS=7", "RPCRDMA_TEST_DEVICE=both",
		"RPCRDMA_DEBUG=1", "RPCRDMA_SOURCE=10.1.1.1", "RPCRDMA_MR_CACHE=lots",
		"RPCRDMA_BUSY_POLL_US=50", NULL,
	};
	struct rpcrdma_conf_origin o;
	const char *s;
	uint64_t v;

	ck_assert_uint_eq(rpcrdma_conf_load_env(conf, envp), 1);
	only_diag("RPCRDMA_MR_CACHE: mr_cache = lots: not a number", true);
	ck_assert(rpcrdma_conf_lookup(conf, key("max_requests"), SV, "rxe0", &v, NULL, &o));
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_ENV);
	ck_assert_str_eq(o.co_file, "RPCRDMA_MAX_REQUESTS");
	ck_assert(rpcrdma_conf_lookup(conf, key("source"), CL, NULL, &v, &s, NULL));
	ck_assert_str_eq(s, "10.1.1.1");
	ck_assert_uint_eq(get("busy_poll_us", CL, NULL), 50);
}
END_TEST

/* Every layer over the one below: defaults, file, conf.d, device, env, handle. */
START_TEST(precedence_every_layer)
{
	char main[128], err[256];
	char *envp[] = { "RPCRDMA_MAX_REQUESTS=20", "RPCRDMA_SEND_STRATEGY=mapped", NULL };
	struct rpcrdma_optsrc src;
	struct rpcrdma_options h, out;
	struct rpcrdma_conf_origin o;
	const char *s;
	uint64_t v;

	make_tree();
	snprintf(main, sizeof(main), "%s/rpcrdma.conf", tmpdir);
	rpcrdma_options_init(&h);
	h.ro_max_requests = 30;		/* handle over env */
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, CL, main, true, envp, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "rxe0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_requests, 30);			/* handle */
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_MAPPED);	/* env over device */
	ck_assert_uint_eq(out.ro_max_inline_data, 64);			/* device over conf.d */
	ck_assert_uint_eq(out.ro_mr_cache, 3);				/* conf.d over file */
	ck_assert_uint_eq(out.ro_page_threshold, 100);			/* file over default */
	ck_assert_uint_eq(out.ro_inline_send, 66560);			/* default */
	ck_assert_uint_eq(out.ro_busy_poll_us, 300);
	ck_assert_ptr_null(out.ro_source);
	rpcrdma_optsrc_get(&src, key("max_requests"), "rxe0", RPCRDMA_DRV_OTHER, &v, &s, &o);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_HANDLE);
	rpcrdma_optsrc_get(&src, key("inline_send"), "rxe0", RPCRDMA_DRV_OTHER, &v, &s, &o);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_DEFAULT);
	/* Before the device is known, or on another one: no [device]. */
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_inline_data, 32);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_inline_data, 32);
	rpcrdma_optsrc_fini(&src);

	/* Without the environment and the handle: the layers below show. */
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, CL, main, true, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "rxe0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_requests, 10);
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_PULLUP);	/* device */
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_INLINE);	/* file */
	rpcrdma_optsrc_fini(&src);
	remove_tree();
}
END_TEST

/* A field the program sets to the default value still wins: unset is
 * RPCRDMA_OPT_UNSET, not "equal to the default". */
START_TEST(handle_default_value_wins)
{
	char *envp[] = { "RPCRDMA_SVC_THREADS=4", "RPCRDMA_SEND_STRATEGY=inline", NULL };
	struct rpcrdma_options h, out;
	struct rpcrdma_optsrc src;
	char err[256];

	rpcrdma_options_init(&h);
	ck_assert_uint_eq(h.ro_max_requests, RPCRDMA_OPT_UNSET);
	ck_assert_ptr_null(h.ro_source);
	h.ro_svc_threads = 0;
	h.ro_send_strategy = RPCRDMA_SEND_AUTO;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, SV, NULL, false, envp, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_svc_threads, 0);
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_AUTO);
	rpcrdma_optsrc_fini(&src);
}
END_TEST

/* The built-in defaults are today's (rpcrdma_options_init(3)). */
START_TEST(defaults)
{
	struct rpcrdma_options out;
	struct rpcrdma_optsrc src;
	char err[256];

	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, CL, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_requests, 128);
	ck_assert_uint_eq(out.ro_inline_send, 66560);
	ck_assert_uint_eq(out.ro_inline_recv, 17408);	/* a client's */
	ck_assert_uint_eq(out.ro_signal_every, 8);
	ck_assert_uint_eq(out.ro_page_threshold, 1024);
	ck_assert_uint_eq(out.ro_connect_timeout_ms, 5000);
	ck_assert_uint_eq(out.ro_max_inline_data, 256);
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_AUTO);
	ck_assert_uint_eq(out.ro_inline_cutoff, 256);
	ck_assert_uint_eq(out.ro_mapped_min, 65536);
	ck_assert_uint_eq(out.ro_mr_cache, 0);
	ck_assert_uint_eq(out.ro_busy_poll_us, 300);
	ck_assert_uint_eq(out.ro_svc_threads, 0);
	ck_assert_uint_eq(out.ro_call_timeout_ms, 0);
	ck_assert_uint_eq(out.ro_log_level, RPCRDMA_LOG_WARNING);
	rpcrdma_optsrc_fini(&src);
}
END_TEST

/* A server's own default for inline_recv; any layer that sets it wins. */
START_TEST(role_defaults)
{
	char *envp[] = { "RPCRDMA_INLINE_RECV=8K", NULL };
	struct rpcrdma_conf_origin o;
	struct rpcrdma_options out, h;
	struct rpcrdma_optsrc src;
	const char *s;
	char err[256];
	uint64_t v;
	size_t i;

	for (i = 0; i < rpcrdma_nrole_defaults; i++) {
		size_t k = key(rpcrdma_role_defaults[i].rd_key);

		ck_assert(rpcrdma_keys[k].ck_where & rpcrdma_role_defaults[i].rd_role);
		ck_assert(rpcrdma_role_defaults[i].rd_value >= rpcrdma_keys[k].ck_min);
		ck_assert(rpcrdma_role_defaults[i].rd_value <= rpcrdma_keys[k].ck_max);
	}
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, SV, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_inline_recv, 66560);
	ck_assert_uint_eq(out.ro_inline_send, 66560);
	rpcrdma_optsrc_get(&src, key("inline_recv"), NULL, RPCRDMA_DRV_OTHER, &v, &s, &o);
	ck_assert_uint_eq(v, 66560);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_DEFAULT);
	rpcrdma_optsrc_fini(&src);

	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, SV, NULL, false, envp, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_inline_recv, 8192);	/* environment */
	rpcrdma_optsrc_fini(&src);

	rpcrdma_options_init(&h);
	h.ro_inline_recv = 4096;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, SV, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_inline_recv, 4096);	/* handle */
	rpcrdma_optsrc_fini(&src);
}
END_TEST

/*
 * A driver's built-in default replaces the key's on that driver only,
 * shows as layer DEFAULT with the driver's name, and every layer that
 * sets the key wins over it; every entry names a key a [device] section
 * may set (they apply once the device is known, after buffers are sized).
 */
START_TEST(driver_defaults)
{
	char *envp[] = { "RPCRDMA_SIGNAL_EVERY=5", NULL };
	struct rpcrdma_conf_origin o;
	struct rpcrdma_options h, out;
	struct rpcrdma_optsrc src;
	char err[256], main[512];
	const char *s;
	uint64_t v;
	size_t i, k;

	for (i = 0; i < rpcrdma_ndriver_defaults; i++) {
		k = key(rpcrdma_driver_defaults[i].dd_key);
		ck_assert(rpcrdma_keys[k].ck_where & RPCRDMA_CS_DEVICE);
		ck_assert(rpcrdma_driver_defaults[i].dd_value >= rpcrdma_keys[k].ck_min);
		ck_assert(rpcrdma_driver_defaults[i].dd_value <= rpcrdma_keys[k].ck_max);
	}
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, CL, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_signal_every, 1);
	ck_assert_uint_eq(out.ro_inline_send, 66560);	/* no siw default */
	rpcrdma_optsrc_get(&src, key("signal_every"), "siw0", RPCRDMA_DRV_SIW,
			   &v, &s, &o);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(o.co_layer, RPCRDMA_CL_DEFAULT);
	ck_assert_str_eq(o.co_device, "siw");
	rpcrdma_optsrc_get(&src, key("signal_every"), "rxe0", RPCRDMA_DRV_RXE,
			   &v, &s, &o);
	ck_assert_uint_eq(v, 8);
	ck_assert_ptr_null(o.co_device);
	rpcrdma_optsrc_resolve(&src, "mlx5_0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_signal_every, 8);
	ck_assert_uint_eq(out.ro_busy_poll_us, 300);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_signal_every, 8);
	ck_assert_uint_eq(out.ro_busy_poll_us, 300);
	/* siw's longer spin bound; not rxe's. */
	rpcrdma_optsrc_resolve(&src, "rxe0", RPCRDMA_DRV_RXE, &out);
	ck_assert_uint_eq(out.ro_busy_poll_us, 300);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_busy_poll_us, 2000);
	/* rxe's longer spin for a lone call; nobody else's. */
	ck_assert_uint_eq(out.ro_busy_poll_alone_us, 0);
	rpcrdma_optsrc_resolve(&src, "rxe0", RPCRDMA_DRV_RXE, &out);
	ck_assert_uint_eq(out.ro_busy_poll_alone_us, 3000);
	rpcrdma_optsrc_resolve(&src, "mlx5_0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_busy_poll_alone_us, 0);
	rpcrdma_optsrc_fini(&src);

	/* A file's [global] value, a [device] section, the environment and
	 * the handle each win over siw's default. */
	make_tree();
	snprintf(main, sizeof(main), "%s/only.conf", tmpdir);
	write_file("only.conf", "[global]\nsignal_every = 2\n[device siw1]\n"
		   "signal_every = 3\n");
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, CL, main, true, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_signal_every, 2);
	rpcrdma_optsrc_resolve(&src, "siw1", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_signal_every, 3);
	rpcrdma_optsrc_fini(&src);
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, CL, NULL, false, envp, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_signal_every, 5);
	rpcrdma_optsrc_fini(&src);
	rpcrdma_options_init(&h);
	h.ro_signal_every = 8;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, CL, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "siw0", RPCRDMA_DRV_SIW, &out);
	ck_assert_uint_eq(out.ro_signal_every, 8);
	rpcrdma_optsrc_fini(&src);
	remove_tree();
}
END_TEST

START_TEST(handle_range_checked)
{
	struct rpcrdma_options h;
	struct rpcrdma_optsrc src;
	char err[256];

	rpcrdma_options_init(&h);
	h.ro_max_requests = 0;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, CL, NULL, false, NULL, err,
					     sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "ro_max_requests = 0 (set by the program): out of "
			 "range (accepted: 1 to 1024)");
	rpcrdma_optsrc_fini(&src);

	rpcrdma_options_init(&h);
	h.ro_inline_send = 1500;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, CL, NULL, false, NULL, err,
					     sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "a multiple of 1024"));
	rpcrdma_optsrc_fini(&src);

	rpcrdma_options_init(&h);
	h.ro_send_strategy = 9;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &h, SV, NULL, false, NULL, err,
					     sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "ro_send_strategy = 9 (set by the program): out of "
			 "range (accepted: auto, inline, pullup or mapped)");
	rpcrdma_optsrc_fini(&src);

	/* A bad file fails the handle too, whatever the program set. */
	{
		char *envp[] = { "RPCRDMA_SIGNAL_EVERY=0", NULL };

		ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, CL, NULL, false, envp,
						     err, sizeof(err)), -EINVAL);
		ck_assert_str_eq(err, "1 error in the configuration");
		rpcrdma_optsrc_fini(&src);
	}
}
END_TEST

/* Live changes: only live keys of the role, in range, all or none. */
START_TEST(live_update)
{
	char *envp[] = { "RPCRDMA_SEND_STRATEGY=inline", NULL };
	struct rpcrdma_options live, ch, out;
	struct rpcrdma_optsrc src;
	char err[256];

	memset(&live, 0, sizeof(live));
	live.ro_send_strategy = RPCRDMA_SEND_AUTO;
	live.ro_busy_poll_us = 300;
	rpcrdma_options_init(&ch);
	ch.ro_send_strategy = RPCRDMA_SEND_MAPPED;
	ch.ro_busy_poll_us = 0;
	ck_assert_int_eq(rpcrdma_options_update(&live, &ch, CL, err, sizeof(err)), 0);
	ck_assert_uint_eq(live.ro_send_strategy, RPCRDMA_SEND_MAPPED);
	ck_assert_uint_eq(live.ro_busy_poll_us, 0);

	rpcrdma_options_init(&ch);
	ch.ro_send_strategy = RPCRDMA_SEND_PULLUP;
	ch.ro_max_requests = 8;
	ck_assert_int_eq(rpcrdma_options_update(&live, &ch, CL, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "ro_max_requests cannot change on a live client");
	ck_assert_uint_eq(live.ro_send_strategy, RPCRDMA_SEND_MAPPED);	/* none applied */

	rpcrdma_options_init(&ch);
	ch.ro_send_strategy = RPCRDMA_SEND_PULLUP;
	ch.ro_busy_poll_us = 2000000;
	ck_assert_int_eq(rpcrdma_options_update(&live, &ch, SV, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "ro_busy_poll_us = 2s (set by the program): out of range"));
	ck_assert_uint_eq(live.ro_send_strategy, RPCRDMA_SEND_MAPPED);

	rpcrdma_options_init(&ch);
	ch.ro_svc_threads = 2;
	ck_assert_int_eq(rpcrdma_options_update(&live, &ch, SV, err, sizeof(err)), -EINVAL);

	/* A listener's handle layer: later resolutions see the change. */
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, SV, NULL, false, envp, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "rxe0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_INLINE);
	rpcrdma_options_init(&ch);
	ch.ro_send_strategy = RPCRDMA_SEND_PULLUP;
	ck_assert_int_eq(rpcrdma_optsrc_update(&src, &ch, err, sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, "rxe0", RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_send_strategy, RPCRDMA_SEND_PULLUP);
	rpcrdma_optsrc_fini(&src);
}
END_TEST

START_TEST(suggestions)
{
	ck_assert_str_eq(rpcrdma_conf_suggest(rpcrdma_keys, rpcrdma_nkeys, "max_req"),
			 "max_requests");
	ck_assert_str_eq(rpcrdma_conf_suggest(rpcrdma_keys, rpcrdma_nkeys, "sigal_every"),
			 "signal_every");
	ck_assert_str_eq(rpcrdma_conf_suggest(rpcrdma_keys, rpcrdma_nkeys, "LOGLEVEL"),
			 "log_level");
	ck_assert_ptr_null(rpcrdma_conf_suggest(rpcrdma_keys, rpcrdma_nkeys, "xyz"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("parser");
	TCase *tf = tcase_create("files");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, syntax_forms);
	tcase_add_test(tc, bad_value_sets_nothing);
	tcase_add_test(tc, values);
	tcase_add_test(tc, booleans);
	tcase_add_test(tc, sections_by_specificity);
	tcase_add_test(tc, confd_order);
	tcase_add_test(tc, missing_files);
	tcase_add_test(tc, environment);
	tcase_add_test(tc, suggestions);
	tcase_add_test(tf, errors_with_lines);
	tcase_add_test(tf, unknown_keys_suggested);
	tcase_add_test(tf, precedence_every_layer);
	tcase_add_test(tf, handle_default_value_wins);
	tcase_add_test(tf, defaults);
	tcase_add_test(tf, role_defaults);
	tcase_add_test(tf, driver_defaults);
	tcase_add_test(tf, handle_range_checked);
	tcase_add_test(tf, live_update);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tf);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
