#!/usr/bin/env python3
# Writes the fuzz targets' seed corpora (fuzz/corpus/TARGET/seed-*): one
# small well-formed input per shape each decoder or planner knows, plus a
# few near misses.  The files are committed; rerun after changing a
# target's input format:  python3 fuzz/gen-corpus.py [fuzz/corpus]
# Regression inputs (crash-*, found by fuzzing) live beside the seeds and
# are never rewritten here.
import os
import struct
import sys

top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")


def u32(*v):
    return b"".join(struct.pack(">I", x & 0xFFFFFFFF) for x in v)


def seg(handle, length, offset):
    return u32(handle, length) + struct.pack(">Q", offset)


def read_list(*entries):  # (position, handle, length, offset)
    return b"".join(u32(1, p) + seg(h, l, o) for p, h, l, o in entries) + u32(0)


def write_list(*chunks):  # each a list of (handle, length, offset)
    return b"".join(u32(1, len(c)) + b"".join(seg(*s) for s in c) for c in chunks) + u32(0)


def reply_chunk(c):
    return u32(0) if c is None else u32(1, len(c)) + b"".join(seg(*s) for s in c)


def hdr(proc, reads=(), writes=(), reply=None, xid=0x1234, vers=1, credits=32):
    return u32(xid, vers, credits, proc) + read_list(*reads) + write_list(*writes) + reply_chunk(reply)


def rpc_call(xid=0x1234, prog=0x20000099, vers=1, proc=1, cred=b"", flavor=0, body=b""):
    pad = b"\0" * (-len(cred) % 4)
    return u32(xid, 0, 2, prog, vers, proc, flavor, len(cred)) + cred + pad + u32(0, 0) + body


def auth_sys():
    name = b"fuzzhost"
    return u32(1, len(name)) + name + u32(1000, 1000, 2, 1000, 27)


MSG, NOMSG, ERROR = 0, 1, 4
call = rpc_call()
call_sys = rpc_call(flavor=1, cred=auth_sys())
opaque = u32(100) + bytes(range(100))

def gss_cred(proc=0, seq=1, svc=2, handle=b"\x5e\xed\xc0\xde"):
    pad = b"\0" * (-len(handle) % 4)
    return u32(1, proc, seq, svc, len(handle)) + handle + pad


def gss_call(proc=0, seq=1, svc=2, handle=b"\x5e\xed\xc0\xde", body=b""):
    cred = gss_cred(proc, seq, svc, handle)
    verf = u32(6, 16) + bytes(range(16)) if proc == 0 else u32(0, 0)
    return u32(0x1234, 0, 2, 100003, 3, 1, 6, len(cred)) + cred + verf + body


corpora = {
    "hdr": {
        "msg-inline": hdr(MSG) + call,
        "msg-empty": hdr(MSG),
        "msg-read1": hdr(MSG, reads=[(40, 7, 100, 0x10000)]) + call,
        "msg-read3": hdr(MSG, reads=[(44, 1, 64, 0x1000), (44, 2, 64, 0x2000), (200, 3, 8, 0x3000)]),
        "msg-write2": hdr(MSG, writes=[[(1, 4096, 0x1000), (2, 4096, 0x2000)], [(3, 512, 0x4000)]]) + call,
        "msg-reply": hdr(MSG, reply=[(9, 65536, 0x90000)]) + call,
        "msg-all": hdr(MSG, reads=[(40, 1, 100, 0x1000)], writes=[[(2, 8192, 0x2000)]],
                       reply=[(3, 4096, 0x3000), (4, 4096, 0x4000)]) + call,
        "nomsg-long": hdr(NOMSG, reads=[(0, 1, 2048, 0x1000), (0, 2, 100, 0x2000)]),
        "nomsg-reply": hdr(NOMSG, reply=[(5, 8192, 0x5000)]),
        "err-vers": u32(0x1234, 1, 0, ERROR, 1, 1, 1),
        "err-chunk": u32(0x1234, 1, 0, ERROR, 2),
        "vers2": u32(0x1234, 2, 32, MSG, 0, 0, 0),
        "short": u32(0x1234, 1),
        "msgp": u32(0x1234, 1, 32, 2, 0, 0, 0, 0, 0),
        "bad-bool": u32(0x1234, 1, 32, MSG, 2, 0, 0),
        "chunk-count-huge": u32(0x1234, 1, 32, MSG, 0, 1, 0xFFFFFFFF, 0, 0),
    },
    # An RPC Call alone (its credential read by the codec and by libtirpc).
    "gss": {
        "data-none": gss_call(svc=1, body=u32(4, 1)),
        "data-integ": gss_call(svc=2, body=u32(12, 0, 1, 2) + u32(4) + bytes(4)),
        "data-priv": gss_call(svc=3, body=u32(8) + bytes(8)),
        "init": gss_call(proc=1, seq=0, svc=1, handle=b"", body=u32(8) + bytes(8)),
        "destroy": gss_call(proc=3, seq=9, svc=2),
        "svc4": gss_call(svc=4),
        "short-cred": u32(0x1234, 0, 2, 100003, 3, 1, 6, 12, 1, 0, 1, 0, 0),
        "authsys": call_sys,
        "reply": u32(0x1234, 1, 0, 0, 0, 0, 0),
        "truncated": gss_call(svc=2)[:44],
    },
    "privdata": {
        "v1-4k": bytes.fromhex("f6ab0e18") + bytes([1, 1, 3, 3]),
        "v1-max": bytes.fromhex("f6ab0e18") + bytes([1, 0, 255, 255]) + u32(0x1000, 0x40000) + b"\1",
        "v1-padded": bytes.fromhex("f6ab0e18") + bytes([1, 0xfe, 0, 31]) + b"\0" * 48,
        "bad-magic": bytes.fromhex("f6ab0e19") + bytes([1, 1, 3, 3]),
        "v2": bytes.fromhex("f6ab0e18") + bytes([2, 1, 3, 3]),
        "short": bytes.fromhex("f6ab0e18") + bytes([1, 1, 3]),
    },
    # mode 0: limits (peer_inline u16, hdr_base/4, max_rsegs, max_call?, force),
    # then scratch_len u16, threshold u16, xid, ops (kind, len u16, base, u32).
    "plan": {
        "call-inline": bytes([0]) + struct.pack(">HBBBB", 4096, 0, 16, 0, 0) +
        struct.pack(">HH", 4096, 1024) + u32(1) + bytes([0, 0, 0, 0]) + u32(7) * 2,
        "call-readch": bytes([0]) + struct.pack(">HBBBB", 1024, 0, 16, 0, 0) +
        struct.pack(">HH", 4096, 256) + u32(1) +
        bytes([0, 0, 4, 1]) + u32(9) + bytes([2, 0x04, 0x01, 3]) + u32(0) +
        bytes([0, 0, 4, 0]) + u32(5) + bytes([1, 0x03, 0x01, 9]) + u32(0),
        "call-long": bytes([0]) + struct.pack(">HBBBB", 512, 0, 16, 0, 2) +
        struct.pack(">HH", 4096, 0) + u32(1) + bytes([2, 0x07, 0xd0, 1]) + u32(0),
        "call-read-force": bytes([0]) + struct.pack(">HBBBB", 8192, 2, 1, 1, 1) + bytes([0, 0x40, 0]) +
        struct.pack(">HH", 2048, 100) + u32(1) + bytes([2, 0, 200, 5]) + u32(0),
        "reply-auto": bytes([1, 0]) + struct.pack(">H", 8000) + bytes([0, 0x10, 0, 0, 0x10, 0, 0]),
        "reply-always": bytes([1, 1]) + u32(0xFFFFFFFF) + bytes([0, 0, 0, 0, 0x04, 0, 1]),
        "chunks-fill": bytes([2, 3]) + bytes([1, 0, 0x10, 0, 0, 0x10, 0]) * 3 + bytes([1, 0, 100]) +
        bytes([0, 1, 0, 5, 0]),
        "chunks-wrap": bytes([2, 1, 9, 1]) + u32(0x100) + bytes([1]) + u32(0xFFFFFFFF, 0xFFFFFF80) +
        bytes([0]) + u32(0) + bytes([2, 1, 2]),
    },
    "conf": {
        "global": b"\0[global]\nmax_requests = 64\ninline_send = 8K\nbusy_poll_us = 1ms\n"
        b"send_strategy = mapped # comment\n",
        "sections": b"\1[client]\nconnect_timeout_ms = 2s\ncall_timeout_ms = 1m\nsource = \"10.0.0.1\"\n"
        b"reply_chunks = never\n[server]\nsvc_threads = 4\n[device rxe0]\ninline_cutoff = 512\n"
        b"mapped_min = 1M\n[device \"siw0\"]\npage_threshold = 0\n",
        "errors": b"\0[global\nmax_request = 1\ninline_send = 1000\nfoo\n[device]\n[client] x\n"
        b"svc_threads = 4\n[client]\nsvc_threads = 1\nlog_level = loud\nmax_reply =\n",
        "env": b"\2RPCRDMA_MAX_REQUESTS=16\nRPCRDMA_INLINE_RECV=64K\nRPCRDMA_LOG_LEVEL=debug\n"
        b"RPCRDMA_BUSY_POLL_US=2s\nRPCRDMA_CONF=/x\nRPCRDMA_SOURCE=host\n",
    },
    "svc_recv": {
        "msg-null": hdr(MSG) + call,
        "msg-authsys": hdr(MSG) + call_sys,
        "msg-readch": hdr(MSG, reads=[(40, 1, 100, 0x1000)]) + call + u32(100),
        "msg-readch-tail": hdr(MSG, reads=[(44, 1, 99, 0x1000)]) + call + u32(99) + u32(5),
        "nomsg-long": hdr(NOMSG, reads=[(0, 1, 40, 0x1000), (0, 2, 100, 0x2000)]),
        # The fuzz target's Reads read the received bytes at se_offset: each
        # segment brings its own handle word, so together they are a NULL Call.
        "nomsg-call-from-reads": hdr(NOMSG, reads=[(0, w, 4, 16 + 24 * i + 8) for i, w in
                                                   enumerate([0x1234, 0, 2, 0x20000099, 1, 0, 0, 0, 0, 0])]),
        "msg-writes": hdr(MSG, writes=[[(1, 4096, 0x1000)]], reply=[(2, 1 << 20, 0x2000)]) + call + opaque,
        "wrap": hdr(MSG, writes=[[(1, 4096, 0xFFFFFFFFFFFFFF00)]]) + call,
        "too-big": hdr(NOMSG, reads=[(0, 1, 0x7FFFFFFF, 0x1000)]),
        "not-call": hdr(MSG) + u32(0x1234, 1, 0, 0, 0, 0, 0),
        "err": u32(0x1234, 1, 0, ERROR, 2),
        "vers": u32(0x1234, 7, 0, 0),
        "short": b"\x12\x34",
    },
}

for target, seeds in corpora.items():
    d = os.path.join(top, target)
    os.makedirs(d, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(d, "seed-" + name), "wb") as f:
            f.write(data)
