#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# pipeline.py - requests that wait in the socket behind each other, for
# host-metrics.sh: "server" answers WARM requests one at a time (the BPF
# side learns the request size from reads it saw arrive), sleeps HOLD_S while
# the client sends three more GAP_S apart, reads them in one recv and
# answers each with a send of its own; "client PORT" prints the latency it
# saw for each of the three, in microseconds, and their sum.
import socket
import sys
import time

from loopreq import MSG, listen_loopback, recv_n

GAP_S = 0.04
WARM = 2
HOLD_S = 0.15

if sys.argv[1] == "server":
	ls = listen_loopback()
	c, _ = ls.accept()
	c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	for i in range(WARM):
		recv_n(c, MSG)
		c.sendall(b"w" * MSG)
	time.sleep(HOLD_S)
	got = c.recv(4096)		# the three at once
	recv_n(c, 3 * MSG - len(got))	# (none left: recv_n(c, 0) reads nothing)
	for i in range(3):
		c.send(b"a" * MSG)
	c.recv(1)
else:
	s = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
	s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	for i in range(WARM):
		s.sendall(b"q" * MSG)
		recv_n(s, MSG)
	sent = []
	for i in range(3):
		if i:
			time.sleep(GAP_S)
		sent.append(time.monotonic())
		s.sendall(b"r" * MSG)
	lat = []
	for i in range(3):
		recv_n(s, MSG)
		lat.append(int((time.monotonic() - sent[i]) * 1e6))
	print(" ".join(str(x) for x in lat), sum(lat))
