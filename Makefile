# SPDX-License-Identifier: GPL-2.0
# slackgov: in-kernel slack-driven power governor.  "make help" lists targets.
#
# Everything is built into $(O) (default build/); the sources are never
# written to.  The Debian 6.1 guest kernel, its private build tree with module
# BTF, and the packages are prepared by scripts/setup into $(CACHE), which
# "make clean" keeps ("make distclean" drops it).

KVER		?= 6.1.0-56
KFLAVOUR	?= amd64
O		?= $(CURDIR)/build
CACHE		?= $(CURDIR)/.cache
KCACHE		:= $(CACHE)/$(KVER)-$(KFLAVOUR)
# KDIR: the kernel build tree the module is built against.  The default is
# the private Debian 6.1 tree that scripts/setup makes (with vmlinux, so that
# module BTF, and with it the kfuncs, exist).  Override to build for your own
# running kernel: make KDIR=/lib/modules/$(uname -r)/build
# VMLINUX_BTF: the BTF base the module's BTF is checked against.
ifeq ($(origin KDIR),undefined)
KDIR		:= $(KCACHE)/kdir
VMLINUX_BTF	?= $(KCACHE)/vmlinux
else
VMLINUX_BTF	?= $(KDIR)/vmlinux
endif

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

export KVER KFLAVOUR O CACHE KDIR

.DELETE_ON_ERROR:
# keep objects and skeletons that are only intermediates of other targets
.SECONDARY:
.PHONY: all help setup kmod modules bpf userctl tools check check-host check-guest \
	bench demo docs clean distclean

all: kmod bpf userctl tools

help:
	@echo 'slackgov targets:'
	@echo '  all          (default) module, BPF objects, slackctl, test tools'
	@echo '  setup        install packages, prepare the guest kernel (scripts/setup)'
	@echo '  kmod         $(O)/kmod/slackgov.ko and the test modules'
	@echo '  bpf          $(O)/bpf/*.bpf.o and skeletons'
	@echo '  userctl      $(O)/userctl/slackctl'
	@echo '  check        every test: host, then guest (T=pattern to filter)'
	@echo '  check-host   host tests only      check-guest  guest tests only'
	@echo '  demo         the governor on its demo workload, with a report'
	@echo '  bench        the evaluation matrix (long)'
	@echo '  docs         copy the DOC blocks into Documentation/ (scripts/doc-sync)'
	@echo '  install      slackctl, BPF object, unit, man page (DESTDIR=, PREFIX=)'
	@echo '  uninstall    remove what install laid out'
	@echo '  dkms-install the module through DKMS for the running kernel'
	@echo '  clean        remove $(O)    distclean  also the kernel cache'
	@echo 'Variables: V=1 (verbose) O=dir KDIR=dir KVER=$(KVER) T=test-filter'

# ---- setup ------------------------------------------------------------------
SETUP_STAMP := $(KCACHE)/.setup-done

setup $(SETUP_STAMP): scripts/setup
	$(Q)scripts/setup
	$(Q)touch $(SETUP_STAMP)

# ---- kernel modules -----------------------------------------------------------
# Kbuild of 6.1 writes objects beside the sources of an external module, so
# the module sources are mirrored into $(O)/kbuild as symlinks and built there.
# "O=" for Kbuild: our O (make O=dir) reaches sub-makes through MAKEFLAGS,
# and Kbuild would take it for the kernel's own output tree.
KSRC := Kbuild kmod include selftests/modules
KMOD_SRCS := $(shell find $(KSRC) -type f 2>/dev/null)

kmod modules: $(O)/kmod/.stamp

$(O)/kmod/.stamp: $(SETUP_STAMP) $(KMOD_SRCS)
	$(call msg,KBUILD,$(O)/kbuild)
	$(Q)mkdir -p $(O)/kbuild $(O)/kmod
	$(Q)find $(O)/kbuild -xtype l -delete	# sources that were removed
	$(Q)for f in $(KMOD_SRCS); do [ -L $(O)/kbuild/$$f ] || \
		{ mkdir -p $(O)/kbuild/$$(dirname $$f) && ln -s $(CURDIR)/$$f $(O)/kbuild/$$f; }; done
	$(Q)$(MAKE) -C $(KDIR) M=$(O)/kbuild O= $(if $(V),V=$(V)) modules $(if $(Q),>$(O)/kbuild.log 2>&1 || \
		{ cat $(O)/kbuild.log; exit 1; })
	$(Q)cp $$(find $(O)/kbuild -name '*.ko') $(O)/kmod/
	$(Q)scripts/check-module-btf $(O)/kmod/slackgov.ko $(VMLINUX_BTF)
	$(Q)touch $@

# ---- BPF objects and skeletons --------------------------------------------------
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(patsubst bpf/%.bpf.c,$(O)/bpf/%.skel.h,$(BPF_SRCS))
BPF_HDRS := $(wildcard bpf/*.h) include/uapi/slackgov.h $(BPF_SRCS)	# objects may include each other
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

$(O)/vmlinux.h: $(SETUP_STAMP)
	$(Q)mkdir -p $(O)
	$(Q)cp $(KCACHE)/vmlinux.h $@

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

userctl: $(if $(USERCTL_SRCS),$(O)/userctl/slackctl)

$(O)/userctl/slackctl: $(USERCTL_SRCS) $(USERCTL_HDRS) $(BPF_SKELS) include/uapi/slackgov.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -Iuserctl $(USERCTL_SRCS) -o $@ $(USER_LDLIBS)

# Test tools: every selftests/tools/*.c is one program (shared code in .h).
TOOL_SRCS := $(wildcard selftests/tools/*.c)
TOOLS := $(patsubst selftests/tools/%.c,$(O)/selftests/%,$(TOOL_SRCS))

tools: $(TOOLS)

$(O)/selftests/%: selftests/tools/%.c $(wildcard selftests/tools/*.h) $(BPF_SKELS) $(TEST_BPF_SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -Iselftests/tools -I$(O)/selftests/progs $< -o $@ $(USER_LDLIBS)

# ---- tests, demo, bench -------------------------------------------------------------
check: all
	$(Q)selftests/run $(if $(T),-t '$(T)')

check-host: all
	$(Q)selftests/run -H $(if $(T),-t '$(T)')

check-guest: all
	$(Q)selftests/run -G $(if $(T),-t '$(T)')

demo: all
	$(Q)selftests/demo/run

bench: all
	$(Q)selftests/bench/run

# the DOC blocks' copies in Documentation/ (readers without sphinx)
docs:
	$(Q)scripts/doc-sync

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

distclean: clean
	$(Q)rm -rf $(CACHE)

# ---- install ------------------------------------------------------------------------
# make install DESTDIR=... PREFIX=...: slackctl, the BPF object, the service
# script, the systemd unit, the man page and an example config.  The module
# is installed by DKMS (make dkms-install), which builds it for each kernel.
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib/slackgov
MANDIR		?= $(PREFIX)/share/man
UNITDIR		?= $(PREFIX)/lib/systemd/system
SYSCONFDIR	?= /etc
VERSION		:= 0.1
DKMS_SRC	?= /usr/src/slackgov-$(VERSION)

INSTALLED := $(SBINDIR)/slackctl $(LIBDIR)/slackgov.bpf.o $(LIBDIR)/slackgov-service \
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
