#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The two-VM topology rddp's interop tests use: guest a with rddp.ko, guest b
# with upstream siw.ko (they never share a kernel), joined by a virtio-net
# link recorded to a pcap. Runs tests/vm/smoke.sh in both, then checks with
# tshark that the capture holds their traffic in both directions.
# Last line: `vm-two: N passed, N failed, N skipped`.
set -uo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$RDDP_TOP" || exit 1

kernel=${1:-stock}
pcap=build/vm-results/two-$kernel.pcap
siw=()
if [ "$kernel" = stock ]; then
	ko=$(bash tools/vm/build-siw.sh) || { echo "vm-two: 0 passed, 1 failed, 0 skipped"; exit 1; }
	siw=(--ko-b "$ko")
fi
rm -f "$pcap"
out=$(bash tools/vm/run.sh --kernel "$kernel" --topology two --name "two-$kernel" \
	--pcap "$pcap" --ko-a "build/kmod-$kernel/rddp.ko" "${siw[@]}" tests/vm/smoke.sh 2>&1)
rc=$?
echo "$out" | grep -v '^vm-two'
line=$(grep -E '^vm-two-[a-z]+: ' <<<"$out" | tail -1)
pass=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
fail=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
[ -n "$line" ] || { pass=0; fail=1; }
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1

n=$((pass + fail))
for dir in "192.0.2.1 192.0.2.2" "192.0.2.2 192.0.2.1"; do
	set -- $dir
	n=$((n + 1))
	cnt=$(tshark -r "$pcap" -Y "icmp && ip.src==$1 && ip.dst==$2" 2>/dev/null | wc -l)
	if [ "$cnt" -gt 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - pcap has ICMP from $1 to $2 ($cnt packets)"
	else
		fail=$((fail + 1))
		echo "not ok $n - pcap has ICMP from $1 to $2 ($pcap)"
	fi
done
echo "vm-two: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
