#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rddp's trace events (kmod/trace.h, Documentation/tracing.md) through
# tracefs: every event is there; rping -V over rddp0 leaves the connection
# setup's steps in order on each side with their MPA fields, the moves to
# RTS, its WQEs and completions; without CRC, a 65000-octet Write
# completes on TCP's ACK (zero copy); a peer that shuts its window parks TX
# until it reads again. The hostile peer (tests/verbs/hostile_test.cc): an
# FPDU with a bad CRC gives the CRC error with the QP's number, then the
# Terminate (LLP, code 0x02) and the QP's move to ERROR, in that order; a
# Send on an invalid QN a Terminate with the copied header; a Terminate
# from the peer, a Request with a bad key and, from rping, a refused
# connection give theirs.
set -u
. "$(dirname "$0")/lib.sh"

ip=198.51.100.1
tr=/sys/kernel/tracing
hostile=/rddp/build/cmake/tests/verbs/rddp_hostile
rddpctl=/rddp/build/cmake/userspace/rddpctl/rddpctl
log=/tmp/trace.txt

events="rddp_cm_listen rddp_cm_request rddp_cm_connect rddp_mpa_send
	rddp_mpa_recv rddp_mpa_error rddp_cm_accept rddp_cm_reject
	rddp_cm_established rddp_cm_fail rddp_qp_state rddp_qp_error
	rddp_term_send rddp_term_recv rddp_tx_park rddp_tx_resume
	rddp_zcopy_ack rddp_sq_wqe rddp_rq_wqe rddp_cqe"

# in_order FILE REGEX...: each REGEX (ERE) matches a line after the line
# the previous one matched; prints the lines matched, or what was missing.
in_order() {
	local file=$1 from=1 re n
	shift
	for re in "$@"; do
		n=$(tail -n +"$from" "$file" | grep -En -m1 -- "$re" | cut -d: -f1)
		if [ -z "$n" ]; then
			echo "missing after line $from: /$re/"
			return 1
		fi
		from=$((from + n))
		sed -n "$((from - 1))p" "$file"
	done
}

# field LINE NAME: NAME's value in a trace line (NAME=VALUE)
field() { grep -Eo "(^| )$2=[^ ]+" <<<"$1" | head -1 | cut -d= -f2; }

# The trace so far into $log, and a fresh buffer for the next part.
trace_take() {
	cat "$tr/trace" >"$log"
	echo >"$tr/trace"
	cp "$log" "$RDDP_RESULTS/trace-$1.txt"
}

# hostile NAME FILTER: the hostile peer's cases whose name has FILTER,
# then the trace of their run in $log.
hostile() {
	local out rc
	out=$(timeout 120 "$hostile" $ip "$2" 2>&1)
	rc=$?
	t_relay "$1" <<<"$out"
	t_run "$1: the peer program exits 0" test "$rc" -eq 0
	trace_take "$1"
}

rping_pair() { # SIZE
	local before spid rc
	before=" $(_t_listeners | tr '\n' ' ') "
	rping_run 120 -s -a $ip -C 2 -S "$1" -V -p 7174 >/tmp/rs.log 2>&1 &
	spid=$!
	t_listening "$before" $spid
	rping_run 60 -c -a $ip -C 2 -S "$1" -V -v -p 7174 >/tmp/rc.log 2>&1
	rc=$?
	wait "$spid" || rc=1
	[ "$rc" -eq 0 ] && [ "$(grep -c '^ping data: ' /tmp/rc.log)" -eq 2 ]
}

t_mounted $tr || mount -t tracefs nodev $tr
t_run "tracefs mounted on $tr" t_mounted $tr
t_run "modprobe rddp" modprobe rddp
for e in $events; do
	t_run "tracefs has rddp:$e" test -e "$tr/events/rddp/$e/format"
done
t_like "rddp_term_send's format has the Terminate's fields" \
	'field:u8 layer;.*field:u8 etype;.*field:u8 ecode;.*field:u32 qn;.*field:u32 msn;' \
	sh -c "tr '\n' ' ' <$tr/events/rddp/rddp_term_send/format"
setup_dummy
t_run "rdma link add rddp0" rdma link add rddp0 type rddp netdev dummy0
echo 4096 >"$tr/buffer_size_kb"
echo >"$tr/trace"
t_run "enable the rddp events" sh -c "echo 1 >$tr/events/rddp/enable"

# ---- connection setup, WQEs and completions: rping with CRC ----
t_run "rping -V 2 x 100 B" rping_pair 100
trace_take rping
srv=$(grep -m1 'rddp_mpa_recv: .*type=Request' "$log")
cli=$(grep -m1 'rddp_cm_connect: ' "$log")
scep=$(field "$srv" cep)
ccep=$(field "$cli" cep)
sqpn=$(field "$(grep -m1 "rddp_cm_established: cep=$scep " "$log")" qpn)
cqpn=$(field "$cli" qpn)
t_run "rping: server and client QPs known ($sqpn, $cqpn)" \
	test -n "$sqpn" -a -n "$cqpn" -a "$sqpn" != "$cqpn"
t_run "rping: setup in order across both sides" in_order "$log" \
	"rddp_cm_listen: cep=[^ ]+ addr=$ip:7174\$" \
	"rddp_cm_connect: cep=$ccep qpn=$cqpn addr=$ip:7174 ird=1 ord=1 " \
	"rddp_mpa_send: cep=$ccep type=Request rev=2 m=0 c=1 r=0 enhanced=1 p2p=1 rtr=WRITE\|READ ird=1 ord=1 " \
	"rddp_mpa_recv: cep=$scep type=Request rev=2 m=0 c=1 r=0 enhanced=1 p2p=1 rtr=WRITE\|READ ird=1 ord=1 " \
	"rddp_cm_accept: cep=$scep qpn=$sqpn " \
	"rddp_mpa_send: cep=$scep type=Reply rev=2 m=0 c=1 r=0 enhanced=1 p2p=1 rtr=WRITE ird=1 ord=1 " \
	"rddp_mpa_recv: cep=$ccep type=Reply rev=2 m=0 c=1 r=0 enhanced=1 p2p=1 rtr=WRITE " \
	"rddp_qp_state: qpn=$cqpn (INIT|RTR) -> RTS\$" \
	"rddp_cm_established: cep=$ccep qpn=$cqpn active=1 rev=2 crc=1 markers_tx=0 markers_rx=0 rtr=WRITE ird=1 ord=1\$"
t_run "rping: the server's side in order" in_order "$log" \
	"rddp_cm_request: cep=$scep addr=$ip:[0-9]+\$" \
	"rddp_mpa_recv: cep=$scep type=Request" \
	"rddp_cm_accept: cep=$scep qpn=$sqpn ird=1 ord=1 " \
	"rddp_mpa_send: cep=$scep type=Reply" \
	"rddp_qp_state: qpn=$sqpn (INIT|RTR) -> RTS\$" \
	"rddp_cm_established: cep=$scep qpn=$sqpn active=0 rev=2 crc=1 markers_tx=0 markers_rx=0 rtr=WRITE ird=1 ord=1\$"
# rping's client Sends its buffer's address to the server, which Reads
# from and Writes to it (100 octets each), and both go to ERROR at the end.
t_run "rping: the client's Send, taken, received and completed" in_order "$log" \
	"rddp_sq_wqe: qpn=$cqpn id=[^ ]+ opcode=SEND flags=[^ ]+ num_sge=1 length=16\$" \
	"rddp_rq_wqe: qpn=$sqpn id=[^ ]+ num_sge=1 length=16\$" \
	"rddp_cqe: cq=[0-9]+ qpn=$sqpn id=[^ ]+ opcode=RECEIVE status=0 bytes=16\$"
t_run "rping: the server's Read and Write of 100 octets complete" in_order "$log" \
	"rddp_sq_wqe: qpn=$sqpn id=[^ ]+ opcode=READ .*length=100\$" \
	"rddp_cqe: cq=[0-9]+ qpn=$sqpn id=[^ ]+ opcode=READ status=0 bytes=100\$" \
	"rddp_sq_wqe: qpn=$sqpn id=[^ ]+ opcode=WRITE .*length=100\$" \
	"rddp_cqe: cq=[0-9]+ qpn=$sqpn id=[^ ]+ opcode=WRITE status=0 bytes=100\$"
for q in $sqpn $cqpn; do
	t_run "rping: QP $q leaves RTS after its setup" in_order "$log" \
		"rddp_cm_established: cep=[^ ]+ qpn=$q " "rddp_qp_state: qpn=$q RTS -> ERROR\$"
done
# errors 0 and 1 ("none", "TCP connection lost") are ends, not errors
t_like "rping: no error, Terminate, failure or TX park" '^0$' \
	sh -c "grep -Ec 'rddp_(qp_error: qpn=[0-9]+ err=([2-9]|[1-9][0-9])|term_send|term_recv|cm_fail|mpa_error|tx_park)' $log; true"

# ---- zero copy: no CRC, a Write completes on TCP's ACK ----
t_run "rddpctl dev set rddp0 crc off" $rddpctl dev set rddp0 crc off
t_run "rping -V 2 x 65000 B, no CRC" rping_pair 65000
trace_take zcopy
sqpn=$(field "$(grep -m1 'rddp_cm_established: .*active=0 ' "$log")" qpn)
t_run "zcopy: established without CRC" \
	grep -Eq "rddp_cm_established: cep=[^ ]+ qpn=$sqpn active=0 rev=2 crc=0 " "$log"
t_run "zcopy: the Write completes once TCP acknowledged it" in_order "$log" \
	"rddp_sq_wqe: qpn=$sqpn id=[^ ]+ opcode=WRITE .*length=65000\$" \
	"rddp_zcopy_ack: qpn=$sqpn id=[^ ]+ bytes=65000 ack_seq=[0-9]+\$" \
	"rddp_cqe: cq=[0-9]+ qpn=$sqpn id=[^ ]+ opcode=WRITE status=0 bytes=65000\$"
t_run "rddpctl dev set rddp0 crc on" $rddpctl dev set rddp0 crc on

# ---- TX parked on a full socket ----
# A hostile peer reads a kernel consumer's MR (rddp_kverbs serve_read=1)
# and shuts its TCP window: the Read Responses fill the socket (its send
# buffer capped at 256 KiB) and TX parks until the peer reads again; the
# peer's Send with Invalidate ends the reads with a Terminate that copies
# the Read Request (hostile.sh's kernel read, tests/vm/lib.sh).
hostile_kernel_read "$hostile" $ip "park"
trace_take park
kqpn=$(field "$(grep -m1 'rddp_tx_park: ' "$log")" qpn)
t_run "park: TX parks and resumes on the consumer's QP ($kqpn)" in_order "$log" \
	"rddp_cm_established: cep=[^ ]+ qpn=$kqpn active=0 " \
	"rddp_tx_park: qpn=$kqpn wmem_queued=[0-9]+ sndbuf=[0-9]+\$" \
	"rddp_tx_resume: qpn=$kqpn wmem_queued=[0-9]+ sndbuf=[0-9]+\$" \
	"rddp_term_send: qpn=$kqpn malformed=0 layer=RDMAP type=1 code=0x00 m=0 d=0 r=1 .* rreq_size=[1-9][0-9]* rreq_src_stag=0x[0-9a-f]+ rreq_src_to=0x[0-9a-f]+\$"

# ---- a hostile peer's bad CRC ----
hostile crc "an FPDU with a bad CRC"
err=$(grep -m1 'rddp_qp_error: ' "$log")
qpn=$(field "$err" qpn)
t_run "crc: the error names the QP the peer connected to" in_order "$log" \
	"rddp_mpa_recv: cep=[^ ]+ type=Request rev=2 m=0 c=1 " \
	"rddp_mpa_send: cep=[^ ]+ type=Reply rev=2 m=0 c=1 " \
	"rddp_cm_established: cep=[^ ]+ qpn=$qpn active=0 rev=2 crc=1 "
t_run "crc: CRC error, Terminate LLP 0x02, QP to ERROR, in order" in_order "$log" \
	"rddp_qp_error: qpn=$qpn err=2 \(MPA CRC error\) layer=LLP type=0 code=0x02 seg_len=0\$" \
	"rddp_term_send: qpn=$qpn malformed=0 layer=LLP type=0 code=0x02 m=0 d=0 r=0 seg_len=0 hdr_len=0 " \
	"rddp_qp_state: qpn=$qpn RTS -> ERROR\$"
t_like "crc: one error and one Terminate" '^1 1$' \
	sh -c "echo \$(grep -c 'rddp_qp_error: ' $log) \$(grep -c 'rddp_term_send: ' $log)"

# ---- a header copied into the Terminate: a Send on QN 3 ----
# RFC 5041 §7.2: DDP, untagged buffer error (2), invalid QN (0x01), the
# 18-octet untagged header copied with its segment's length (18 + 16).
hostile qn "Send on an invalid QN"
qpn=$(field "$(grep -m1 'rddp_qp_error: ' "$log")" qpn)
t_run "qn: DDP error, Terminate with the copied header, QP to ERROR" in_order "$log" \
	"rddp_cm_established: cep=[^ ]+ qpn=$qpn active=0 " \
	"rddp_qp_error: qpn=$qpn err=[0-9]+ \\(invalid QN\\) layer=DDP type=2 code=0x01 seg_len=34\$" \
	"rddp_term_send: qpn=$qpn malformed=0 layer=DDP type=2 code=0x01 m=1 d=1 r=0 seg_len=34 hdr_len=18 tagged=0 opcode=3 stag=0x0 to=0x0 qn=3 msn=[1-9][0-9]* mo=0 hdr=[0-9a-f]{36} rreq_size=0 " \
	"rddp_qp_state: qpn=$qpn RTS -> ERROR\$"

# ---- a Terminate received: RDMAP, remote operation error, unspecified ----
hostile term "a well-formed Terminate from the peer"
qpn=$(field "$(grep -m1 'rddp_term_recv: ' "$log")" qpn)
t_run "term: received, the stream ends without an error of its own" in_order "$log" \
	"rddp_cm_established: cep=[^ ]+ qpn=$qpn active=0 " \
	"rddp_term_recv: qpn=$qpn malformed=0 layer=RDMAP type=2 code=0xff m=0 d=0 r=0 seg_len=0 hdr_len=0 " \
	"rddp_qp_error: qpn=$qpn err=0 \\(none\\) " \
	"rddp_qp_state: qpn=$qpn RTS -> ERROR\$"
t_like "term: no Terminate in return" '^0$' sh -c "grep -c 'rddp_term_send: ' $log; true"

# ---- failed setups: a bad MPA Request, nobody listening ----
hostile mpa "a Request with a wrong key"
cep=$(field "$(grep -m1 'rddp_mpa_error: ' "$log")" cep)
t_run "mpa: the bad key, then the failure in AWAIT_REQUEST" in_order "$log" \
	"rddp_cm_request: cep=$cep addr=$ip:[0-9]+\$" \
	"rddp_mpa_error: cep=$cep err=2 \\(bad key\\)\$" \
	"rddp_cm_fail: cep=$cep state=AWAIT_REQUEST status=-111\$"
t_like "mpa: no MPA Reply, no QP in RTS" '^0$' \
	sh -c "grep -Ec 'rddp_mpa_send: |rddp_mpa_recv: |-> RTS' $log; true"
t_run "rping to a port nobody listens on fails" \
	sh -c "! timeout 30 rping -c -a $ip -p 1 -C 1 -v >/tmp/rc.log 2>&1 || ! grep -q 'ping data' /tmp/rc.log"
trace_take refused
t_run "refused: connect, then the failure in CONNECTING" in_order "$log" \
	"rddp_cm_connect: cep=[^ ]+ qpn=[0-9]+ addr=$ip:1 ird=1 ord=1 pd_len=0\$" \
	"rddp_cm_fail: cep=[^ ]+ state=CONNECTING status=-111\$"

t_run "disable the rddp events" sh -c "echo 0 >$tr/events/rddp/enable"
t_like "no QP left" '^$' sh -c 'rdma res show qp | grep -v "^$" || true'
t_run "rdma link delete" rdma link delete rddp0
t_run "rmmod rddp" rmmod rddp
