/*
 * Unit test: the size-prefixed public structs (abi.c, rpcrdma(7) ABI).  An
 * old program's shorter struct, with canary bytes after it, is neither
 * overrun nor misread; fields past its size count as unset when options
 * are resolved; a size below 0.1's is refused.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "options.h"

#define CANARY	0xa5
#define SLACK	64

#define CL RPCRDMA_CS_CLIENT
#define SV RPCRDMA_CS_SERVER

/* Bytes [from, to) of p all CANARY. */
static void assert_canary(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;
	size_t i;

	for (i = from; i < to; i++)
		ck_assert_msg(b[i] == CANARY, "byte %zu overwritten: 0x%02x", i, b[i]);
}

/*
 * A growable struct as two releases declare it: what an old program was
 * built with (v1), and what a later library knows (v2, appended).
 */
struct v1 {
	uint32_t size;
	uint32_t a;
	uint64_t b;
};
struct v2 {
	uint32_t size;
	uint32_t a;
	uint64_t b;
	uint64_t c;		/* appended */
	uint32_t d;		/* appended */
};
#define V2_KNOWN (offsetof(struct v2, d) + sizeof(uint32_t))

/* Out, old program, new library: the prefix right, nothing past it. */
START_TEST(out_old_program_prefix)
{
	unsigned char buf[sizeof(struct v1) + SLACK] __attribute__((aligned(16)));
	struct v2 lib = { sizeof(struct v2), 7, 8, 9, 10 };
	struct v1 *prog = (struct v1 *)buf;

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_abi_out(prog, sizeof(struct v1), &lib, V2_KNOWN,
					 sizeof(struct v1), 0), 0);
	ck_assert_uint_eq(prog->a, 7);
	ck_assert_uint_eq(prog->b, 8);
	assert_canary(buf, sizeof(struct v1), sizeof(buf));
}
END_TEST

/* Out, new program, old library: what the library does not know is
 * filled with `unset`, and still nothing past the program's size. */
START_TEST(out_new_program_tail)
{
	unsigned char buf[sizeof(struct v2) + SLACK] __attribute__((aligned(16)));
	struct v1 lib = { sizeof(struct v1), 7, 8 };
	struct v2 *prog = (struct v2 *)buf;

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_abi_out(prog, sizeof(struct v2), &lib,
					 sizeof(struct v1), sizeof(struct v1), 0), 0);
	ck_assert_uint_eq(prog->a, 7);
	ck_assert_uint_eq(prog->b, 8);
	ck_assert_uint_eq(prog->c, 0);
	ck_assert_uint_eq(prog->d, 0);
	assert_canary(buf, sizeof(struct v2), sizeof(buf));
}
END_TEST

/* In, old program, new library: the library's fields past the program's
 * size keep their unset value, whatever bytes follow the program's struct. */
START_TEST(in_old_program_unset)
{
	unsigned char buf[sizeof(struct v1) + SLACK] __attribute__((aligned(16)));
	struct v1 *prog = (struct v1 *)buf;
	struct v2 lib;

	memset(buf, CANARY, sizeof(buf));
	*prog = (struct v1){ sizeof(struct v1), 7, 8 };
	memset(&lib, 0xff, sizeof(lib));
	ck_assert_int_eq(rpcrdma_abi_in(&lib, V2_KNOWN, prog, prog->size,
					sizeof(struct v1), 0xff), 0);
	ck_assert_uint_eq(lib.a, 7);
	ck_assert_uint_eq(lib.b, 8);
	ck_assert_uint_eq(lib.c, UINT64_MAX);
	ck_assert_uint_eq(lib.d, UINT32_MAX);
}
END_TEST

/* In, new program, old library: refused when it sets a field the library
 * does not know, taken when it leaves them unset. */
START_TEST(in_new_program_unknown_set)
{
	struct v2 prog;
	struct v1 lib;

	/* As an init function makes it: all ones, padding included. */
	memset(&prog, 0xff, sizeof(prog));
	prog.size = sizeof(struct v2);
	prog.a = 7;
	prog.b = 8;
	memset(&lib, 0xff, sizeof(lib));
	ck_assert_int_eq(rpcrdma_abi_in(&lib, sizeof(struct v1), &prog, prog.size,
					sizeof(struct v1), 0xff), 0);
	ck_assert_uint_eq(lib.a, 7);
	ck_assert_uint_eq(lib.b, 8);
	prog.d = 5;
	ck_assert_int_eq(rpcrdma_abi_in(&lib, sizeof(struct v1), &prog, prog.size,
					sizeof(struct v1), 0xff), -EINVAL);
}
END_TEST

/* A size below the first release's: refused, nothing read or written. */
START_TEST(too_small_refused)
{
	unsigned char buf[sizeof(struct v2) + SLACK] __attribute__((aligned(16)));
	struct v2 lib = { sizeof(struct v2), 7, 8, 9, 10 }, copy = lib;

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_abi_out(buf, sizeof(struct v1) - 1, &lib, V2_KNOWN,
					 sizeof(struct v1), 0), -EINVAL);
	ck_assert_int_eq(rpcrdma_abi_out(buf, 0, &lib, V2_KNOWN,
					 sizeof(struct v1), 0), -EINVAL);
	assert_canary(buf, 0, sizeof(buf));
	ck_assert_int_eq(rpcrdma_abi_in(&lib, V2_KNOWN, buf, sizeof(struct v1) - 1,
					sizeof(struct v1), 0xff), -EINVAL);
	ck_assert_mem_eq(&lib, &copy, sizeof(lib));
}
END_TEST

/* ---- the real structs ---------------------------------------------------- */

/* The stats copy of clnt_control(RPCRDMA_CLGET_STATS) and
 * svc_rdma_get_stats(): exactly rs_size bytes written. */
START_TEST(stats_export)
{
	unsigned char buf[sizeof(struct rpcrdma_stats) + SLACK] __attribute__((aligned(16)));
	struct rpcrdma_stats lib, *prog = (struct rpcrdma_stats *)buf;
	uint64_t *w = (uint64_t *)&lib;
	size_t i;

	for (i = 0; i < sizeof(lib) / sizeof(*w); i++)
		w[i] = 1000 + i;
	/* The first release's size: the whole 0.1 struct, no byte more. */
	memset(buf, CANARY, sizeof(buf));
	prog->rs_size = RPCRDMA_STATS_SIZE_0_1;
	ck_assert_int_eq(rpcrdma_stats_export(prog, &lib), 0);
	ck_assert_uint_eq(prog->rs_size, RPCRDMA_STATS_SIZE_0_1);
	ck_assert_uint_eq(prog->rs_lib_size, sizeof(struct rpcrdma_stats));
	ck_assert_uint_eq(prog->rs_calls, lib.rs_calls);
	ck_assert_uint_eq(prog->rs_reply_too_large, lib.rs_reply_too_large);
	ck_assert_mem_eq((char *)prog + 8, (char *)&lib + 8,
			 RPCRDMA_STATS_SIZE_0_1 - 8);
	assert_canary(buf, RPCRDMA_STATS_SIZE_0_1, sizeof(buf));

	/* A newer program: counters this library lacks read 0. */
	memset(buf, CANARY, sizeof(buf));
	prog->rs_size = sizeof(struct rpcrdma_stats) + 24;
	ck_assert_int_eq(rpcrdma_stats_export(prog, &lib), 0);
	ck_assert_uint_eq(prog->rs_size, sizeof(struct rpcrdma_stats) + 24);
	for (i = sizeof(struct rpcrdma_stats); i < sizeof(struct rpcrdma_stats) + 24; i++)
		ck_assert_uint_eq(buf[i], 0);
	assert_canary(buf, sizeof(struct rpcrdma_stats) + 24, sizeof(buf));

	/* Not set (a program that forgot RPCRDMA_STATS_INIT), or too small. */
	memset(buf, CANARY, sizeof(buf));
	prog->rs_size = 0;
	ck_assert_int_eq(rpcrdma_stats_export(prog, &lib), -EINVAL);
	assert_canary(buf, sizeof(prog->rs_size), sizeof(buf));
	prog->rs_size = RPCRDMA_STATS_SIZE_0_1 - 8;
	ck_assert_int_eq(rpcrdma_stats_export(prog, &lib), -EINVAL);
	assert_canary(buf, sizeof(prog->rs_size), sizeof(buf));
}
END_TEST

/* RPCRDMA_STATS_INIT states the size the program's header knows. */
START_TEST(stats_init_macro)
{
	struct rpcrdma_stats s = RPCRDMA_STATS_INIT;

	ck_assert_uint_eq(s.rs_size, sizeof(s));
	ck_assert_uint_eq(s.rs_calls, 0);
	ck_assert_uint_ge(sizeof(s), RPCRDMA_STATS_SIZE_0_1);
}
END_TEST

/* rpcrdma_options_init(): exactly the size it is given, every field unset. */
START_TEST(options_init)
{
	unsigned char buf[sizeof(struct rpcrdma_options) + SLACK] __attribute__((aligned(16)));
	struct rpcrdma_options *o = (struct rpcrdma_options *)buf;
	struct rpcrdma_options whole;

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_options_init_size(o, RPCRDMA_OPTIONS_SIZE_0_1), 0);
	ck_assert_uint_eq(o->ro_size, RPCRDMA_OPTIONS_SIZE_0_1);
	ck_assert_uint_eq(o->ro_max_requests, RPCRDMA_OPT_UNSET);
	ck_assert_uint_eq(o->ro_drc_size, RPCRDMA_OPT_UNSET);
	ck_assert_ptr_null(o->ro_source);
	assert_canary(buf, RPCRDMA_OPTIONS_SIZE_0_1, sizeof(buf));

	/* The macro passes the header's sizeof. */
	ck_assert_int_eq(rpcrdma_options_init(&whole), 0);
	ck_assert_uint_eq(whole.ro_size, sizeof(whole));

	/* Too small, or no struct: -1, EINVAL, nothing written. */
	memset(buf, CANARY, sizeof(buf));
	errno = 0;
	ck_assert_int_eq(rpcrdma_options_init_size(o, RPCRDMA_OPTIONS_SIZE_0_1 - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	assert_canary(buf, 0, sizeof(buf));
	errno = 0;
	ck_assert_int_eq(rpcrdma_options_init_size(NULL, sizeof(whole)), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* The options copy of RPCRDMA_CLGET_OPTIONS and svc_rdma_get_options(). */
START_TEST(options_export)
{
	unsigned char buf[sizeof(struct rpcrdma_options) + SLACK] __attribute__((aligned(16)));
	struct rpcrdma_options *prog = (struct rpcrdma_options *)buf;
	struct rpcrdma_options lib;
	size_t i;

	rpcrdma_options_init(&lib);
	lib.ro_max_requests = 32;
	lib.ro_drc_size = 99;
	memset(buf, CANARY, sizeof(buf));
	prog->ro_size = RPCRDMA_OPTIONS_SIZE_0_1;
	ck_assert_int_eq(rpcrdma_options_export(prog, &lib), 0);
	ck_assert_uint_eq(prog->ro_size, RPCRDMA_OPTIONS_SIZE_0_1);
	ck_assert_uint_eq(prog->ro_max_requests, 32);
	ck_assert_uint_eq(prog->ro_drc_size, 99);
	assert_canary(buf, RPCRDMA_OPTIONS_SIZE_0_1, sizeof(buf));

	/* A newer program: options this library lacks read unset. */
	memset(buf, CANARY, sizeof(buf));
	prog->ro_size = sizeof(struct rpcrdma_options) + 16;
	ck_assert_int_eq(rpcrdma_options_export(prog, &lib), 0);
	for (i = RPCRDMA_OPTIONS_KNOWN; i < sizeof(struct rpcrdma_options) + 16; i++)
		ck_assert_uint_eq(buf[i], 0xff);
	assert_canary(buf, sizeof(struct rpcrdma_options) + 16, sizeof(buf));

	memset(buf, CANARY, sizeof(buf));
	prog->ro_size = 0;
	ck_assert_int_eq(rpcrdma_options_export(prog, &lib), -EINVAL);
	assert_canary(buf, sizeof(prog->ro_size), sizeof(buf));
}
END_TEST

/*
 * The set and create paths at the options-resolution level: what
 * clnt_rdma_create, svc_rdma_create (rpcrdma_optsrc_init) and
 * RPCRDMA_CLSET_OPTIONS, svc_rdma_set_options (rpcrdma_options_update,
 * rpcrdma_optsrc_update) read of the program's struct.
 */
START_TEST(options_import_sizes)
{
	unsigned char buf[sizeof(struct rpcrdma_options) + SLACK] __attribute__((aligned(16)));
	struct rpcrdma_options *prog = (struct rpcrdma_options *)buf;
	struct rpcrdma_options live, out, before;
	struct rpcrdma_optsrc src;
	char err[256];

	/* Exactly 0.1's size, canary bytes after it: they are not read. */
	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_options_init_size(prog, RPCRDMA_OPTIONS_SIZE_0_1), 0);
	prog->ro_max_requests = 16;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, prog, CL, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_requests, 16);
	rpcrdma_optsrc_fini(&src);

	/* A newer program's longer struct, its extra fields unset: taken. */
	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_options_init_size(prog, sizeof(buf)), 0);
	prog->ro_max_requests = 16;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, prog, CL, NULL, false, NULL, err,
					     sizeof(err)), 0);
	rpcrdma_optsrc_fini(&src);
	/* ... one of them set: refused, it would be silently ignored. */
	buf[sizeof(buf) - 1] = 0;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, prog, CL, NULL, false, NULL, err,
					     sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "this librpcrdma knows is set"), "err: %s", err);
	rpcrdma_optsrc_fini(&src);

	/* Not made by rpcrdma_options_init(): refused at creation ... */
	memset(buf, 0, sizeof(buf));
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, prog, SV, NULL, false, NULL, err,
					     sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "ro_size = 0, below"), "err: %s", err);
	rpcrdma_optsrc_fini(&src);

	/* ... and on a live handle, which stays as it was. */
	rpcrdma_options_init(&live);
	live.ro_send_strategy = RPCRDMA_SEND_INLINE;
	before = live;
	prog->ro_size = RPCRDMA_OPTIONS_SIZE_0_1 - 4;
	prog->ro_send_strategy = RPCRDMA_SEND_PULLUP;
	ck_assert_int_eq(rpcrdma_options_update(&live, prog, CL, err, sizeof(err)),
			 -EINVAL);
	ck_assert_mem_eq(&live, &before, sizeof(live));
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, NULL, SV, NULL, false, NULL, err,
					     sizeof(err)), 0);
	ck_assert_int_eq(rpcrdma_optsrc_update(&src, prog, err, sizeof(err)), -EINVAL);
	rpcrdma_optsrc_fini(&src);

	/* The right size: the same change is taken. */
	ck_assert_int_eq(rpcrdma_options_init_size(prog, RPCRDMA_OPTIONS_SIZE_0_1), 0);
	prog->ro_send_strategy = RPCRDMA_SEND_PULLUP;
	ck_assert_int_eq(rpcrdma_options_update(&live, prog, CL, err, sizeof(err)), 0);
	ck_assert_uint_eq(live.ro_send_strategy, RPCRDMA_SEND_PULLUP);
}
END_TEST

/*
 * An old program against a later library, resolved: the program knew the
 * fields up to ro_svc_stall_ms, the library also ro_drc_size.  The edge
 * (rpcrdma_abi_in, as rpcrdma_options_import calls it) leaves ro_drc_size
 * unset, whatever the bytes after the program's struct, so resolution
 * takes it from the environment, not from those bytes.
 */
/*
 * The fields appended after 0.1 (send_buffer, busy_poll_alone_us,
 * reply_windows) are this library's own: set in a program's struct of
 * today's size they are taken, not refused as a newer program's, and
 * they come back out.
 */
START_TEST(options_past_0_1_known)
{
	struct rpcrdma_options prog, out, back;
	struct rpcrdma_optsrc src;
	char err[256];

	rpcrdma_options_init(&prog);
	prog.ro_send_buffer = 8192;
	prog.ro_busy_poll_alone_us = 70;
	prog.ro_reply_windows = 9;
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &prog, CL, NULL, false, NULL,
					     err, sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_send_buffer, 8192);
	ck_assert_uint_eq(out.ro_busy_poll_alone_us, 70);
	ck_assert_uint_eq(out.ro_reply_windows, 9);
	rpcrdma_optsrc_fini(&src);
	rpcrdma_options_init(&back);
	ck_assert_int_eq(rpcrdma_options_export(&back, &out), 0);
	ck_assert_uint_eq(back.ro_send_buffer, 8192);
	ck_assert_uint_eq(back.ro_reply_windows, 9);
}
END_TEST

START_TEST(old_program_resolved)
{
	unsigned char buf[sizeof(struct rpcrdma_options) + SLACK] __attribute__((aligned(16)));
	struct rpcrdma_options *prog = (struct rpcrdma_options *)buf;
	size_t old = offsetof(struct rpcrdma_options, ro_drc_size);
	char *envp[] = { "RPCRDMA_DRC_SIZE=77", NULL };
	struct rpcrdma_options whole, out;
	struct rpcrdma_optsrc src;
	char err[256];

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(rpcrdma_options_init_size(prog, sizeof(*prog)), 0);
	prog->ro_size = (uint32_t)old;
	prog->ro_max_requests = 16;
	memset(buf + old, CANARY, sizeof(buf) - old);	/* not the program's */
	rpcrdma_options_init(&whole);
	ck_assert_int_eq(rpcrdma_abi_in(&whole, RPCRDMA_OPTIONS_KNOWN, prog,
					prog->ro_size, old, 0xff), 0);
	ck_assert_uint_eq(whole.ro_drc_size, RPCRDMA_OPT_UNSET);
	whole.ro_size = sizeof(whole);		/* now the library's whole struct */
	ck_assert_int_eq(rpcrdma_optsrc_init(&src, &whole, SV, NULL, false, envp,
					     err, sizeof(err)), 0);
	rpcrdma_optsrc_resolve(&src, NULL, RPCRDMA_DRV_OTHER, &out);
	ck_assert_uint_eq(out.ro_max_requests, 16);
	ck_assert_uint_eq(out.ro_drc_size, 77);
	rpcrdma_optsrc_fini(&src);
}
END_TEST

/* RPCRDMA_CLSET_REPLY_HINT and clnt_rdma_set_result_buf() check sizes. */
START_TEST(hint_and_result_buf)
{
	struct {
		struct rpcrdma_reply_hint rh;
		uint32_t next;
	} h = { { sizeof(struct rpcrdma_reply_hint), 1, 100 }, 0 };
	struct {
		struct rpcrdma_result_buf rb;
		uint64_t next;
	} r;

	ck_assert_int_eq(rpcrdma_reply_hint_check(&h.rh), 0);
	h.rh.rh_size = sizeof(h);			/* a newer program's, unset */
	ck_assert_int_eq(rpcrdma_reply_hint_check(&h.rh), 0);
	h.next = 1;					/* ... set */
	ck_assert_int_eq(rpcrdma_reply_hint_check(&h.rh), -EINVAL);
	h.rh.rh_size = 0;
	ck_assert_int_eq(rpcrdma_reply_hint_check(&h.rh), -EINVAL);
	h.rh.rh_size = RPCRDMA_REPLY_HINT_SIZE_0_1 - 1;
	ck_assert_int_eq(rpcrdma_reply_hint_check(&h.rh), -EINVAL);

	memset(&r, 0, sizeof(r));
	r.rb.rb_size = sizeof(r.rb);
	ck_assert_int_eq(rpcrdma_result_buf_check(&r.rb), 0);
	r.rb.rb_size = sizeof(r);
	ck_assert_int_eq(rpcrdma_result_buf_check(&r.rb), 0);
	r.next = 1;
	ck_assert_int_eq(rpcrdma_result_buf_check(&r.rb), -EINVAL);
	r.rb.rb_size = RPCRDMA_RESULT_BUF_SIZE_0_1 - 1;
	ck_assert_int_eq(rpcrdma_result_buf_check(&r.rb), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abi");
	TCase *tg = tcase_create("edge");
	TCase *tr = tcase_create("structs");
	SRunner *sr;
	int failed;

	tcase_add_test(tg, out_old_program_prefix);
	tcase_add_test(tg, out_new_program_tail);
	tcase_add_test(tg, in_old_program_unset);
	tcase_add_test(tg, in_new_program_unknown_set);
	tcase_add_test(tg, too_small_refused);
	tcase_add_test(tr, stats_export);
	tcase_add_test(tr, stats_init_macro);
	tcase_add_test(tr, options_init);
	tcase_add_test(tr, options_export);
	tcase_add_test(tr, options_import_sizes);
	tcase_add_test(tr, options_past_0_1_known);
	tcase_add_test(tr, old_program_resolved);
	tcase_add_test(tr, hint_and_result_buf);
	suite_add_tcase(s, tg);
	suite_add_tcase(s, tr);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
