#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (nothing installed on the host; one qemu guest):
#   - `make deb` builds rddp-dkms, rddp-utils and the source package
#   - lintian reports no errors (warnings are listed in the log)
#   - rddp-dkms: `dkms add` once and `dkms build` (one job, unsigned) in a
#     scratch DKMS tree against Debian's 6.1 headers and its 6.12 headers,
#     side by side, produce an rddp.ko for each whose modinfo has the
#     package's version, description, author, license, the rdma-link-rddp
#     alias and a description for every module_param
#   - `dkms install` into a scratch install tree puts each in
#     KVER/updates/dkms/; that tree, kept in build/check/dkms/modules, is
#     copied into /lib/modules of a qemu guest on each kernel
#     (tests/vm/dkms.sh), where depmod, `modprobe rddp`, rdma link add,
#     rping -V, link delete and rmmod work with DKMS's module and no other
#   - build/kmod-stock/rddp.ko (make kmod-stock) has the same metadata
#   - rddp-utils installs with dpkg into a scratch root; rddpctl --version
#     reports the package's version, `man -l` renders rddpctl(8), the bash
#     completion loads, and systemd-analyze verify accepts rddp-link@.service
# Prints one TAP line a check and `package: N passed, N failed, N skipped`.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$RDDP_TOP" || exit 1

pass=0 fail=0 skip=0 n=0
out="$RDDP_TOP/build/check"
mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rddp-package-check.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $1"; }
not_ok() { # NAME LOG [PATTERN]: the log's lines matching PATTERN, else its tail
	n=$((n + 1))
	fail=$((fail + 1))
	echo "not ok $n - $1 (log $2)"
	{ [ -n "${3:-}" ] && grep -E "$3" "$2" || tail -20 "$2"; } | head -40 | sed 's/^/#   /'
}
skipped() { n=$((n + 1)); skip=$((skip + 1)); echo "ok $n - $1 # SKIP $2"; }
# check NAME LOG CMD...: CMD's output goes to LOG; it passes with status 0.
check() {
	local name=$1 log=$2
	shift 2
	if "$@" >"$log" 2>&1; then ok "$name"; else not_ok "$name" "$log"; fi
}

# modinfo_ok KO VERSION: the module metadata the packages promise.
modinfo_ok() {
	local ko=$1 ver=$2 info p bad=0
	info=$(modinfo "$ko") || return 1
	echo "$info"
	grep -qx "version: *$ver" <<<"$info" || { echo "# version is not $ver"; bad=1; }
	grep -qx 'alias: *rdma-link-rddp' <<<"$info" || { echo "# no rdma-link-rddp alias"; bad=1; }
	grep -qx 'license: *GPL' <<<"$info" || { echo "# license is not GPL"; bad=1; }
	grep -qE '^description: *[^ ]' <<<"$info" || { echo "# no description"; bad=1; }
	grep -qE '^author: *[^ ]' <<<"$info" || { echo "# no author"; bad=1; }
	# Every module_param of rddp.ko's sources (kmod/test/ is another module).
	for p in $(grep -rhoE '^module_param(_named)?\([a-z0-9_]+' --include='*.c' \
		--exclude-dir=test kmod | sed 's/.*(//'); do
		grep -qE "^parm: *$p:[^ (][^(]* \(" <<<"$info" ||
			{ echo "# parameter $p has no description"; bad=1; }
	done
	return $bad
}

ver=$(bash tools/version.sh)
kver=$(rddp_stock_kver)

log="$out/package-deb.log"
if bash tools/deb.sh >"$log" 2>&1; then
	ok "make deb builds rddp-dkms and rddp-utils $ver"
else
	not_ok "make deb builds rddp-dkms and rddp-utils $ver" "$log"
	echo "package: $pass passed, $fail failed, $((skip + 4)) skipped"
	exit 1
fi
debs="$RDDP_TOP/build/deb"
dkms_deb=$(ls "$debs"/rddp-dkms_*_all.deb)
utils_deb=$(ls "$debs"/rddp-utils_*_amd64.deb)

# lintian as root says so on stderr; that is not a finding.
log="$out/package-lintian.log"
nice -n 19 lintian --info --display-info "$debs"/rddp_*.changes >"$log" 2>&1
rc=$?
errors=$(grep -c '^E: ' "$log")
warnings=$(grep -c '^W: ' "$log")
if [ "$errors" -eq 0 ] && [ "$rc" -eq 0 ]; then
	ok "lintian: no errors ($warnings warnings, $(grep -c '^[IP]: ' "$log") notes)"
else
	not_ok "lintian: $errors errors, $warnings warnings (rc $rc)" "$log" '^[EW]: '
fi

# DKMS in a scratch tree: nothing under /var/lib/dkms or /lib/modules.
# sign_file pointing nowhere keeps dkms from making a signing key in
# /var/lib/dkms. One source tree is added once and built for each
# supported kernel whose headers are installed, side by side, as on a
# system with both kernels.
mkdir -p "$scratch/dkms-root" "$scratch/dkms-tree"
dpkg-deb -x "$dkms_deb" "$scratch/dkms-root"
dkms_opts=(-m rddp -v "$ver" --sourcetree "$scratch/dkms-root/usr/src"
	--dkmstree "$scratch/dkms-tree")
nice -n 19 dkms add "${dkms_opts[@]}" >"$out/package-dkms-add.log" 2>&1 ||
	not_ok "dkms add" "$out/package-dkms-add.log"
dkms_tree_out="$out/dkms"
rm -rf "$dkms_tree_out"

# dkms_for KVER GUEST: dkms build and install (into a scratch install tree:
# --installtree stands in for /lib/modules, --no-depmod leaves the host's
# modules.dep alone) for KVER, the module's metadata, and the installed
# tree in a qemu guest booting GUEST (run.sh's --kernel) with no --ko, so
# DKMS's rddp.ko is the only one (tests/vm/dkms.sh: depmod, modprobe rddp,
# rdma link add, rping -V, link delete, rmmod, and run.sh's kernel-log
# check; its TAP lines count as this suite's). The tree is kept in
# build/check/dkms/ for the guest.
dkms_for() {
	local kver=$1 guest=$2 log ko="" line t vm_lines=0 sum
	log="$out/package-dkms-$guest.log"
	if sign_file=/nonexistent nice -n 19 dkms build -j 1 "${dkms_opts[@]}" \
		-k "$kver" --kernelsourcedir "/lib/modules/$kver/build" >"$log" 2>&1 &&
		dkms status "${dkms_opts[@]}" >>"$log" 2>&1; then
		# rddp.ko, or rddp.ko.xz where the kernel's modules are
		# compressed (6.12's are: DKMS compresses as the kernel does).
		ko=$(find "$scratch/dkms-tree/rddp/$ver/$kver" -name 'rddp.ko*' | head -1)
	fi
	if [ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$kver "; then
		ok "dkms build of rddp-dkms against $kver's headers makes rddp.ko"
	else
		not_ok "dkms build of rddp-dkms against $kver's headers makes rddp.ko" "$log"
		return
	fi
	log="$out/package-dkms-install-$guest.log"
	mkdir -p "$scratch/dkms-install/$kver"
	if nice -n 19 dkms install --no-depmod --installtree "$scratch/dkms-install" \
		"${dkms_opts[@]}" -k "$kver" >"$log" 2>&1 &&
		[ -f "$scratch/dkms-install/$kver/updates/dkms/${ko##*/}" ] &&
		cmp -s "$ko" "$scratch/dkms-install/$kver/updates/dkms/${ko##*/}"; then
		mkdir -p "$dkms_tree_out/modules"
		cp -a "$scratch/dkms-install/$kver" "$dkms_tree_out/modules/"
		ok "dkms install puts DKMS's ${ko##*/} in $kver/updates/dkms/"
	else
		{ echo "# install tree:"; find "$scratch/dkms-install"; } >>"$log"
		not_ok "dkms install puts DKMS's ${ko##*/} in $kver/updates/dkms/" "$log"
		return
	fi
	check "modinfo of DKMS's rddp.ko for $kver: version $ver, description, author, license, alias, parameters" \
		"$out/package-modinfo-dkms-$guest.log" modinfo_ok "$ko" "$ver"
	log="$out/package-vm-dkms-$guest.log"
	sum=$(sha256sum "$ko" | cut -d' ' -f1)
	nice -n 10 bash tools/vm/run.sh --kernel "$guest" --timeout 600 --name "package-dkms-$guest" \
		tests/vm/dkms.sh "build/check/dkms/modules" "$sum" >"$log" 2>&1
	while IFS= read -r line; do
		case $line in
		"ok "*"# SKIP"*)
			t=${line#ok * - }
			skipped "VM $kver: ${t%% # SKIP*}" "${t#*# SKIP }" ;;
		"ok "*) ok "VM $kver: ${line#ok * - }" ;;
		"not ok "*) n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - VM $kver: ${line#not ok * - } (log $log)" ;;
		"#"*) echo "$line" ;;
		*) continue ;;
		esac
		vm_lines=$((vm_lines + 1))
	done <"$log"
	[ "$vm_lines" -gt 0 ] || not_ok "VM run of tests/vm/dkms.sh on $kver reported results" "$log"
}
if [ -n "$kver" ]; then
	dkms_for "$kver" stock
else
	skipped "dkms build for Debian's 6.1 kernel" "no 6.1 headers (make deps)"
fi
if k612=$(rddp_612_kver); then
	dkms_for "$k612" stock-6.12
else
	skipped "dkms build for Linux 6.12" "no 6.12 headers (make deps)"
fi
# Both kernels' modules side by side in one DKMS tree, as dkms status
# lists them on a system with both.
log="$out/package-dkms-status.log"
dkms status "${dkms_opts[@]}" >"$log" 2>&1
if [ -n "$kver" ] && [ -n "${k612:-}" ]; then
	if grep -q "$kver.*installed" "$log" && grep -q "$k612.*installed" "$log"; then
		ok "dkms status: rddp $ver installed for $kver and $k612 side by side"
	else
		not_ok "dkms status: rddp $ver installed for $kver and $k612 side by side" "$log"
	fi
fi

# make kmod-stock (up to date after tools/kmod-check.sh; else it rebuilds
# main.o, which carries the version, or everything).
log="$out/package-kmod-stock.log"
if [ -z "$kver" ]; then
	skipped "modinfo of build/kmod-stock/rddp.ko" "no 6.1 headers (make deps)"
elif flock "$out/.build.lock" nice -n 19 make -s -j1 kmod-stock >"$log" 2>&1; then
	check "modinfo of build/kmod-stock/rddp.ko: the same metadata" \
		"$out/package-modinfo-stock.log" modinfo_ok build/kmod-stock/rddp.ko "$ver"
else
	not_ok "make kmod-stock" "$log"
fi

# rddp-utils through dpkg into a scratch root (its own dpkg database; the
# host's libraries run the binary). The package has no maintainer scripts.
root="$scratch/root"
log="$out/package-utils.log"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
check "rddp-utils installs into a scratch root with dpkg" "$log" \
	dpkg --root="$root" --log=/dev/null --force-not-root --force-depends \
	--force-script-chrootless -i "$utils_deb"

log="$out/package-rddpctl-version.log"
if "$root/usr/bin/rddpctl" --version >"$log" 2>&1 && grep -q "^rddpctl $ver " "$log"; then
	ok "rddpctl --version: $(head -1 "$log")"
else
	not_ok "rddpctl --version reports $ver" "$log"
fi

log="$out/package-man.log"
if MANWIDTH=80 man -l "$root/usr/share/man/man8/rddpctl.8.gz" >"$log" 2>&1 &&
	grep -q '^NAME' "$log" && grep -q 'rddpctl' "$log"; then
	ok "man -l renders rddpctl(8) ($(wc -l <"$log") lines)"
else
	not_ok "man -l renders rddpctl(8)" "$log"
fi

check "bash completion loads and completes rddpctl" "$out/package-completion.log" \
	bash -c '. "$1" && complete -p rddpctl' _ "$root/usr/share/bash-completion/completions/rddpctl"

# The template and an instance of it (the man pages it names are not
# installed on the host).
unit="$root/lib/systemd/system/rddp-link@.service"
ln -s "$unit" "$scratch/rddp-link@eth0.service"
check "systemd-analyze verify rddp-link@.service and rddp-link@eth0.service" \
	"$out/package-systemd.log" \
	systemd-analyze verify --man=no "$unit" "$scratch/rddp-link@eth0.service"

echo "package: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
