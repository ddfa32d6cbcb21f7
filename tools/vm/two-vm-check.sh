#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The two-VM runs, each with a pcap of the link checked by tshark:
#   smoke    the harness itself: both guests up, ICMP both ways;
#   interop  rddp (guest a) with upstream siw (guest b), which never share a
#            kernel: rping -V and perftest both ways, CRC on and off, MPA
#            revision 1 (tests/vm/interop.sh); guest b always boots Debian's
#            kernel with tools/vm/build-siw.sh's siw.ko, guest a the kernel
#            asked for;
#   markers  rddp in both guests, markers required by guest a
#            (tests/vm/markers.sh);
#   faults   (User-Mode Linux) rddp in both guests over a link that loses,
#            reorders, duplicates and delays frames (uml-wire.py --loss 2
#            --reorder 5 --duplicate 1 --delay 5, and --fin-loss 20): rping
#            -V and the integrity program on 64 QPs, CRC on and off
#            (tests/vm/faults.sh);
#   sctp     (User-Mode Linux) rddp in both guests over DDP over SCTP
#            (draft-ietf-rddp-sctp-00), on a link that loses, reorders,
#            duplicates and delays frames: rping -V both ways, the integrity
#            program, chunks held for their DDP-SSN (tests/vm/sctp-two.sh);
#            on the wire, the adaptation indication in INIT and INIT ACK,
#            each asking for one stream each way (§5), and every DATA chunk
#            unordered, whole, PPID 1 or 2, on stream 0; with a second
#            link (run.sh --links 2), multihoming: rping -V and the
#            integrity program survive link 1 cut under them, INITs list
#            one address with multihome off and both links' with it on;
#   ulp-siw  NVMe-oF/RDMA, NFS over RDMA and iSER: rddp's initiators and
#            clients in guest a, the targets and nfsd on upstream siw in
#            guest b (Debian's kernel, as interop);
#   ulp-rddp the same with the targets on rddp (Debian's kernels only:
#            guest a on 6.1, guest b on 6.12 when its headers are there),
#            guest a initiating over DDP over SCTP (tests/vm/ulp-two.sh).
# With stock-6.12 rddp's guest and siw's boot Debian's 6.12, siw built from
# linux-source-6.12 (tools/vm/build-siw.sh stock-6.12).
# tshark decodes MPA/DDP/RDMAP (rpcordma disabled: its heuristic misreads
# perftest payloads): no malformed frames, no "Bad CRC32", and what each run
# must show on the wire. Last line: `vm-two: N passed, N failed, N skipped`.
#
# Usage: two-vm-check.sh stock|stock-6.12|debug|uml-debug [RUN...]: the runs named
# (default: all that the kernel has). Under User-Mode Linux (`uml-debug`)
# the two instances are joined by tools/vm/uml-wire.py, which records the
# pcap; siw's instance (b) boots the plain UML kernel with its own siw.ko.
# The UML kernels have no ULP modules: ulp-* run in qemu only.
set -uo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$RDDP_TOP" || exit 1

kernel=${1:-stock}
[ $# -gt 0 ] && shift
rddp=build/kmod-$kernel/rddp.ko
case $kernel in
stock) runs=(smoke interop markers ulp-siw ulp-rddp) ;;
stock-6.12) runs=(interop ulp-siw) ;;
debug) runs=(smoke interop markers ulp-siw) ;;
uml-debug) runs=(smoke interop markers faults sctp) ;;
*) rddp_die "two-vm-check.sh stock|stock-6.12|debug|uml-debug [RUN...]" ;;
esac
if [ $# -gt 0 ]; then
	for r in "$@"; do
		[[ " ${runs[*]} " == *" $r "* ]] || rddp_die "no run '$r' on $kernel (${runs[*]})"
	done
	runs=("$@")
fi
want() { [[ " ${runs[*]} " == *" $1 "* ]]; }
# The interop peer: tools/vm/build-siw.sh's siw.ko on Debian's kernel, or on
# the plain UML kernel (installed over its in-tree siw.ko, which lacks
# build-siw.sh's changes). In the smoke run guest b boots $kernel: the
# debug kernels have siw as a module of their own, Debian's gets ours.
# With stock-6.12 siw's guest boots 6.12 too, with siw built from
# linux-source-6.12.
siw=() peer=(--kernel-b stock)
[[ $kernel == uml* ]] && peer=(--kernel-b uml)
[ "$kernel" = stock-6.12 ] && peer=(--kernel-b stock-6.12)
if [[ $kernel != uml* ]] || want interop; then
	siw_ko=$(bash tools/vm/build-siw.sh "${peer[1]}") ||
		{ echo "vm-two: 0 passed, 1 failed, 0 skipped"; exit 1; }
	peer+=(--ko-b "$siw_ko")
	[ "$kernel" = stock ] && siw=(--ko-b "$siw_ko")
fi
# ulp-rddp's target guest (b): rddp on Debian's 6.12 when its headers are
# installed (build/kmod-stock-6.12, make kmod-stock-6.12), so that rddp on
# 6.1 meets rddp on 6.12 across the link; else on 6.1 as guest a.
rddp_b=(--ko-b "$rddp")
if [ "$kernel" = stock ] && [ -f build/kmod-stock-6.12/rddp.ko ]; then
	rddp_b=(--kernel-b stock-6.12 --ko-b build/kmod-stock-6.12/rddp.ko)
fi
pass=0 fail=0 n=0
check() { # OK? NAME
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}
run_two() { # NAME TEST RUN-OPTIONS... [-- TEST-ARGS...]
	local name=$1 test=$2 out rc line p f opts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	pcap=build/vm-results/two-$kernel-$name.pcap
	rm -f "$pcap"
	out=$(bash tools/vm/run.sh --kernel "$kernel" --topology two --name "two-$kernel-$name" \
		--pcap "$pcap" "${opts[@]}" "$test" "$@" 2>&1)
	rc=$?
	echo "$out" | grep -v '^vm-two' | sed -E "s/^(ok|not ok) [0-9]+ - /\1 - $name: /" |
		while IFS= read -r l; do
			case $l in
			"ok - "*) echo "ok $((++n)) - ${l#ok - }" ;;
			"not ok - "*) echo "not ok $((++n)) - ${l#not ok - }" ;;
			*) echo "$l" ;;
			esac
		done
	line=$(grep -E '^vm-two-' <<<"$out" | tail -1)
	p=$(sed -nE 's/.*: ([0-9]+) passed.*/\1/p' <<<"$line")
	f=$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")
	[ -n "$p" ] || { p=0; f=1; }
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p)) fail=$((fail + f)) n=$((n + p + f))
}
# tshark on $pcap. rpcordma is disabled (its heuristic misreads perftest
# payloads), and heuristic dissectors such as iwarp_mpa go before port-based
# ones: otherwise a connection whose ephemeral port is some protocol's
# registered port (34980, EtherCAT, seen) is decoded as that protocol and
# counted malformed.
ts() { tshark -r "$pcap" --disable-protocol rpcordma -o tcp.try_heuristic_first:TRUE "$@" 2>/dev/null; }
# tshark's verbose decode of $pcap, once per run.
decode() { ts -V 2>/dev/null >"$pcap.txt"; }
count() { grep -cE -- "$1" "$pcap.txt"; }

if want smoke; then
	run_two smoke tests/vm/smoke.sh --ko-a "$rddp" "${siw[@]}"
	for dir in "192.0.2.1 192.0.2.2" "192.0.2.2 192.0.2.1"; do
		set -- $dir
		c=$(ts -Y "icmp && ip.src==$1 && ip.dst==$2" 2>/dev/null | wc -l)
		check "$([ "$c" -gt 0 ] && echo 1)" "smoke: pcap has ICMP from $1 to $2 ($c packets)"
	done
fi

wire_checks() { # NAME
	local fpdus good bad malformed
	decode
	fpdus=$(count '^iWARP Direct Data Placement and Remote Direct Memory Access Protocol')
	good=$(count 'Good CRC32')
	bad=$(count 'Bad CRC32')
	malformed=$(ts -Y _ws.malformed 2>/dev/null | wc -l)
	check "$([ "$fpdus" -gt 1000 ] && echo 1)" "$1: tshark decodes DDP/RDMAP in the pcap ($fpdus FPDUs)"
	check "$([ "$good" -gt 1000 ] && echo 1)" "$1: CRCs checked good by tshark ($good)"
	check "$([ "$bad" -eq 0 ] && echo 1)" "$1: no Bad CRC32 ($bad)"
	[ "$bad" -eq 0 ] || bad_crc_frames
	check "$([ "$malformed" -eq 0 ] && echo 1)" "$1: no malformed frames ($malformed)"
}
# Who sent each FPDU that tshark found a bad CRC in, and what it was: the
# evidence a rare failure leaves (the pcap itself stays in build/vm-results).
bad_crc_frames() {
	local frames
	frames=$(awk '/^Frame [0-9]+:/ { f = $2; sub(":", "", f) }
		/Bad CRC32/ { print f }' "$pcap.txt" | sort -un | head -20 | paste -sd, -)
	[ -n "$frames" ] || return 0
	echo "# frames with a Bad CRC32 (frame, from, to, TCP stream, len, ULPDU, opcode, tagged, MSN):"
	ts -Y "frame.number in {$frames}" -T fields -e frame.number -e ip.src -e ip.dst \
		-e tcp.stream -e tcp.len -e iwarp_mpa.ulpdulength -e iwarp_rdma.opcode \
		-e iwarp_ddp.tagged_flag -e iwarp_ddp.msn | sed 's/^/#   /'
}

# The SCTP adaptation's wire (draft-ietf-rddp-sctp-00): PPIDs 1 and 2 are
# also IUA's and M2UA's, whose dissectors are off so that tshark shows the
# payload as data.
sctp_ts() { ts --disable-protocol iua --disable-protocol m2ua "$@"; }
# sctp_none|sctp_some NAME FILTER: no packet, or some, match FILTER.
sctp_none() {
	local c
	c=$(sctp_ts -Y "$2" | wc -l)
	check "$([ "$c" -eq 0 ] && echo 1)" "sctp: $1 ($c)"
}
sctp_some() {
	local c
	c=$(sctp_ts -Y "$2" | wc -l)
	check "$([ "$c" -gt 0 ] && echo 1)" "sctp: $1 ($c)"
}
sctp_wire_checks() {
	local c
	for t in "1 INIT" "2 INIT ACK"; do
		set -- $t
		c=$(sctp_ts -Y "sctp.chunk_type == $1 && sctp.parameter_type == 0xc006 && sctp.adaptation_layer_indication == 2" | wc -l)
		check "$([ "$c" -gt 0 ] && echo 1)" "sctp: ${*:2} carries the adaptation indication DDP+RDMA, §4.1 ($c)"
	done
	# §5: one DDP Stream per association, equal inbound and outbound
	# counts: every INIT and INIT ACK (rddp's, both ends) asks for one
	# stream each way, and every DATA chunk is on stream 0.
	sctp_some "INITs ask for one stream each way, §5" \
		'sctp.chunk_type == 1 && sctp.init_nr_out_streams == 1 && sctp.init_nr_in_streams == 1'
	sctp_none "no INIT or INIT ACK asks for more or unequal streams" \
		'(sctp.chunk_type == 1 && !(sctp.init_nr_out_streams == 1 && sctp.init_nr_in_streams == 1)) || (sctp.chunk_type == 2 && !(sctp.initack_nr_out_streams == 1 && sctp.initack_nr_in_streams == 1))'
	sctp_none "every DATA chunk is on stream 0" 'sctp.chunk_type == 0 && sctp.data_sid != 0'
	c=$(sctp_ts -Y 'sctp.chunk_type == 0' | wc -l)
	check "$([ "$c" -gt 1000 ] && echo 1)" "sctp: DATA chunks on the wire ($c packets)"
	sctp_none "every DATA chunk is unordered, U=1, §7" 'sctp.chunk_type == 0 && sctp.data_u_bit == 0'
	sctp_none "no DATA chunk is a fragment, §6" \
		'sctp.chunk_type == 0 && !(sctp.data_b_bit == 1 && sctp.data_e_bit == 1)'
	sctp_none "every DATA chunk has PPID 1 or 2, §2.2" \
		'sctp.chunk_type == 0 && sctp.data_payload_proto_id != 1 && sctp.data_payload_proto_id != 2'
	# Each association's first chunk each way is a Stream Session Control
	# message (PPID 2) with DDP-SSN 1: Initiate (0x0002) or Accept (0x0003).
	c=$(sctp_ts -Y 'sctp.data_payload_proto_id == 2' -T fields -e data.data |
		grep -cE '^0001000[23]')
	check "$([ "$c" -gt 0 ] && echo 1)" "sctp: Initiate and Accept carry DDP-SSN 1 ($c)"
	sctp_none "no malformed frames" _ws.malformed
	wire=$(grep '^uml-wire:' "build/vm-results/two-$kernel-sctp/host-wire.log" | tail -1)
	c=$(sed -nE "s/.* ([0-9]+) reordered.*/\1/p" <<<"$wire")
	check "$([ "${c:-0}" -gt 0 ] && echo 1)" "sctp: the wire reordered (${c:-none})"
}

# Multihoming (draft-ietf-rddp-sctp §4.2) in sctp-two.sh's last part: INIT
# and INIT ACK list one IPv4 address with `multihome off` (the device's)
# and both links' with `multihome on`; DATA went over link 2 while link 1
# was cut (link 2's pcap, headers only), and the wire did cut it.
sctp_multihome_checks() {
	local c inits pcap2=${pcap%.pcap}-link2.pcap
	inits=$(sctp_ts -Y 'sctp.chunk_type == 1 || sctp.chunk_type == 2' -T fields \
		-e sctp.chunk_type -e sctp.parameter_ipv4_address -e sctp.parameter_ipv6_address)
	# The earlier parts' 18 associations (rping both ways, 16 QPs), with
	# multihome off: their INIT and INIT ACK, some delivered twice.
	c=$(awk -F'\t' '$2 !~ /198\.51\.100\./' <<<"$inits" | grep -c .)
	check "$([ "$c" -ge 36 ] && echo 1)" "sctp: INITs and INIT ACKs with multihome off ($c, 36 at least)"
	c=$(awk -F'\t' '$2 !~ /198\.51\.100\./ && $3 == "" && $2 ~ /,/' <<<"$inits" | grep -c .)
	check "$([ "$c" -eq 0 ] && echo 1)" "sctp: with multihome off they list one address at most ($c list more)"
	for t in "1 INIT" "2 INIT ACK"; do
		set -- $t
		c=$(awk -F'\t' -v t="$1" '$1 == t && $2 ~ /192\.0\.2\./ && $2 ~ /198\.51\.100\./' <<<"$inits" | grep -c .)
		check "$([ "$c" -gt 0 ] && echo 1)" "sctp: with multihome on ${*:2} lists both links' addresses ($c)"
		# The IPv6 round: both links' ULA addresses, and no IPv4 one (a
		# socket adds the addresses of its own family).
		c=$(awk -F'\t' -v t="$1" '$1 == t && $3 ~ /fd00:1::/ && $3 ~ /fd00:2::/ && $2 == ""' <<<"$inits" | grep -c .)
		check "$([ "$c" -gt 0 ] && echo 1)" "sctp: over IPv6 with multihome on ${*:2} lists both links' IPv6 addresses ($c)"
	done
	c=$(tshark -r "$pcap2" -Y 'sctp.chunk_type == 0' 2>/dev/null | wc -l)
	check "$([ "$c" -gt 0 ] && echo 1)" "sctp: DATA went over link 2 (failover; $c packets in its pcap)"
	c=$(grep '^uml-wire:' "build/vm-results/two-$kernel-sctp/host-wire.log" | tail -1 |
		sed -nE 's/.* ([0-9]+) cut.*/\1/p')
	check "$([ "${c:-0}" -gt 0 ] && echo 1)" "sctp: the wire cut link 1 (${c:-no} frames dropped)"
}

if want interop; then
	# The siw guest (b) boots Debian's (or the plain UML) kernel whatever
	# rddp's guest (a) boots: on the debug kernel 6.1's siw itself triggers a
	# lockdep report (siw_qp_llp_data_ready takes sk_callback_lock with
	# softirqs enabled), which would fail that guest's kernel-log check. Guest
	# a's check stays strict: with `debug` rddp runs under KASAN, lockdep and
	# kmemleak.
	run_two interop tests/vm/interop.sh --timeout 900 "${peer[@]}" --ko-a "$rddp"
	wire_checks interop
	# CRC off (mpa_crc=0 on rddp, siw's default): FPDUs without CRC.
	c=$(count 'CRC flag: False')
	check "$([ "$c" -gt 0 ] && echo 1)" "interop: MPA frames negotiating without CRC ($c)"
	c=$(ts -Y 'iwarp_mpa.rev == 1 && iwarp_mpa.rep' 2>/dev/null | wc -l)
	check "$([ "$c" -gt 0 ] && echo 1)" "interop: MPA revision-1 Replies on the wire ($c)"
fi

if want markers; then
	run_two markers tests/vm/markers.sh --timeout 900 --ko "$rddp"
	# Wireshark's iwarp_mpa dissector follows a marker stream only from FPDUs
	# that start a TCP segment, and rddp batches FPDUs (MSG_MORE), so it decodes
	# a part of the FPDUs towards guest a (markers) and misreads some payload of
	# both directions as FPDUs (a ULPDU length of 49851 in a 1448-byte segment,
	# with a "Bad CRC32" to match); it also takes a segment to be one FPDU. The
	# checks therefore look only at segments towards a that tshark decodes as
	# exactly one FPDU: its length, pad, CRC and the markers inside add up to the
	# TCP payload (RFC 5044 §4.1, §4.3), no marker in it has FPDUPTR 0 (that
	# one starts the next FPDU, §4.3, but tshark reads it as this FPDU's CRC),
	# and the segment before did not end with such a marker (it belongs to this
	# FPDU and its CRC). In those, markers are validated and stripped and every
	# CRC must be good.
	exact=$(ts -Y "ip.dst == 192.0.2.1 && tcp.len > 0" \
		-T fields -e frame.number -e tcp.stream -e tcp.len -e iwarp_mpa.ulpdulength \
		-e iwarp_mpa.marker_fpduptr -e tcp.segments 2>/dev/null |
		awk -F'\t' '{
			# A segment ending with FPDUPTR 0 holds the next FPDU'"'"'s leading
			# marker, which that FPDU'"'"'s CRC covers: tshark misses it there.
			after_zero = zero[$2]; n = $5 == "" ? 0 : split($5, m, ",")
			zero[$2] = n && m[n] == 0
			if (after_zero || $6 != "" || $4 == "" || $4 ~ /,/) next
			for (i = 1; i <= n; i++) if (m[i] == 0) next
			len = $4 + 0
			if (2 + len + (4 - (2 + len) % 4) % 4 + 4 + 4 * n == $3) print $1
		}' | paste -sd, -)
	# Malformed: towards a only in the segments tshark can follow (elsewhere its
	# misreads of payload raise exceptions); towards b (no markers) anywhere,
	# except where tshark lost the FPDU boundaries and took payload for an FPDU:
	# seen once in ~10000 frames of a debug-kernel run, a 19703-byte "ULPDU"
	# read from perftest's data, with markers that do not flow that way and a
	# Bad CRC32. rddp's receiver checks every CRC (a bad one ends the run's
	# traffic with a Terminate, which markers.sh fails on), so such a frame is
	# tshark's misread, not rddp's wire.
	malformed=0
	for f in $(ts -Y "_ws.malformed && (ip.dst == 192.0.2.2${exact:+ || frame.number in {$exact}})" \
		-T fields -e frame.number 2>/dev/null); do
		ts -V -Y "frame.number == $f && ip.dst == 192.0.2.2" 2>/dev/null |
			grep -q 'Bad CRC32' && continue
		malformed=$((malformed + 1))
	done
	check "$([ "$malformed" -eq 0 ] && echo 1)" "markers: no malformed frames ($malformed)"
	in_exact() { # DISPLAY-FILTER: verbose decode of the exact frames matching it
		[ -n "$exact" ] || return 0
		ts -V -Y "frame.number in {$exact} && $1" 2>/dev/null
	}
	# How many FPDUs tshark can follow depends on how segments happen to align
	# (20 to 200 frames seen), so the checks ask for some, not for a number.
	c=$(in_exact iwarp_mpa.marker_fpduptr | grep -c '^Frame ')
	check "$([ "$c" -gt 0 ] && echo 1)" "markers: tshark finds markers in FPDUs towards guest a ($c frames)"
	c=$(in_exact iwarp_ddp_rdmap | grep -c '^Frame ')
	check "$([ "$c" -gt 0 ] && echo 1)" "markers: tshark decodes DDP/RDMAP behind them ($c frames)"
	good=$(in_exact iwarp_mpa | grep -c 'Good CRC32')
	bad=$(in_exact iwarp_mpa | grep -c 'Bad CRC32')
	check "$([ "$good" -gt 0 ] && [ "$bad" -eq 0 ] && echo 1)" \
		"markers: CRCs towards guest a good ($good), none bad ($bad)"
	# RFC 6581 §9.1.1: between two rddp peers (revision 2, peer-to-peer) every
	# connection starts with the initiator's RTR, a zero-length RDMA Write (a
	# 14-octet ULPDU: the tagged DDP/RDMAP header alone).
	c=$(ts \
		-Y 'iwarp_mpa.ulpdulength == 14 && iwarp_rdma.opcode == 0' 2>/dev/null | wc -l)
	check "$([ "$c" -gt 0 ] && echo 1)" "markers: connections start with a zero-length Write RTR ($c)"
fi
if want faults; then
	# netem's "loss 2% reorder 5% duplicate 1% delay 5ms" in both
	# directions, played by the wire, and one FIN in five lost besides:
	# every close then needs TCP to send its FIN again (rddp's sockets lost
	# their retransmission timers on close: rddp_sock_release()). The pcap
	# keeps headers only.
	run_two faults tests/vm/faults.sh --timeout 900 --ko "$rddp" \
		--wire "--loss 2 --reorder 5 --duplicate 1 --delay 5 --fin-loss 20 --snaplen 128"
	# The wire's own account (its last line, printed when run.sh stops it).
	wire=$(grep '^uml-wire:' "build/vm-results/two-$kernel-faults/host-wire.log" | tail -1)
	for what in lost duplicated reordered "FINs lost"; do
		c=$(sed -nE "s/.* ([0-9]+) $what.*/\1/p" <<<"$wire")
		check "$([ "${c:-0}" -gt 0 ] && echo 1)" "faults: the wire $what (${c:-none})"
	done
	# TCP repaired the stream: tshark sees retransmissions and segments
	# out of order.
	c=$(ts -Y 'tcp.analysis.retransmission || tcp.analysis.fast_retransmission' | wc -l)
	check "$([ "$c" -gt 0 ] && echo 1)" "faults: TCP retransmitted ($c segments in the pcap)"
	c=$(ts -Y 'tcp.analysis.out_of_order' | wc -l)
	check "$([ "$c" -gt 0 ] && echo 1)" "faults: segments arrived out of order ($c)"
fi
if want sctp; then
	# Milder than faults (SCTP's retransmission timer is 1 s at least):
	# enough reordering that unordered chunks arrive out of DDP-SSN order.
	run_two sctp tests/vm/sctp-two.sh --timeout 900 --ko "$rddp" --links 2 \
		--wire "--loss 1 --reorder 10 --duplicate 1 --delay 5"
	sctp_wire_checks
	sctp_multihome_checks
fi
# In-kernel ULPs across the link (no pcap checks: the runs are about data).
want ulp-siw && run_two ulp-siw tests/vm/ulp-two.sh --timeout 900 "${peer[@]}" --ko-a "$rddp" -- siw
# rddp at both ends runs on a debug kernel in one guest (uml-debug-ulp);
# across the link only on Debian's kernels, which keeps make check in its
# budget: rddp on 6.1 in guest a, on 6.12 in guest b (rddp_b above).
# Guest a initiates over DDP over SCTP there: the same ULPs, unchanged, on
# the other transport (Documentation/wire-sctp.md); TCP between two rddp
# guests runs in uml-debug-two, and the ULPs over TCP in ulp-siw and in
# one guest.
want ulp-rddp && run_two ulp-rddp tests/vm/ulp-two.sh --timeout 900 --ko-a "$rddp" "${rddp_b[@]}" \
	-- rddp sctp
rm -f build/vm-results/two-"$kernel"-ulp-*.pcap
rm -f build/vm-results/two-"$kernel"-*.pcap.txt

echo "vm-two: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
