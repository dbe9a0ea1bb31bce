# SPDX-License-Identifier: GPL-2.0
# slackgov: in-kernel slack-driven power governor.  "make help" lists targets.
#
# Everything is built into $(O) (default build/); the sources are never
# written to.  The Debian guest kernels (6.1 and 6.12), their private build
# trees with module BTF, and the packages are prepared by scripts/setup into
# $(CACHE), which "make clean" keeps ("make distclean" drops it).
#
# KVER: the guest kernels' ABIs, e.g. KVER="6.1.0-56 6.12.117+deb12".  By
# default the ones scripts/setup picked (the newest 6.1 and 6.12 in the apt
# index), recorded in $(CACHE)/kernels.mk.  The first is the default kernel:
# $(O)/kmod and vmlinux.h are its.  The module is built once per kernel, into
# $(O)/<kernel release>/kmod.

KFLAVOUR	?= amd64
O		?= $(CURDIR)/build
CACHE		?= $(CURDIR)/.cache

# targets that need no kernel: setup is not run for them
NOKERNEL_GOALS	:= help clean distclean docs setup uninstall dkms-uninstall sim sim-build \
		   debug-kernel check-debug
ifeq ($(KVER),)
ifneq ($(filter-out $(NOKERNEL_GOALS),$(or $(MAKECMDGOALS),all)),)
# make runs setup to make this file when it is missing, then restarts
include $(CACHE)/kernels.mk
else
SETUP_KVERS	:= $(shell sed -n 's/^SETUP_KVERS := //p' $(CACHE)/kernels.mk 2>/dev/null)
endif
KVERS		:= $(SETUP_KVERS)
else
KVERS		:= $(KVER)
endif
KRELS		:= $(addsuffix -$(KFLAVOUR),$(KVERS))
KREL0		:= $(firstword $(KRELS))

# KDIR: build the module for one other kernel tree instead, e.g. the running
# kernel's: make KDIR=/lib/modules/$(uname -r)/build.  The build folder is
# named after its release; VMLINUX_BTF is the BTF base the module's BTF is
# checked against.
ifneq ($(origin KDIR),undefined)
KMOD_KRELS	:= $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null || echo custom)
VMLINUX_BTF	?= $(KDIR)/vmlinux
else
KMOD_KRELS	:= $(KRELS)
endif
# kdir_of KREL / vmlinux_of KREL / setup_of KREL
kdir_of		= $(if $(filter undefined,$(origin KDIR)),$(CACHE)/$(1)/kdir,$(KDIR))
vmlinux_of	= $(or $(VMLINUX_BTF),$(CACHE)/$(1)/vmlinux)
setup_of	= $(if $(filter undefined,$(origin KDIR)),$(CACHE)/$(1)/.setup-done)

CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= gcc
ARCH_BPF	:= x86

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
MAKEFLAGS += --no-print-directory
endif

export KVERS KFLAVOUR O CACHE

.DELETE_ON_ERROR:
# keep objects and skeletons that are only intermediates of other targets
.SECONDARY:
.PHONY: all help setup kmod modules bpf userctl tools check check-host check-guest \
	lint bench demo docs clean distclean debug-kernel check-debug

all: kmod bpf userctl tools

help:
	@echo 'slackgov targets:'
	@echo '  all          (default) module, BPF objects, slackctl, test tools'
	@echo '  setup        install packages, prepare the guest kernels (scripts/setup)'
	@echo '  kmod         $(O)/<kernel>/kmod/slackgov.ko and the test modules, per kernel'
	@echo '  bpf          $(O)/bpf/*.bpf.o and skeletons'
	@echo '  userctl      $(O)/userctl/slackctl'
	@echo '  check        lint, then every test: host, then guest, one boot per kernel'
	@echo '               (T=pattern: those tests only, no lint)'
	@echo '  check-host   host tests only      check-guest  guest tests only'
	@echo '  debug-kernel the debug guest kernel (lockdep, KASAN, UBSAN, kmemleak; DEBUG=kcsan:'
	@echo '               KCSAN), built once into $(CACHE) (scripts/setup --debug-kernel; ~1 h)'
	@echo '  check-debug  the guest subset and a storm on the debug kernel; fails on any report'
	@echo '  lint         static checkers: W=1 C=2 (sparse) per kernel, checkpatch --strict,'
	@echo '               scan-build on slackctl; fails on any report (scripts/lint)'
	@echo '  demo         the governor on its demo workload, with a report'
	@echo '  bench        the evaluation matrix (long)'
	@echo '  sim          the control law in the simulator: $(O)/sim/results.json, tables'
	@echo '  docs         copy the DOC blocks into Documentation/ (scripts/doc-sync)'
	@echo '  install      slackctl, BPF objects, unit, man page (DESTDIR=, PREFIX=)'
	@echo '  uninstall    remove what install laid out'
	@echo '  dkms-install the module through DKMS for the running kernel'
	@echo '  clean        remove $(O)    distclean  also the kernel cache'
	@echo 'Variables: V=1 (verbose) O=dir KDIR=dir KVER="$(or $(KVERS),setup picks)" T=test-filter'

# ---- setup ------------------------------------------------------------------
# scripts/setup is idempotent (stamps per step): cheap to run again
setup:
	$(Q)scripts/setup

$(CACHE)/kernels.mk: scripts/setup
	$(Q)scripts/setup

$(CACHE)/%-$(KFLAVOUR)/.setup-done: scripts/setup
	$(Q)KVER=$* scripts/setup

# ---- kernel modules -----------------------------------------------------------
# One build per kernel: $(O)/<krel>/kmod/*.ko, and $(O)/kmod points to the
# default kernel's.  Kbuild of 6.1 writes objects beside the sources of an
# external module, so the module sources are mirrored into $(O)/<krel>/kbuild
# as symlinks and built there.  "O=" for Kbuild: our O (make O=dir) reaches
# sub-makes through MAKEFLAGS, and Kbuild would take it for the kernel's own
# output tree.
KSRC := Kbuild kmod include selftests/modules
KMOD_SRCS := $(shell find $(KSRC) -type f 2>/dev/null)

kmod modules: $(foreach r,$(KMOD_KRELS),$(O)/$(r)/kmod/.stamp)
	$(Q)[ -L $(O)/kmod ] || rm -rf $(O)/kmod
	$(Q)ln -sfn $(firstword $(KMOD_KRELS))/kmod $(O)/kmod

define kmod_rule
$(O)/$(1)/kmod/.stamp: $(call setup_of,$(1)) $(KMOD_SRCS)
	$$(call msg,KBUILD,$(O)/$(1)/kbuild)
	$(Q)mkdir -p $(O)/$(1)/kbuild $(O)/$(1)/kmod
	$(Q)find $(O)/$(1)/kbuild -xtype l -delete	# sources that were removed
	$(Q)for f in $(KMOD_SRCS); do [ -L $(O)/$(1)/kbuild/$$$$f ] || \
		{ mkdir -p $(O)/$(1)/kbuild/$$$$(dirname $$$$f) && ln -s $(CURDIR)/$$$$f $(O)/$(1)/kbuild/$$$$f; }; done
	$(Q)$(MAKE) -C $(call kdir_of,$(1)) M=$(O)/$(1)/kbuild O= $(if $(V),V=$(V)) modules \
		$(if $(Q),>$(O)/$(1)/kbuild.log 2>&1 || { cat $(O)/$(1)/kbuild.log; exit 1; })
	$(Q)cp $$$$(find $(O)/$(1)/kbuild -name '*.ko') $(O)/$(1)/kmod/
	$(Q)scripts/check-module-btf $(O)/$(1)/kmod/slackgov.ko $(call vmlinux_of,$(1))
	$(Q)touch $$@
endef
$(foreach r,$(KMOD_KRELS),$(eval $(call kmod_rule,$(r))))

# ---- BPF objects and skeletons --------------------------------------------------
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.skel.h,$(BPF_SRCS))
BPF_HDRS := $(wildcard bpf/*.h) $(wildcard include/uapi/*.h) $(BPF_SRCS)	# objects may include each other
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH_BPF) -mcpu=v3 \
	-I$(O) -Iinclude/uapi -Ibpf

# Test-only BPF programs: selftests/<area>/progs/NAME.bpf.c -> $(O)/selftests/progs/
# (defined before the rule that names them: make expands prerequisites as it
# reads the rule)
TEST_BPF_SRCS := $(wildcard selftests/*/progs/*.bpf.c)
TEST_BPF_OBJS := $(foreach f,$(TEST_BPF_SRCS),$(O)/selftests/progs/$(notdir $(f:.bpf.c=.bpf.o)))
TEST_BPF_SKELS := $(TEST_BPF_OBJS:.bpf.o=.skel.h)
vpath %.bpf.c $(sort $(dir $(TEST_BPF_SRCS)))

bpf: $(BPF_OBJS) $(BPF_SKELS) $(TEST_BPF_SKELS)

# CO-RE: the objects built against the default (oldest) kernel's types load
# on the others.  VMLINUX_H: another kernel's types (make check-debug's)
$(O)/vmlinux.h: $(or $(VMLINUX_H),$(CACHE)/$(KREL0)/.setup-done)
	$(Q)mkdir -p $(O)
	$(Q)cp $(or $(VMLINUX_H),$(CACHE)/$(KREL0)/vmlinux.h) $@

$(O)/bpf/%.bpf.o: bpf/%.bpf.c $(BPF_HDRS) $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

$(O)/selftests/progs/%.bpf.o: %.bpf.c $(BPF_HDRS) $(O)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(O)/selftests/progs/%.skel.h: $(O)/selftests/progs/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# ---- user space -------------------------------------------------------------------
# Static binaries: the same slackctl and test tools run on the host and in the
# busybox guest.
USER_CFLAGS := -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
	-D_GNU_SOURCE -Iinclude/uapi -I$(O)/bpf -I$(O)
USER_LDLIBS := -static -lbpf -lelf -lz -lzstd -lm -lpthread

USERCTL_SRCS := $(wildcard userctl/*.c)
USERCTL_HDRS := $(wildcard userctl/*.h)
# slackctl: all of -Wall -Wextra (a callback's unread parameter is marked
# __maybe_unused); the test tools still go without these two
USERCTL_CFLAGS := $(filter-out -Wno-unused-parameter -Wno-missing-field-initializers,$(USER_CFLAGS))

userctl: $(if $(USERCTL_SRCS),$(O)/userctl/slackctl)

$(O)/userctl/slackctl: $(USERCTL_SRCS) $(USERCTL_HDRS) $(BPF_SKELS) $(wildcard include/uapi/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USERCTL_CFLAGS) -Iuserctl $(USERCTL_SRCS) -o $@ $(USER_LDLIBS)

# Test tools: every selftests/tools/*.c is one program (shared code in .h).
TOOL_SRCS := $(wildcard selftests/tools/*.c)
TOOLS := $(patsubst selftests/tools/%.c,$(O)/selftests/%,$(TOOL_SRCS))

tools: $(TOOLS)

$(O)/selftests/%: selftests/tools/%.c $(wildcard selftests/tools/*.h) $(BPF_SKELS) $(TEST_BPF_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -Iselftests/tools -I$(O)/selftests/progs $< -o $@ $(USER_LDLIBS)

# ---- static checkers -----------------------------------------------------------------
# scripts/lint: the module built with W=1 C=2 for each kernel, checkpatch
# --strict on kmod/ and include/ (less the exceptions testing.rst
# justifies), scan-build on userctl/; slackctl itself is built with -Wextra
lint: $(foreach r,$(KMOD_KRELS),$(call setup_of,$(r))) $(BPF_SKELS) userctl
	$(Q)O=$(O) CACHE=$(CACHE) CLANG=$(CLANG) USERCTL_CFLAGS="$(USERCTL_CFLAGS)" \
		LINT_KERNELS="$(foreach r,$(KMOD_KRELS),$(r)=$(call kdir_of,$(r)))" scripts/lint

# ---- tests, demo, bench -------------------------------------------------------------
# check: the static checkers first (about a minute), unless T= picks tests
check: all $(if $(T),,lint)
	$(Q)selftests/run $(if $(T),-t '$(T)')

check-host: all
	$(Q)selftests/run -H $(if $(T),-t '$(T)')

check-guest: all
	$(Q)selftests/run -G $(if $(T),-t '$(T)')

# check-debug: everything built again into $(O)/debug for the debug guest
# kernel (its release is <ver>-sgdebug, or -sgkcsan with DEBUG=kcsan), then
# one boot of it: the guest tests that exercise slackgov's code paths without
# timing figures (DEBUG_TESTS, a regex like T), then selftests/debug/'s
# option check, storm and report count (Documentation/testing.rst).  Not
# part of check: CI never builds the debug kernel.
DEBUG		?= kasan
DEBUG_FLAVOUR	:= $(if $(filter kcsan,$(DEBUG)),sgkcsan,sgdebug)
# (not guest-util under KCSAN: its watchpoints' delays in the idle path read
# as load, 84 % on an idle CPU, and its util rule then asks for max)
DEBUG_TESTS	?= rig/guest-boot|vm/guest-dmesg|governor/guest-(feed|knobs|lifecycle|policy|policy-fast$(if $(filter kcsan,$(DEBUG)),,|util))\.sh|metrics/guest-(feed|hooks)|slackctl/guest-slackctl|platform/guest-lifecycle
DEBUG_EXTRA	:= selftests/debug/debug-storm.sh \
	$(if $(filter 0,$(DEBUG_FUZZ)),,selftests/debug/debug-fuzz.sh) selftests/debug/debug-reports.sh

debug-kernel:
	$(Q)scripts/setup --debug-kernel=$(DEBUG)

# The BPF objects are built against the default Debian kernel's types when
# setup prepared it, as make check builds them: the same objects, loaded by
# CO-RE on the debug kernel
DEBUG_VMLINUX_H	:= $(CACHE)/$(firstword $(SETUP_KVERS))-amd64/vmlinux.h

check-debug: debug-kernel
	$(Q)kv=$$(sed -n 's/^DEBUG_KVER := //p' $(CACHE)/debug.mk) && \
	vh=$(DEBUG_VMLINUX_H) && { [ -e "$$vh" ] || vh=; } && \
	$(MAKE) O=$(O)/debug KVER=$$kv KFLAVOUR=$(DEBUG_FLAVOUR) $${vh:+VMLINUX_H=$$vh} all && \
	O=$(O)/debug KVERS=$$kv KFLAVOUR=$(DEBUG_FLAVOUR) VM_MEM=$${VM_MEM:-2G} \
		SG_TIMEOUT_SCALE=$${SG_TIMEOUT_SCALE:-4} VM_APPEND="log_buf_len=8M $${VM_APPEND:-}" \
		$(if $(filter kcsan,$(DEBUG)),DEBUG_DMESG_IGNORE='BUG: KCSAN:') \
		selftests/run -G -t '$(DEBUG_TESTS)' -f selftests/debug/debug-config.sh $(addprefix -x ,$(DEBUG_EXTRA))

demo: all
	$(Q)selftests/demo/run

bench: all
	$(Q)selftests/bench/run

# ---- the simulator (sim/, Documentation/simulation.rst) ----------------------------
# kmod/control.c unchanged, built as selftests/governor/host-control.sh
# builds it (user space, the unit test's shim), linked with the simulator.
# "make sim" runs sim/cells/*.cells (SIM_CELLS= a subset, SIM_JOBS= the
# parallel runs, default the CPUs) into $(O)/sim/: one JSON object per
# cell, results.json, and the tables Documentation/simulation.rst includes.
.PHONY: sim sim-build
SIM_SHIM	:= selftests/governor/unit/shim
SIM_INC		:= -I$(SIM_SHIM) -Iinclude/uapi -Ikmod
SIM_CFLAGS	:= -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-missing-field-initializers -D_GNU_SOURCE $(SIM_INC)
SIM_CONTROL_CFLAGS := -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
	$(SIM_INC)
SIM_SHARED	:= $(patsubst sim/%.c,$(O)/sim/obj/%.o,$(wildcard sim/*.c))
SIM_OBJS	:= $(SIM_SHARED) $(O)/sim/obj/control.o
SIM_DEPS	:= $(wildcard sim/*.h) kmod/control.h include/uapi/slackgov.h \
	$(wildcard $(SIM_SHIM)/linux/*.h)
# the law with one mechanism off (sim/variants): build/sim/sgsim-NAME
SIM_VARIANTS	:= $(shell cut -f1 sim/variants | grep -v '^\#')
SIM_VARIANT_BINS := $(SIM_VARIANTS:%=$(O)/sim/sgsim-%)

sim-build: $(O)/sim/sgsim

$(O)/sim/obj/control.o: kmod/control.c $(SIM_DEPS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SIM_CONTROL_CFLAGS) -include sim/law.h -DSIM_LAW='"law"' -c $< -o $@

$(O)/sim/var/%/control.o: kmod/control.c sim/variants sim/variant $(SIM_DEPS)
	$(call msg,CC,$@)
	$(Q)CC="$(CC)" CFLAGS="$(SIM_CONTROL_CFLAGS)" sim/variant $* $@

.PRECIOUS: $(O)/sim/var/%/control.o
$(O)/sim/sgsim-%: $(SIM_SHARED) $(O)/sim/var/%/control.o
	$(call msg,LD,$@)
	$(Q)$(CC) $^ -lm -o $@

$(O)/sim/obj/%.o: sim/%.c $(SIM_DEPS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(SIM_CFLAGS) -c $< -o $@

$(O)/sim/sgsim: $(SIM_OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $^ -lm -o $@

sim: $(O)/sim/sgsim $(SIM_VARIANT_BINS)
	$(Q)O=$(O) SIM_CELLS="$(SIM_CELLS)" SIM_JOBS="$(SIM_JOBS)" sim/run

# the DOC blocks' copies in Documentation/ (readers without sphinx)
docs:
	$(Q)scripts/doc-sync

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

distclean: clean
	$(Q)rm -rf $(CACHE)

# ---- install ------------------------------------------------------------------------
# make install DESTDIR=... PREFIX=...: slackctl, the BPF object, the sample
# BPF control law (slackctl policy load), the service script, the systemd
# unit, the man page and an example config.  The module
# is installed by DKMS (make dkms-install), which builds it for each kernel.
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib/slackgov
MANDIR		?= $(PREFIX)/share/man
UNITDIR		?= $(PREFIX)/lib/systemd/system
SYSCONFDIR	?= /etc
VERSION		:= 0.1
DKMS_SRC	?= /usr/src/slackgov-$(VERSION)

INSTALLED := $(SBINDIR)/slackctl $(LIBDIR)/slackgov.bpf.o $(LIBDIR)/util_policy.bpf.o \
	$(LIBDIR)/slackgov-service \
	$(UNITDIR)/slackgov.service $(MANDIR)/man8/slackctl.8 $(SYSCONFDIR)/slackgov.conf

.PHONY: install uninstall man dkms-install dkms-uninstall
man: $(O)/man/slackctl.8

$(O)/man/slackctl.8: Documentation/slackctl.rst
	$(call msg,RST2MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)rst2man $< > $@

# The unit names the install paths, so it is made at every install (and
# replaced only when its text changed): an install with another PREFIX never
# lays out a unit that points at the previous one.
.PHONY: $(O)/slackgov.service
$(O)/slackgov.service: scripts/slackgov.service.in
	$(Q)mkdir -p $(@D)
	$(Q)sed -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@SBINDIR@|$(SBINDIR)|g' \
		-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

install: userctl bpf man $(O)/slackgov.service
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(O)/userctl/slackctl $(DESTDIR)$(SBINDIR)/slackctl
	$(Q)install -D -m 0644 $(O)/bpf/slackgov.bpf.o $(DESTDIR)$(LIBDIR)/slackgov.bpf.o
	$(Q)install -D -m 0644 $(O)/bpf/util_policy.bpf.o $(DESTDIR)$(LIBDIR)/util_policy.bpf.o
	$(Q)install -D -m 0755 scripts/slackgov-service $(DESTDIR)$(LIBDIR)/slackgov-service
	$(Q)install -D -m 0644 $(O)/slackgov.service $(DESTDIR)$(UNITDIR)/slackgov.service
	$(Q)install -D -m 0644 $(O)/man/slackctl.8 $(DESTDIR)$(MANDIR)/man8/slackctl.8
	$(Q)[ -e $(DESTDIR)$(SYSCONFDIR)/slackgov.conf ] || \
		install -D -m 0644 scripts/slackgov.conf $(DESTDIR)$(SYSCONFDIR)/slackgov.conf

# the config is the administrator's: removed only if unchanged
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)cmp -s scripts/slackgov.conf $(DESTDIR)$(SYSCONFDIR)/slackgov.conf && \
		rm -f $(DESTDIR)$(SYSCONFDIR)/slackgov.conf || true
	$(Q)rm -f $(addprefix $(DESTDIR),$(filter-out $(SYSCONFDIR)/%,$(INSTALLED)))
	$(Q)rmdir $(DESTDIR)$(LIBDIR) 2>/dev/null || true

# The module's sources as DKMS wants them, then dkms add/build/install for
# the running kernel (or KERNELRELEASE=...).  DESTDIR only stages the tree.
DKMS_FILES := dkms.conf Kbuild $(shell find kmod include -type f) scripts/check-module-btf
dkms-install:
	$(call msg,DKMS,$(DESTDIR)$(DKMS_SRC))
	$(Q)for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRC)/$$f; done
	$(Q)chmod 0755 $(DESTDIR)$(DKMS_SRC)/scripts/check-module-btf
	$(Q)[ -n "$(DESTDIR)" ] || { dkms add slackgov/$(VERSION) && \
		dkms build slackgov/$(VERSION) $(if $(KERNELRELEASE),-k $(KERNELRELEASE)) && \
		dkms install slackgov/$(VERSION) $(if $(KERNELRELEASE),-k $(KERNELRELEASE)); }

dkms-uninstall:
	$(Q)dkms remove slackgov/$(VERSION) --all 2>/dev/null || true
	$(Q)rm -rf $(DESTDIR)$(DKMS_SRC)

# "make build/selftests/sgserver" etc.: relative names of the outputs above
REL_OUTPUTS := $(patsubst $(CURDIR)/%,%,$(filter $(CURDIR)/%,$(TOOLS) $(O)/userctl/slackctl))
.PHONY: $(REL_OUTPUTS)
$(REL_OUTPUTS): %: $(CURDIR)/%
