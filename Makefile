# SPDX-License-Identifier: GPL-2.0
# rddp top-level build. `make help` lists the targets.

SHELL := /bin/bash
TOP := $(abspath .)
BUILD := $(TOP)/build

STOCK_KVER := $(shell bash -c '. tools/lib.sh; rddp_stock_kver' 2>/dev/null)
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
# The kernel rddp.ko is built for: the running kernel's if it has a build
# tree, else Debian's 6.1 headers (this project's reference kernel).
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),/lib/modules/$(STOCK_KVER)/build)
KMOD_OUT ?= $(BUILD)/kmod
CMAKE_BUILD := $(BUILD)/cmake
JOBS ?= $(shell nproc)
# rddp's version from git (tools/version.sh): MODULE_VERSION, the packages.
RDDP_VERSION := $(or $(shell bash tools/version.sh 2>/dev/null),unknown)

.PHONY: all kmod kmod-stock kmod-stock-6.12 kmod-debug kmod-uml-debug kmod-uml userspace deps check demo bench bench-core \
	coverage fuzz install clean help debug-kernel deb check-all soak

all: kmod userspace

help:
	@echo 'make             build rddp.ko (for KDIR) and the user-space tools'
	@echo 'make kmod        build rddp.ko against KDIR (default: $(KDIR))'
	@echo 'make userspace   build rddpctl, tests and benchmarks (CMake, build/cmake)'
	@echo 'make deps        install the Debian packages everything needs'
	@echo 'make check       all tests: unit, static checks, fuzz, VM tests (6.1, 6.12, debug)'
	@echo 'make check-all   the same with every VM suite on Linux 6.12 and the debug kernel'
	@echo 'make soak        the community suites whole: blktests nvme over rddp and siw (hours)'
	@echo 'make demo        boot a VM, create an rddp link and show it'
	@echo 'make bench       benchmarks beside siw; make bench-core: protocol core only'
	@echo 'make coverage    protocol-core line coverage (build/coverage/html)'
	@echo 'make fuzz        run the fuzzers (FUZZ_SECONDS per target, default 300;'
	@echo '                 FUZZ_RUNS=N: N executions per target instead)'
	@echo 'make install     install rddp.ko for the running kernel and rddpctl (needs root)'
	@echo 'make deb         Debian packages rddp-dkms and rddp-utils into build/deb'

deps:
	@bash tools/deps.sh

# Kernel objects compile through ccache when tools/check.sh set its cache up
# (CCACHE_DIR): a fresh clone's module builds hit the last run's objects.
# Every build of one tree must name the same CC, or Kbuild rebuilds it all
# (tools/kmod-check.sh's sparse pass passes it too).
KMOD_CC := $(if $(and $(CCACHE_DIR),$(shell command -v ccache)),CC="ccache gcc")

# Kbuild writes objects next to the sources, so each kernel gets its own tree
# of symlinks to kmod/ (new files are picked up on every build).
define kmod_build
	@mkdir -p $(2)
	@cp -rsf $(TOP)/kmod/. $(2)/
	@find $(2) -xtype l -delete
	$(MAKE) -C $(1) M=$(2) RDDP_INCLUDE=$(TOP)/include RDDP_VERSION=$(RDDP_VERSION) $(KMOD_CC) W=1 $(3) modules
	@echo "rddp.ko for Linux $$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(1)/include/generated/utsrelease.h) ($(1)): $(2)/rddp.ko"
endef

kmod:
	$(call kmod_build,$(KDIR),$(KMOD_OUT))

# The test guests' builds also make the test module (kmod/test/).
kmod-stock:
	$(call kmod_build,/lib/modules/$(STOCK_KVER)/build,$(BUILD)/kmod-stock,RDDP_TESTS=1)

# Debian's 6.12 (the newest 6.12 headers installed; make deps installs them).
kmod-stock-6.12:
	$(call kmod_build,/usr/src/linux-headers-$(shell bash -c '. tools/lib.sh; rddp_612_kver'),$(BUILD)/kmod-stock-6.12,RDDP_TESTS=1)

debug-kernel:
	@bash tools/kernel/build-debug-kernel.sh

kmod-debug:
	$(call kmod_build,$(shell bash tools/kernel/build-debug-kernel.sh),$(BUILD)/kmod-debug,RDDP_TESTS=1)

# User-Mode Linux kernels of the fast test lane (tools/kernel/build-uml-kernel.sh).
kmod-uml-debug:
	$(call kmod_build,$(shell bash tools/kernel/build-uml-kernel.sh debug)/build,$(BUILD)/kmod-uml-debug,RDDP_TESTS=1 ARCH=um)

kmod-uml:
	$(call kmod_build,$(shell bash tools/kernel/build-uml-kernel.sh plain)/build,$(BUILD)/kmod-uml,RDDP_TESTS=1 ARCH=um)

userspace:
	cmake -S $(TOP) -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DRDDP_VERSION=$(RDDP_VERSION) >/dev/null
	cmake --build $(CMAKE_BUILD) -j$(JOBS)

check:
	@bash tools/check.sh

# Every suite on every kernel (tools/check.sh, RDDP_CHECK_ALL): beyond
# make check's time budget.
check-all:
	@RDDP_CHECK_ALL=1 bash tools/check.sh

# The kernel community's suites whole, too long for make check (tools/soak.sh).
soak:
	@bash tools/soak.sh

demo:
	@bash tools/demo.sh

bench-core:
	@bash tools/bench-core.sh

# BENCH_STORAGE=only: the storage series alone, without bench-core's.
bench:
	@[ "$${BENCH_STORAGE:-}" = only ] || bash tools/bench-core.sh
	@bash tools/bench.sh

coverage:
	@bash tools/coverage.sh

FUZZ_SECONDS ?= 300
fuzz:
	@bash tools/fuzz.sh $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),$(FUZZ_SECONDS))

# rddpctl, its man page and bash completion go under PREFIX (CMake's
# install rules in userspace/rddpctl).
PREFIX ?= /usr/local
install: kmod userspace
	$(MAKE) -C $(KDIR) M=$(KMOD_OUT) modules_install
	depmod -a $(notdir $(patsubst %/build,%,$(KDIR)))
	cmake --install $(CMAKE_BUILD) --prefix $(PREFIX)

# rddp-dkms and rddp-utils with dpkg-buildpackage (debian/), version from git.
deb:
	@bash tools/deb.sh

clean:
	rm -rf $(BUILD)
