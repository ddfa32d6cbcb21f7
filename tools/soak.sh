#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make soak`: the kernel community's suites whole, where make check runs a
# subset within its time budget (Documentation/testing.md, "make soak"):
#  - blktests' whole nvme group over NVMe-oF/RDMA (tests/vm/blktests.sh;
#    BLKTESTS_DIR names the blktests tree: Documentation/testing.md),
#    over rddp, then over siw on the same kernel, the reference;
#    make check runs the subset blktests.sh names over rddp alone.
# Under User-Mode Linux's debug kernel (6.12: KASAN, lockdep, UBSAN), one
# instance per driver, each test bounded (BLKTESTS_TIMEOUT, 300 s).
# SOAK_ONLY="blktests-rddp blktests-siw" picks runs, SOAK_BLKTESTS="nvme/003
# ..." tests (default: every one of the group). Results in
# build/vm-results/soak-*; a table of both drivers' results per test in
# build/soak/blktests.md. Ends with "soak: N passed, N failed, N skipped".
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP"

only=${SOAK_ONLY:-blktests-rddp blktests-siw}
wanted() { [[ " $only " == *" $1 "* ]]; }
t0=$SECONDS
mkdir -p build/soak

rddp_log "soak: building UML's debug kernel, rddp.ko and the tools (cached)"
make -s kmod-uml-debug userspace >build/soak/build.log 2>&1 ||
	rddp_die "build failed: build/soak/build.log"
# blktests is the user's tree (BLKTESTS_DIR; mkroot.sh says so without it).
bash tools/vm/blktests/mkroot.sh uml-debug >/dev/null || rddp_die "no blktests root (above)"

# Every test of the group (its numbered files), or SOAK_BLKTESTS's.
nvme=()
for f in "$BLKTESTS_DIR"/tests/nvme/[0-9]*; do
	[[ ${f##*/} =~ ^[0-9]+$ ]] && nvme+=("nvme/${f##*/}")
done
[ -z "${SOAK_BLKTESTS:-}" ] || read -r -a nvme <<<"$SOAK_BLKTESTS"

blktests() { # DRIVER
	local name=soak-blktests-$1 t=$SECONDS
	rddp_log "soak: blktests' nvme group over $1: ${#nvme[@]} tests (the whole group: 15 minutes or more)"
	bash tools/vm/run.sh --kernel uml-debug --timeout $((${#nvme[@]} * 330)) --name "$name" \
		--ko build/kmod-uml-debug/rddp.ko tests/vm/blktests.sh "$1" "${nvme[@]}" |
		tee "build/soak/$name.log" | grep -E '^(not ok|ok .*# SKIP|[a-z0-9.-]+: [0-9]+ passed)' || true
	rddp_log "soak: $name took $(((SECONDS - t) / 60)) min"
}
for d in rddp siw; do
	wanted "blktests-$d" && blktests "$d"
done

# The table: one row per blktests result, rddp's and siw's side by side.
# TAP: "ok N - DRIVER nvme/NNN (tr=rdma ...)" with "# SKIP WHY", or "not ok".
results() { # DRIVER
	local tap=build/vm-results/soak-blktests-$1/a/tap.txt
	[ -f "$tap" ] || return 0
	sed -nE "s/^(ok|not ok) [0-9]+ - $1 (nvme\/[0-9]+[^#]*)( # SKIP *(.*))?$/\2\t\1\t\4/p" "$tap" |
		awk -F'\t' -v d="$1" '{ sub(/ +$/, "", $1); st = "passed"
			sub(/ +$/, "", $3)
			if ($2 == "not ok") st = "FAILED"; else if ($3 != "") st = "skipped (" $3 ")"
			print d "\t" $1 "\t" st }'
}
{
	echo "| test | rddp | siw |"
	echo "|---|---|---|"
	{ results rddp; results siw; } | awk -F'\t' '
		{ if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } r[$1, $2] = $3 }
		END { for (i = 1; i <= n; i++) { t = order[i]
			printf "| %s | %s | %s |\n", t, (("rddp", t) in r) ? r["rddp", t] : "-",
				(("siw", t) in r) ? r["siw", t] : "-" } }'
} >build/soak/blktests.md
rddp_log "soak: table in build/soak/blktests.md"

# The tally of this run's checks: each run's last line (run.sh's, with the
# harness's own checks: the guest ran to its end, its kernel log is clean).
# A run not asked for keeps its old results out of it.
logs=()
for d in rddp siw; do
	wanted "blktests-$d" && logs+=("build/soak/soak-blktests-$d.log")
done
rddp_log "soak: $(((SECONDS - t0) / 60)) min in all"
cat "${logs[@]}" | awk '
	/^vm-[a-z0-9.-]+: [0-9]+ passed, [0-9]+ failed/ { p += $2; f += $4; s += $6; n++ }
	END { if (n < '"${#logs[@]}"') f++	# a run that printed no tally failed
		printf "soak: %d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }'
