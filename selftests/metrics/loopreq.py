# SPDX-License-Identifier: GPL-2.0
# loopreq.py - what pipeline.py and reuse.py share: fixed-size requests and
# answers over loopback TCP.
import socket
import sys

MSG = 32		# bytes per request and per answer

def recv_n(s, n):
	"""Read exactly n bytes; a connection closed before them ends the script."""
	b = b""
	while len(b) < n:
		c = s.recv(n - len(b))
		if not c:
			sys.exit("%s: connection closed" % sys.argv[0])
		b += c
	return b

def listen_loopback():
	"""A listening socket on a free loopback port, the port printed first."""
	ls = socket.socket()
	ls.bind(("127.0.0.1", 0))
	ls.listen(1)
	print(ls.getsockname()[1], flush=True)
	return ls
