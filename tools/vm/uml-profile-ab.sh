#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two rddp modules profiled in turn on one storage job in User-Mode Linux,
# ROUNDS runs each, compared by the means of their runs.
#
#   tools/vm/uml-profile-ab.sh A.ko B.ko DRIVER ULP JOB [ROUNDS [SECS [MTU]]]
#     A.ko, B.ko  rddp.ko built for UML's plain kernel (make kmod-uml, the
#                 module copied aside before the other is built)
#     DRIVER ULP JOB SECS MTU  as tools/vm/uml-profile.sh's
#     ROUNDS      runs of each module (default 4)
#
# Each run is a uml-profile.sh run of its module (RDDP_PROFILE_KO), pinned
# to one host CPU; the order alternates (A B, then B A) so that neither
# module always runs first. On this host one job's CPU per I/O moves by up
# to 5 % from run to run: a difference of the means within the runs'
# spread (the comparison's "runs, lowest-highest") is no difference.
# The runs go to build/profile/ab-NAME/{a,b}-N.json, the comparison
# (tools/uml-profile.py --compare with lists) to stdout and
# build/profile/ab-NAME.md.
set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

usage="usage: uml-profile-ab.sh A.ko B.ko DRIVER ULP JOB [ROUNDS [SECS [MTU]]]"
ko_a=${1:?$usage}
ko_b=${2:?$usage}
drv=${3:?$usage}
ulp=${4:?$usage}
job=${5:?$usage}
rounds=${6:-4}
secs=${7:-20}
mtu=${8:-}
# The modules' paths as given, from where the script was started.
ko_a=$(realpath -e "$ko_a") || rddp_die "no module $1"
ko_b=$(realpath -e "$ko_b") || rddp_die "no module $2"
cd "$RDDP_TOP"
name=$drv-$ulp-$job${mtu:+-mtu$mtu}
runs=build/profile/ab-$name
one=build/profile/profile-$name.json
rm -rf "$runs"
mkdir -p "$runs"
profile() { # SIDE KO ROUND
	rddp_log "ab-$name: round $3 of $rounds, module $1 ($2)"
	RDDP_PROFILE_KO=$2 bash tools/vm/uml-profile.sh "$drv" "$ulp" "$job" "$secs" \
		${mtu:+"$mtu"} >"$runs/$1-$3.md" ||
		rddp_die "ab-$name: the run failed ($runs/$1-$3.md, build/profile/profile-$name.log)"
	cp "$one" "$runs/$1-$3.json"
	rddp_log "ab-$name: $(head -1 "$runs/$1-$3.md" | sed 's/^## //')"
}
for r in $(seq 1 "$rounds"); do
	if [ $((r % 2)) -eq 1 ]; then
		profile a "$ko_a" "$r"
		profile b "$ko_b" "$r"
	else
		profile b "$ko_b" "$r"
		profile a "$ko_a" "$r"
	fi
done
list() { seq 1 "$rounds" | sed "s|.*|$runs/$1-&.json|" | paste -sd,; }
"${RDDP_PYTHON:-python3}" tools/uml-profile.py --compare "$(list a)" "$(list b)" \
	--names "A: $ko_a" "B: $ko_b" | tee "build/profile/ab-$name.md"
