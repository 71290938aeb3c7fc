#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the vlink link server, on this machine, without QEMU.
#
#   tests/server/run.sh SERVER_BIN TEST_BIN
#
# SERVER_BIN: the built vlink-server (make -C qemu/server)
# TEST_BIN:   the built test-server  (make -C tests/server)
# Both land in build/server by default.  This script builds nothing.
#
# Prints exactly one line per case, "PASS server: NAME" or
# "FAIL server: NAME: REASON", and exits 1 when any case failed (2 on a
# usage error).  Each case starts its own server on sockets in a fresh
# mktemp -d directory, waits for its pidfile, runs its checks (mostly with
# fake ivshmem clients in TEST_BIN), stops the server with a signal and
# checks that it exited 0, removed its sockets and pidfile, and logged only
# well-formed lines.  A failed case keeps its directory (server.log) and
# names it in the reason; the others are removed.  The dma-* cases give
# the server two sparse RAM files of RAM_MB MiB in that directory, as the
# rig gives it the guests' (*.ram, removed after the case, even a failed
# one: they are large).

set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 SERVER_BIN TEST_BIN" >&2
	exit 2
fi
SERVER=$1
TEST=$2
for bin in "$SERVER" "$TEST"; do
	if [ ! -x "$bin" ]; then
		echo "$0: $bin: not an executable (build it first)" >&2
		exit 2
	fi
done

TIMEOUT=5		# seconds for a server to get ready or to exit
TEST_TIMEOUT=60		# seconds for one run of TEST_BIN (it bounds its waits)
RAM_MB=256		# the guests' RAM: the engine's region is at 192 MiB
failed=0
started=()		# servers this script started and has not reaped yet
CUR_DIR=""		# the directory of the case in progress

# shellcheck disable=SC2317  # reached through the trap
cleanup() {
	local pid

	# Only our own children, by PID: never anything else on the machine.
	for pid in "${started[@]}"; do
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	# A case cut short by a signal has no result: nothing to keep.
	if [ -n "$CUR_DIR" ]; then
		rm -rf "$CUR_DIR"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

new_dir() {
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/vlink-server-test.XXXXXX") || exit 1
	CUR_DIR=$DIR
}

# make_rams DIR: the guests' RAM files, sparse, as the rig makes them.
make_rams() {
	truncate -s "${RAM_MB}M" "$1/ep.ram" "$1/rc.ram"
}

# Whatever happens, one line per case.
report() {
	local name=$1 reason=$2 dir=$3

	rm -f "$dir"/*.ram
	if [ -z "$reason" ]; then
		echo "PASS server: $name"
		rm -rf "$dir"
	else
		echo "FAIL server: $name: $reason (files in $dir)"
		failed=1
	fi
	CUR_DIR=""
}

# start_server DIR [ARGS...]: the standard command line, or ARGS; sets SRV.
# With CONTROL=1, the standard command line has a control socket too; with
# DMA=1, the guests' RAM files (made here), hence a DMA engine, whose rings
# are in DMA_REGION if set (the test program is told it too).
start_server() {
	local dir=$1

	shift
	if [ $# -eq 0 ]; then
		set -- --ep "$dir/ep.sock" --rc "$dir/rc.sock" \
			--monitor "$dir/monitor.sock" --pidfile "$dir/server.pid"
		if [ "${CONTROL:-0}" = 1 ]; then
			set -- "$@" --control "$dir/control.sock"
		fi
		if [ "${DMA:-0}" = 1 ]; then
			make_rams "$dir"
			set -- "$@" --ep-ram "$dir/ep.ram" \
				--rc-ram "$dir/rc.ram" --ram-mb "$RAM_MB"
			if [ -n "${DMA_REGION:-}" ]; then
				set -- "$@" --dma-region "$DMA_REGION"
			fi
		fi
	fi
	"$SERVER" "$@" </dev/null >>"$dir/server.log" 2>&1 &
	SRV=$!
	started+=("$SRV")
}

# reap PID: its exit status, and forget it.
reap() {
	local pid=$1 rc keep=() p

	wait "$pid"
	rc=$?
	for p in "${started[@]}"; do
		[ "$p" != "$pid" ] && keep+=("$p")
	done
	started=("${keep[@]}")
	return $rc
}

# abort_server PID: a server that never got ready, if still ours.
abort_server() {
	local p

	for p in "${started[@]}"; do
		if [ "$p" = "$1" ]; then
			kill -KILL "$1" 2>/dev/null
			reap "$1"
		fi
	done
}

# wait_ready PIDFILE PID: the server writes its pidfile once it listens.
wait_ready() {
	local pidfile=$1 pid=$2 i rc

	for ((i = 0; i < TIMEOUT * 20; i++)); do
		if [ -s "$pidfile" ]; then
			[ "$(cat "$pidfile")" = "$pid" ] && return 0
			REASON="pidfile $pidfile holds '$(cat "$pidfile")', not the server's pid $pid"
			return 1
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			reap "$pid"
			rc=$?
			REASON="server exited with status $rc before writing its pidfile $pidfile"
			return 1
		fi
		sleep 0.05
	done
	REASON="timed out after ${TIMEOUT}s waiting for the server to write its pidfile $pidfile"
	return 1
}

# stop_server PID SIG: SIG is TERM, INT, or none (already signalled).
stop_server() {
	local pid=$1 sig=$2 i rc

	if [ "$sig" != none ]; then
		kill -"$sig" "$pid" 2>/dev/null
	fi
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		reap "$pid"
		REASON="server still running ${TIMEOUT}s after SIG$sig (killed)"
		return 1
	fi
	reap "$pid"
	rc=$?
	if [ $rc -ne 0 ]; then
		REASON="server exited with status $rc after SIG$sig"
		return 1
	fi
}

# check_gone DIR FILE...: the server removed what it created.
check_gone() {
	local dir=$1 f

	shift
	for f in "$@"; do
		if [ -e "$dir/$f" ] || [ -L "$dir/$f" ]; then
			REASON="$f left behind"
			return 1
		fi
	done
}

check_log() {
	local log=$1 bad

	bad=$(grep -Ev '^\[ *[0-9]+\.[0-9]{6}\] vlink-server: ' "$log" | head -n 1)
	if [ -n "$bad" ]; then
		REASON="log line not in the expected format: $bad"
		return 1
	fi
}

# run_test CASE DIR: one case of TEST_BIN; its first output line on failure.
run_test() {
	local out rc

	out=$(VLINK_TEST_DMA_REGION=${DMA_REGION:-0} \
		timeout "$TEST_TIMEOUT" "$TEST" "$1" "$2" 2>&1)
	rc=$?
	[ $rc -eq 0 ] && return 0
	out=${out%%$'\n'*}
	if [ $rc -eq 124 ]; then
		REASON="test program timed out after ${TEST_TIMEOUT}s${out:+: $out}"
	else
		REASON=${out:-test program exited with status $rc}
	fi
	return 1
}

# server_case NAME SIG TESTCASE: TESTCASE "-" runs no test program.
server_case() {
	local name=$1 sig=$2 tcase=$3 dir reason="" engine="no DMA engine: "

	if [ "${DMA:-0}" = 1 ]; then
		engine="dma engine: [0-9]* rings, ep RAM .*/ep.ram ($RAM_MB MiB), rc RAM .*/rc.ram, region ${DMA_REGION:-0} at "
	fi
	new_dir
	dir=$DIR
	start_server "$dir"
	if ! wait_ready "$dir/server.pid" "$SRV"; then
		report "$name" "$REASON" "$dir"
		abort_server "$SRV"
		return
	fi
	if [ "$tcase" != - ] && ! run_test "$tcase" "$dir"; then
		reason=$REASON
		# The test may have failed before it signalled the server.
		[ "$sig" = none ] && sig=TERM
	fi
	if ! stop_server "$SRV" "$sig"; then
		reason=${reason:-$REASON}
	elif ! check_gone "$dir" ep.sock rc.sock monitor.sock server.pid \
			server.pid.tmp control.sock; then
		reason=${reason:-$REASON}
	elif ! check_log "$dir/server.log"; then
		reason=${reason:-$REASON}
	elif [ "$sig" != none ] &&
	     ! grep -q "got SIG$sig" "$dir/server.log"; then
		reason=${reason:-"no 'got SIG$sig' in the server log"}
	elif ! grep -q "$engine" "$dir/server.log"; then
		reason=${reason:-"no '$engine' in the server log"}
	fi
	report "$name" "$reason" "$dir"
}

# exits_2 DESC ARGS...: the server exits with status 2, writes nothing on
# stdout and leaves nothing behind; what it said is in $DIR/err.
exits_2() {
	local desc=$1 rc

	shift
	timeout "$TIMEOUT" "$SERVER" "$@" </dev/null >"$DIR/out" 2>"$DIR/err"
	rc=$?
	if [ $rc -ne 2 ]; then
		REASON="$desc: exit status $rc, expected 2"
		return 1
	fi
	if [ -s "$DIR/out" ]; then
		REASON="$desc: wrote to stdout"
		return 1
	fi
	check_gone "$DIR" ep.sock rc.sock server.pid || {
		REASON="$desc: $REASON"
		return 1
	}
}

# expect_usage DESC ARGS...: a usage error, status 2, usage on stderr.
expect_usage() {
	exits_2 "$@" || return 1
	if ! grep -q '^usage: vlink-server' "$DIR/err"; then
		REASON="$1: no usage text on stderr"
		return 1
	fi
}

case_bad_args() {
	local d

	new_dir
	d=$DIR
	if expect_usage "no arguments" &&
	   expect_usage "unknown option" --bogus --ep "$d/ep.sock" \
		--rc "$d/rc.sock" &&
	   expect_usage "missing --rc" --ep "$d/ep.sock" \
		--pidfile "$d/server.pid" &&
	   expect_usage "-e without its value" --rc "$d/rc.sock" -e &&
	   expect_usage "stray argument" -e "$d/ep.sock" -r "$d/rc.sock" extra &&
	   expect_usage "same socket twice" -e "$d/ep.sock" -r "$d/ep.sock" &&
	   expect_usage "--control on the rc socket" -e "$d/ep.sock" \
		-r "$d/rc.sock" --control "$d/rc.sock" &&
	   expect_usage "--control without its value" -e "$d/ep.sock" \
		-r "$d/rc.sock" --control; then
		report bad-args "" "$d"
	else
		report bad-args "$REASON" "$d"
	fi
}

case_help() {
	local d rc reason=""

	new_dir
	d=$DIR
	timeout "$TIMEOUT" "$SERVER" --help </dev/null >"$d/out" 2>"$d/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		reason="--help: exit status $rc, expected 0"
	elif ! grep -q '^usage: vlink-server' "$d/out"; then
		reason="--help: no usage text on stdout"
	elif ! "$SERVER" -h 2>/dev/null | grep -q -- '--monitor'; then
		reason="-h: no usage text on stdout"
	fi
	report help "$reason" "$d"
}

# start_fails NAME DESC ARGS...: the server must refuse, and say WHY.
start_fails() {
	local desc=$1 rc

	shift
	timeout "$TIMEOUT" "$SERVER" "$@" </dev/null >"$DIR/out" 2>"$DIR/err"
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
		REASON="$desc: exit status $rc, expected a failure"
		return 1
	fi
}

case_missing_dir() {
	local d reason=""

	new_dir
	d=$DIR
	if ! start_fails "socket in a missing directory" --ep "$d/ep.sock" \
			--rc "$d/missing/rc.sock" --pidfile "$d/server.pid"; then
		reason=$REASON
	elif ! grep -q "$d/missing/rc.sock.*No such file or directory" \
			"$d/err"; then
		reason="no message naming $d/missing/rc.sock and the error: $(head -n 1 "$d/err")"
	elif ! check_gone "$d" ep.sock server.pid; then
		reason="after failing: $REASON"
	fi
	report missing-dir "$reason" "$d"
}

case_not_a_socket() {
	local d reason=""

	new_dir
	d=$DIR
	echo precious >"$d/rc.sock"
	if ! start_fails "regular file at --rc" --ep "$d/ep.sock" \
			--rc "$d/rc.sock" --pidfile "$d/server.pid"; then
		reason=$REASON
	elif ! grep -q "$d/rc.sock.*not a socket" "$d/err"; then
		reason="no 'not a socket' message: $(head -n 1 "$d/err")"
	elif [ "$(cat "$d/rc.sock")" != precious ]; then
		reason="the regular file was replaced"
	elif ! check_gone "$d" ep.sock server.pid; then
		reason="after failing: $REASON"
	fi
	report not-a-socket "$reason" "$d"
}

case_stale_socket() {
	local d reason=""

	new_dir
	d=$DIR
	if ! "$TEST" mkstale "$d/ep.sock" >"$d/out" 2>&1 || [ ! -S "$d/ep.sock" ]
	then
		report stale-socket "cannot make a stale socket: $(head -n 1 "$d/out")" "$d"
		return
	fi
	start_server "$d"
	if ! wait_ready "$d/server.pid" "$SRV"; then
		report stale-socket "$REASON" "$d"
		abort_server "$SRV"
		return
	fi
	if ! grep -q "stale" "$d/server.log"; then
		reason="no 'stale' in the server log"
	elif ! run_test handshake "$d"; then
		reason="on the reused socket: $REASON"
	fi
	if ! stop_server "$SRV" TERM || ! check_gone "$d" ep.sock rc.sock \
			monitor.sock server.pid; then
		reason=${reason:-$REASON}
	fi
	report stale-socket "$reason" "$d"
}

case_socket_in_use() {
	local d reason=""

	new_dir
	d=$DIR
	start_server "$d"
	if ! wait_ready "$d/server.pid" "$SRV"; then
		report socket-in-use "$REASON" "$d"
		abort_server "$SRV"
		return
	fi
	if ! start_fails "second server on a live --ep" --ep "$d/ep.sock" \
			--rc "$d/rc2.sock" --pidfile "$d/second.pid"; then
		reason=$REASON
	elif ! grep -q "$d/ep.sock.*already listening" "$d/err"; then
		reason="no 'already listening' message: $(head -n 1 "$d/err")"
	elif [ ! -S "$d/ep.sock" ]; then
		reason="the second server removed the first one's socket"
	elif ! check_gone "$d" rc2.sock second.pid; then
		reason="second server: $REASON"
	# The second server's probe was a (short) ep connection: connects[ep]
	# moved on, so check with a case that does not count connections.
	elif ! run_test two-peers "$d"; then
		reason="first server after the second one: $REASON"
	fi
	if ! stop_server "$SRV" TERM || ! check_gone "$d" ep.sock rc.sock \
			monitor.sock server.pid; then
		reason=${reason:-$REASON}
	fi
	report socket-in-use "$reason" "$d"
}

# dma_fails DESC PATTERN ARGS...: exit status 2, a message matching
# PATTERN on stderr, no usage text (the command line is well formed), and
# nothing left behind.
dma_fails() {
	local desc=$1 pattern=$2 d=$DIR

	shift 2
	exits_2 "$desc" --ep "$d/ep.sock" --rc "$d/rc.sock" \
		--pidfile "$d/server.pid" "$@" || return 1
	if ! grep -q -- "$pattern" "$d/err"; then
		REASON="$desc: no message matching '$pattern': $(head -n 1 "$d/err")"
		return 1
	fi
	if grep -q '^usage: ' "$d/err"; then
		REASON="$desc: usage text for a well-formed command line"
		return 1
	fi
}

# The engine's options: all three or none, N a number of MiB.
case_dma_bad_args() {
	local d

	new_dir
	d=$DIR
	make_rams "$d"
	if expect_usage "--ep-ram alone" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" &&
	   expect_usage "no --ram-mb" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" &&
	   expect_usage "--ram-mb alone" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ram-mb "$RAM_MB" &&
	   expect_usage "--ram-mb 0" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" --ram-mb 0 &&
	   expect_usage "--ram-mb 25x" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" --ram-mb 25x &&
	   expect_usage "--ram-mb -256" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" --ram-mb -256 &&
	   expect_usage "--ram-mb 2^64" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" \
		--ram-mb 18446744073709551616 &&
	   expect_usage "--ram-mb without its value" -e "$d/ep.sock" \
		-r "$d/rc.sock" --ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" \
		--ram-mb &&
	   expect_usage "--dma-region 4" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" --ram-mb "$RAM_MB" \
		--dma-region 4 &&
	   expect_usage "--dma-region 01" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" --ram-mb "$RAM_MB" \
		--dma-region 01 &&
	   expect_usage "--dma-region -1" -e "$d/ep.sock" -r "$d/rc.sock" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/rc.ram" --ram-mb "$RAM_MB" \
		--dma-region -1 &&
	   expect_usage "--dma-region without the engine" -e "$d/ep.sock" \
		-r "$d/rc.sock" --dma-region 1; then
		report dma-bad-args "" "$d"
	else
		report dma-bad-args "$REASON" "$d"
	fi
}

# RAM files the server cannot use: refused at once, saying which and why.
case_dma_bad_ram() {
	local d

	new_dir
	d=$DIR
	make_rams "$d"
	truncate -s "$((RAM_MB - 1))M" "$d/small.ram"
	truncate -s "$((RAM_MB + 1))M" "$d/large.ram"
	mkdir "$d/ramdir"
	if dma_fails "rc RAM 1 MiB short" "rc RAM $d/small.ram: .*expected $RAM_MB MiB" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/small.ram" --ram-mb "$RAM_MB" &&
	   dma_fails "ep RAM 1 MiB over" "ep RAM $d/large.ram: .*expected $RAM_MB MiB" \
		--ep-ram "$d/large.ram" --rc-ram "$d/rc.ram" --ram-mb "$RAM_MB" &&
	   dma_fails "a missing RAM file" "ep RAM $d/missing.ram: .*No such file" \
		--ep-ram "$d/missing.ram" --rc-ram "$d/rc.ram" --ram-mb "$RAM_MB" &&
	   dma_fails "a directory" "rc RAM $d/ramdir: .*directory" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/ramdir" --ram-mb "$RAM_MB" &&
	   dma_fails "the same file twice" "same file" \
		--ep-ram "$d/ep.ram" --rc-ram "$d/./ep.ram" --ram-mb "$RAM_MB" &&
	   dma_fails "--ram-mb below the DMA region" "--ram-mb 192: too small" \
		--ep-ram "$d/small.ram" --rc-ram "$d/large.ram" --ram-mb 192
	then
		report dma-bad-ram "" "$d"
	else
		report dma-bad-ram "$REASON" "$d"
	fi
}

server_case handshake TERM handshake
server_case two-peers TERM two-peers
server_case link-up TERM link-up
server_case link-down TERM link-down
server_case reconnect TERM reconnect
server_case duplicate-role TERM duplicate-role
case_bad_args
case_help
case_missing_dir
case_not_a_socket
case_stale_socket
case_socket_in_use
server_case sigint INT -
server_case sigterm TERM -
server_case sigterm-with-clients none sigterm-clients
server_case garbage TERM garbage
server_case monitor TERM monitor
# Fault injection: doorbells through the server, a control socket.
CONTROL=1 server_case fault-handshake TERM handshake
CONTROL=1 server_case fault-reconnect TERM reconnect
CONTROL=1 server_case fault-forward TERM fault-forward
CONTROL=1 server_case fault-drop TERM fault-drop
CONTROL=1 server_case fault-delay TERM fault-delay
CONTROL=1 server_case fault-down TERM fault-down
CONTROL=1 server_case fault-bad-commands TERM fault-bad-commands
CONTROL=1 server_case fault-sigterm-with-clients none sigterm-clients
# The DMA engine: the guests' RAM files.
case_dma_bad_args
case_dma_bad_ram
DMA=1 server_case dma-handshake TERM dma-handshake
DMA=1 CONTROL=1 server_case dma-fault-handshake TERM dma-handshake
DMA=1 server_case dma-rings TERM dma-rings
DMA=1 server_case dma-copy TERM dma-copy
# The rings of an endpoint's second link: only where the server was told.
DMA=1 DMA_REGION=1 server_case dma-copy-region-1 TERM dma-copy
DMA=1 server_case dma-bad TERM dma-bad
DMA=1 server_case dma-overrun TERM dma-overrun
DMA=1 CONTROL=1 server_case dma-no-peer TERM dma-no-peer
DMA=1 server_case dma-abort TERM dma-abort
DMA=1 CONTROL=1 server_case dma-stall TERM dma-stall
DMA=1 server_case dma-stats TERM dma-stats
DMA=1 server_case dma-slice TERM dma-slice
DMA=1 server_case dma-sigint INT -
DMA=1 server_case dma-sigterm-busy none dma-sigterm

exit $failed
