#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# reuse.py - a request left unanswered, then a new connection on the same
# fd number, for host-metrics.sh: "server" reads connection A's request,
# and after A's client reset it, fails to answer (the send returns
# ECONNRESET) and closes A; HOLD_S later it accepts B, which gets A's fd
# number, reads its request and answers it at once.  It prints the port,
# then "fds A B unanswered 1" (0: A's answer went out before the reset).
# "client PORT" prints the latency it saw for B's request, in microseconds.
import socket
import struct
import sys
import time

from loopreq import MSG, listen_loopback, recv_n

HOLD_S = 1.0		# A's unanswered read to B's request: what a stale
			# arrival would add to B's latency

if sys.argv[1] == "server":
	ls = listen_loopback()
	a, _ = ls.accept()
	fa = a.fileno()
	recv_n(a, MSG)
	time.sleep(0.2)			# the client resets A meanwhile
	sent = 0
	try:
		sent = a.send(b"a" * MSG)
	except OSError:
		pass
	a.close()
	b, _ = ls.accept()
	fb = b.fileno()
	recv_n(b, MSG)
	b.send(b"b" * MSG)
	b.recv(1)
	print("fds", fa, fb, "unanswered", 0 if sent else 1, flush=True)
else:
	port = int(sys.argv[2])
	a = socket.create_connection(("127.0.0.1", port))
	a.sendall(b"q" * MSG)
	time.sleep(0.1)			# the server has read it
	a.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
	a.close()			# RST
	time.sleep(HOLD_S)
	b = socket.create_connection(("127.0.0.1", port))
	b.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	t = time.monotonic()
	b.sendall(b"r" * MSG)
	recv_n(b, MSG)
	print(int((time.monotonic() - t) * 1e6))
	b.close()
