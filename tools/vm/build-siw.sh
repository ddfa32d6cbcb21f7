#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Builds (or finds in the cache) upstream siw.ko out of tree for one of
# Debian's kernels (Debian builds both without siw) or for the plain UML
# kernel, and prints its path:
#   tools/vm/build-siw.sh [stock|stock-6.12|uml]
# stock (the default) is Debian's 6.1, from linux-source-6.1; stock-6.12 its
# 6.12, from linux-source-6.12 (tools/lib.sh, rddp_siw_source); uml the plain
# UML kernel (tools/kernel/build-uml-kernel.sh plain, 6.1), whose in-tree
# siw lacks the changes below. Used as the peer of rddp in two-VM
# interop runs:
#   tools/vm/run.sh --topology two --ko-a build/kmod-stock/rddp.ko \
#       --ko-b "$(tools/vm/build-siw.sh)" tests/vm/TEST.sh
# siw and rddp must never share a kernel (both are RDMA_DRIVER_SIW).
# The debug kernel has siw=m in tree; its initramfs already carries it.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

kernel=${1:-stock}
arch=() kid=
case $kernel in
stock)
	kver=$(rddp_stock_kver) || rddp_die "Debian's 6.1 kernel headers are not installed (make deps)"
	kdir=/lib/modules/$kver/build
	;;
stock-6.12)
	kver=$(rddp_612_kver) || rddp_die "Debian's 6.12 kernel headers are not installed (make deps)"
	kdir=/usr/src/linux-headers-$kver
	;;
uml)
	# The plain kernel's directory name is the hash of all its inputs.
	kdir=$(bash "$(dirname "$0")/../kernel/build-uml-kernel.sh" plain)/build ||
		rddp_die "the plain UML kernel did not build"
	kver=uml-plain arch=(ARCH=um) kid="uml-plain $kdir"
	;;
*) rddp_die "build-siw.sh stock|stock-6.12|uml" ;;
esac
src=$(rddp_siw_source "${kernel/uml/stock}")
[ -n "$kid" ] || kid="$kver $(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null || true)"
key=$(rddp_hash "$0" "$src" "$kid" "$(gcc --version | head -1)")
out="$RDDP_CACHE/siw-$key"
if [ -f "$out/siw.ko" ]; then
	echo "$out/siw.ko"
	exit 0
fi

rddp_log "building siw.ko for $kver in $out"
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
cp -r "$src/." "$out.tmp/"
rm -f "$out.tmp/.extracted"
# siw (6.1's and 6.12's) lends the pages of large unsignalled WQEs and Read
# Responses to TCP (zcopy_tx, no module parameter) after computing the
# FPDU's CRC over them; if the application rewrites the buffer before TCP has sent it, the
# FPDU leaves with a CRC that does not match (seen in interop: rping's
# server, a 760-octet FPDU sent once, tshark "Bad CRC32"), and rddp
# rightly Terminates the connection. The peer runs without zero copy so
# that interop tests rddp, not that race.
sed -i 's/^const bool zcopy_tx = true;$/const bool zcopy_tx = false;/' "$out.tmp/siw_main.c"
grep -q '^const bool zcopy_tx = false;$' "$out.tmp/siw_main.c" ||
	rddp_die "siw_main.c: zcopy_tx not found (tools/vm/build-siw.sh)"
# siw_accept() sends its MPA Reply and only then hooks the socket for what
# the initiator sends next: its RTR (siw_sk_assign_rtr_upcalls()) or, with
# MPA revision 1, its first FPDUs (siw_qp_socket_assoc()); 6.1 and 6.12
# alike. Data that arrives in between is seen by siw_cm_llp_data_ready(),
# which ignores data in RDMA_MODE, and nothing wakes the QP again: the
# connection stalls with its data unread. Over a fast link a TCG guest
# descheduled between the two hits it (seen: rddp's RTR and first Send
# within 5 ms of siw's Reply, siw's rping server waiting for ever; an
# ib_send_bw over revision 1 that never completed). The peer hooks the
# socket before it sends the Reply, so that interop tests rddp, not that
# race.
perl -0pi -e 's/(\trv = siw_send_mpareqrep\(cep, params->private_data,\n\t\t\t\tparams->private_data_len\);\n\tif \(rv != 0\)\n\t\tgoto error;\n\n)\tif \(wait_for_peer_rts\) \{\n\t\tsiw_sk_assign_rtr_upcalls\(cep\);\n\t\} else \{\n\t\tsiw_qp_socket_assoc\(cep, qp\);\n/\tif (wait_for_peer_rts)\n\t\tsiw_sk_assign_rtr_upcalls(cep);\n\telse\n\t\tsiw_qp_socket_assoc(cep, qp);\n$1\tif (!wait_for_peer_rts) {\n/s' "$out.tmp/siw_cm.c"
grep -A3 -F 'if (wait_for_peer_rts)' "$out.tmp/siw_cm.c" | grep -q 'siw_qp_socket_assoc(cep, qp);' &&
	grep -q -F 'if (!wait_for_peer_rts) {' "$out.tmp/siw_cm.c" ||
	rddp_die "siw_cm.c: siw_accept()'s socket hooks not found (tools/vm/build-siw.sh)"
# siw_qp_sq_proc_tx() checks for a peer's half-close (tx_suspend, set by
# its socket callback as the FIN arrives) after each FPDU it has sent, before
# it checks whether that FPDU was the message's last: a message handed to
# TCP whole then completes in error (IB_WC_LOC_QP_OP_ERR, QP fatal) when the
# peer closes before siw's thread gets there; 6.1 and 6.12 alike. An iSER
# initiator closes as soon as it has the Logout Response, and isert takes
# an error on that Send for a lost one: iscsit_release_cmd()'s WARNING,
# the connection and its cm_id never freed, ib_isert held (seen in CI's
# make check and by hand under load: vm-stock-two's ulp-siw, siw as LIO's
# transport, a TCG guest descheduled in that window). The peer checks for
# the last FPDU first, so that interop tests rddp, not that race.
perl -0pi -e 's/(\t\tif \(unlikely\(c_tx->tx_suspend\)\) \{\n(?:\t\t\t[^\n]*\n)*?\t\t\tgoto tx_done;\n\t\t\}\n)(\t\tif \(c_tx->pkt\.ctrl\.ddp_rdmap_ctrl & DDP_FLAG_LAST\) \{\n\t\t\tsiw_dbg_qp\(qp, "WQE completed\\n"\);\n\t\t\tgoto tx_done;\n\t\t\}\n)/$2$1/' "$out.tmp/siw_qp_tx.c"
grep -A4 -F 'if (c_tx->pkt.ctrl.ddp_rdmap_ctrl & DDP_FLAG_LAST) {' "$out.tmp/siw_qp_tx.c" |
	grep -q -F 'if (unlikely(c_tx->tx_suspend)) {' ||
	rddp_die "siw_qp_tx.c: the last-FPDU and tx_suspend checks not found (tools/vm/build-siw.sh)"
nice make -C "$kdir" "${arch[@]}" M="$out.tmp" CONFIG_RDMA_SIW=m -j2 modules \
	>"$out.tmp/build.log" 2>&1 ||
	{ tail -30 "$out.tmp/build.log" >&2; rddp_die "siw build failed (log: $out.tmp/build.log)"; }
mv "$out.tmp" "$out"
echo "$out/siw.ko"
