#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# proto.py - byte streams whose requests the BPF side's parsers must count
# exactly, for host-proto.sh.  "server" accepts connections; per connection
# a reader thread reads each step's bytes and hands them to a worker thread,
# which answers with one send (so every request is read by one thread and
# answered by another); "server PROTO" serves PROTO's steps (no greeting: a
# connection's first bytes are its protocol's, as --proto auto wants them);
# "client PORT PROTO" plays them, each as
# chunks sent apart (so they arrive in separate segments and reads), waits
# for the answer, and prints the requests it sent.  Step delays in the
# server (DELAY_S) give a latency to check.  With --tls (server: CERT KEY)
# the same bytes go over TLS (Python's ssl: OpenSSL's SSL_read_ex and
# SSL_write_ex), answered by the reader thread (an SSL object is not for
# two threads at once).
import queue
import socket
import ssl
import sys
import threading
import time

GAP_S = 0.003		# between the chunks of a step: separate reads
DELAY_S = 0.02		# the worker's wait before it answers

def resp(*args):
	out = b"*%d\r\n" % len(args)
	for a in args:
		out += b"$%d\r\n%s\r\n" % (len(a), a)
	return out

def h2frame(ftype, flags, sid, payload=b""):
	return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + sid.to_bytes(4, "big") + payload

GET = resp(b"GET", b"key:000000000001")
BIG = resp(b"SET", b"big", b"*2\r\n$3\r\nGET\r\n" * 400)	# 5 kB value that looks like requests
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
HDR = bytes(range(0x82, 0x88)) * 5			# an HPACK-looking block
POST_BODY = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 3

# PROTO -> steps; a step is (chunks, requests in it)
STEPS = {
	"resp": [
		([GET * 8], 8),					# pipelined, one read
		([GET[:7], GET[7:20], GET[20:] + GET[:3], GET[3:]], 2),	# cut mid-token
		([b"PING\r\n"], 1),				# inline
		([BIG[:3000], BIG[3000:] + GET], 2),		# a payload past the 2 KiB chunk
	],
	"memcache": [
		([b"get a b c\r\n" * 3], 3),			# a multi-get is one request
		([b"set k 0 0 12\r\nget x\r\n\r\n12\r\n", b"get k\r\n"], 2),	# data looks like a get
		([b"ge", b"t kk\r", b"\nms k 7 T0\r\nget y\r\n\r\n"], 2),	# meta set, cut lines
	],
	"http1": [
		([b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 3], 3),		# pipelined
		([b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(POST_BODY) +
		  POST_BODY], 1),					# a body that looks like requests
		([b"GET /a HTTP/1.1\r\nHo", b"st: x\r\nconTent-length: 4\r", b"\n\r\nabcd"], 1),
	],
	"http2": [
		([PREFACE + h2frame(4, 0, 0, b"\0" * 6) + h2frame(1, 5, 1, HDR)], 1),
		([h2frame(1, 4, 3, HDR) + h2frame(0, 0, 3, b"x" * 100) +
		  h2frame(1, 5, 3, HDR) + h2frame(1, 5, 5, HDR)], 2),	# trailers: no new stream
		([h2frame(1, 5, 7, HDR)[:4], h2frame(1, 5, 7, HDR)[4:] + h2frame(8, 0, 0, b"\0\0\0\1")], 1),
	],
	"conn": [
		([b"first part ", b"second part ", b"end"], 1),	# one request in three reads
		([b"another"], 1),
	],
}

def server(proto, tls):
	ctx = None
	if tls:
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
		ctx.load_cert_chain(tls[0], tls[1])
	ls = socket.socket()
	ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	ls.bind(("127.0.0.1", 0))
	ls.listen(8)
	print(ls.getsockname()[1], flush=True)
	while True:
		c, _ = ls.accept()
		c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
		if ctx:
			c = ctx.wrap_socket(c, server_side=True)
		threading.Thread(target=serve, args=(c, proto, ctx is not None), daemon=True).start()

def serve(c, proto, tls):
	q = queue.Queue()
	if not tls:
		threading.Thread(target=worker, args=(c, q), daemon=True).start()
	for chunks, _ in STEPS[proto]:
		want, got = sum(len(x) for x in chunks), 0
		while got < want:
			b = c.recv(65536)
			if not b:
				return
			got += len(b)
		if tls:
			time.sleep(DELAY_S)
			c.sendall(b"done\n")
		else:
			q.put(1)

def worker(c, q):
	while True:
		q.get()
		time.sleep(DELAY_S)
		c.sendall(b"done\n")

def recv_line(s):
	b = b""
	while not b.endswith(b"\n"):
		x = s.recv(64)
		if not x:
			sys.exit("proto.py: connection closed")
		b += x
	return b

def client(port, proto, tls):
	s = socket.create_connection(("127.0.0.1", port))
	s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	if tls:
		ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
		ctx.check_hostname = False
		ctx.verify_mode = ssl.CERT_NONE
		s = ctx.wrap_socket(s)
	n = 0
	for chunks, reqs in STEPS[proto]:
		for i, x in enumerate(chunks):
			if i:
				time.sleep(GAP_S)
			s.sendall(x)
		recv_line(s)
		n += reqs
	s.close()
	print(n)

if sys.argv[1] == "server":
	server(sys.argv[2], sys.argv[4:6] if sys.argv[3:4] == ["--tls"] else None)
else:
	client(int(sys.argv[2]), sys.argv[3], sys.argv[4:5] == ["--tls"])
