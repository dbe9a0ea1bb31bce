# SPDX-License-Identifier: GPL-2.0
# host-memcache.sh - sgclient --proto memcache on the host against Debian's
# memcached as scripts/setup unpacked it (run through the package's own
# loader and libraries, never installed): the key space filled, every
# multi-get answered with all its values, a ramp, misses counted as errors,
# an answer that is not memcached's (ERROR) dropping the connection with a
# clear error, and the option errors.  Skips without the unpacked package.
. "$SG_TOP/selftests/lib/ktap.sh"
. "$SG_TOP/selftests/workload/common.sh"

B=$SG_BUILD/selftests
SRV=${CACHE:-$SG_TOP/.cache}/servers/root
LD=$SRV/lib64/ld-linux-x86-64.so.2
[ -x "$B/sgclient" ] || ktap_skip_all "$B/sgclient not built (make tools)"
[ -x "$SRV/usr/bin/memcached" ] && [ -e "$LD" ] ||
	ktap_skip_all "no memcached in $SRV (scripts/setup unpacks it)"
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
# the loader is an absolute symlink into the package's tree: resolve it there
LD=$SRV$(readlink "$LD")

# a free port: the kernel's pick, released at once
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$LD" --library-path "$SRV/lib/x86_64-linux-gnu:$SRV/usr/lib/x86_64-linux-gnu" \
	"$SRV/usr/bin/memcached" -u root -l 127.0.0.1 -p "$PORT" -U 0 -t 2 2> mc.err &
MPID=$!
sg_defer "kill $MPID 2>/dev/null; wait $MPID 2>/dev/null"


ktap_plan 9
for i in $(seq 1 20); do
	"$B/sgclient" -p "$PORT" --proto memcache --fill 64 > fill.out 2> fill.err && break
	sleep 0.25
done
ktap_check 'grep -qx "fill ok 1000" fill.out' \
	"--fill stores the 1000 keys ($(cat fill.out fill.err mc.err | head -c 200))"

"$B/sgclient" -p "$PORT" --proto memcache --mget 50 -r 300 -d 1 -S 4 -j > get.json 2> get.err
ktap_note "$(cat get.json get.err)"
ktap_check 'jtest get.json "o.sent > 200 and o.received == o.sent and o.errors == 0 and 0 < o.p50_us <= o.p99_us"' \
	"every multi-get of 50 keys answered with 50 values, timed"

"$B/sgclient" -p "$PORT" --proto memcache --mget 10 --ramp 100,400:0.5 --by-rate -j > ramp.json 2>/dev/null
ktap_check 'jtest ramp.json "[x.get(\"step\") for x in objs[:2]] == [0, 1] and all(x.received == x.sent > 0 and x.errors == 0 for x in objs[:2]) and objs[3].by_rate == 400"' \
	"a ramp with --by-rate in memcache mode"

# keys 1000-1999 were never stored: nearly every 20-key get misses one
"$B/sgclient" -p "$PORT" --proto memcache --mget 20 --keyspace 2000 -r 100 -d 1 -j > miss.json 2>/dev/null
ktap_check 'jtest miss.json "o.received == o.sent > 0 and o.errors >= o.received * 0.9"' \
	"an answer without every key asked counts as an error ($(head -c 150 miss.json))"

# a server that answers ERROR to anything: not memcached's answer to a get
python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(8); print(s.getsockname()[1], flush=True)
s.settimeout(10)
try:
	while True:
		c, _ = s.accept(); c.settimeout(5)
		try:
			while c.recv(4096): c.sendall(b"ERROR\r\n")
		except OSError: pass
except OSError: pass' > err.port &
EPID=$!
sg_defer "kill $EPID 2>/dev/null"
for i in $(seq 1 20); do [ -s err.port ] && break; sleep 0.1; done
EPORT=$(cat err.port)
"$B/sgclient" -p "$EPORT" --proto memcache -r 50 -d 0.5 -c 1 -g 0.5 -j > bad.json 2> bad.err
rc=$?
ktap_check '[ $rc = 1 ] && grep -q "memcached answered .ERROR.: dropping the connection" bad.err && jtest bad.json "o.errors > 0"' \
	"an ERROR answer drops the connection: an error, exit 1 ($(head -c 150 bad.err))"
"$B/sgclient" -p "$EPORT" --proto memcache --fill 8 > /dev/null 2> badfill.err
rc=$?
ktap_check '[ $rc = 1 ] && grep -q "fill: memcached answered .ERROR. to set sg000000" badfill.err' \
	"--fill refuses an answer other than STORED, named ($(head -c 100 badfill.err))"

ktap_check '"$B/sgclient" -p "$PORT" --mget 3 -r 1 -d 1 2>&1; [ $? -eq 2 ]' \
	"--mget without --proto memcache: exit 2"
ktap_check '"$B/sgclient" -p "$PORT" --proto memcache --frag 3 2>&1; [ $? -eq 2 ] &&
	"$B/sgclient" -p "$PORT" --proto memcache -s 10 -r 1 -d 1 2>&1; [ $? -eq 2 ]' \
	"--frag and -s are sgserver's: exit 2 with --proto memcache"
ktap_check 'for a in "--proto http" "--proto memcache --mget 0" "--proto memcache --mget 1001" "--proto memcache --fill 0" "--proto memcache --keyspace 0"; do
	"$B/sgclient" -p "$PORT" $a -r 1 -d 1 2>/dev/null; [ $? -eq 2 ] || exit 1; done' \
	"bad --proto, --mget, --fill, --keyspace: exit 2"
ktap_finished
