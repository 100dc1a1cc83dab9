# SPDX-License-Identifier: MIT
#
# The whole build: one static library (libascendopt.a), the daemon, the CLI,
# the exec helper, cmocka unit tests, shell integration tests, libFuzzer
# targets and benchmarks.  Targets: all check bench demo install clean lint
# fuzz calibrate seed-bank stress.  Knobs: SANITIZE=address,undefined, PREFIX, DESTDIR, NO_DEPS=1 (skip
# scripts/install-deps), FUZZ_RUNS (executions per fuzz target), FUZZ_SECONDS (an optional cap on each).

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
LIBEXECDIR  ?= $(PREFIX)/libexec/ascendopt
DATADIR     ?= $(PREFIX)/share/ascendopt
SYSCONFDIR  ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR     ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user

CC       ?= cc
CLANG    ?= clang
OPT      ?= -O2 -g
SANITIZE ?=
FUZZ_RUNS    ?= 10000000
FUZZ_SECONDS ?=
NPROC    := $(shell nproc 2>/dev/null || echo 2)

BUILD    := build$(if $(SANITIZE),-san)
FUZZ_DIR := build-fuzz

PKGS      := libevent libevent_pthreads jansson rocksdb libgit2 libsystemd libcurl
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LIBS       = $(PKG_LIBS) -lm

SAN_FLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)
WARNINGS  := -Wall -Wextra -Werror -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes \
             -Wno-unused-parameter
ALL_CFLAGS = -std=gnu11 $(OPT) $(WARNINGS) -I. -D_GNU_SOURCE -MMD -MP \
             -DASCENDOPT_LIBEXECDIR='"$(LIBEXECDIR)"' -DASCENDOPT_DATADIR='"$(DATADIR)"' \
             -DASCENDOPT_SYSCONFDIR='"$(SYSCONFDIR)"' \
             $(PKG_CFLAGS) $(SAN_FLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

LIB_DIRS  := common config cxx daemon cli watchers queue store optimizer npu publish llm report draft fleet
PROG_SRCS := daemon/main.c cli/main.c common/exec-helper.c
LIB_SRCS  := $(filter-out $(PROG_SRCS),$(wildcard $(addsuffix /*.c,$(LIB_DIRS)) $(addsuffix /*/*.c,$(LIB_DIRS))))
LIB_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
LIB       := $(BUILD)/libascendopt.a
PROGRAMS  := $(BUILD)/ascendopt $(BUILD)/ascendoptd $(BUILD)/ascendopt-exec

# The simulator runtime is C++ that candidates link; it is never sanitized
# (candidates are not), so every build shares one copy in build/sim.
CXX        ?= g++
SIM_DIR    := build/sim
SIM_SRCS   := $(wildcard npu/sim/runtime/*.cpp)
SIM_OBJS   := $(patsubst npu/sim/runtime/%.cpp,$(SIM_DIR)/obj/%.o,$(SIM_SRCS))
SIM_CXXFLAGS = -std=gnu++17 -O2 -g0 -ffp-contract=off -fno-strict-aliasing -pipe -Wall -Werror \
               -Wno-unused-variable -Wno-unused-function -Inpu/sim/include -Inpu/sim/runtime -MMD -MP
SIM_LIB    := $(SIM_DIR)/libascendsim.a
SIM_TREE   := $(SIM_LIB) $(SIM_DIR)/include $(SIM_DIR)/platforms $(if $(SANITIZE),$(BUILD)/sim)

UNIT_BINS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(wildcard tests/unit/test_*.c))
HELPER_BINS := $(patsubst tests/helpers/%.c,$(BUILD)/tests/helpers/%,$(wildcard tests/helpers/*.c))
SHELL_TESTS := $(sort $(wildcard tests/t[0-9]*.sh) $(wildcard tests/security/s[0-9]*.sh))
BENCH_BINS  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/bench_*.c))

# Each fuzzer is compiled by clang from the sources it exercises, so the
# coverage instrumentation reaches exactly the code under test.
FUZZERS          := config manifest request schema tokens tree_names job_files
FUZZ_config_SRCS := config/config.c common/schema.c common/log.c common/path.c common/text.c
FUZZ_manifest_SRCS := npu/manifest.c npu/compare.c npu/written.c common/schema.c common/log.c common/path.c common/text.c
FUZZ_request_SRCS := daemon/control-request.c common/path.c
FUZZ_schema_SRCS := common/schema.c common/log.c
FUZZ_tokens_SRCS := cxx/tokens.c
FUZZ_tree_names_SRCS := watchers/gitscan.c store/store.c common/sha256.c common/path.c common/log.c
FUZZ_job_files_SRCS := store/memo.c store/store.c common/json-lines.c common/path.c common/log.c common/sha256.c common/text.c fleet/slurm-view.c
FUZZ_BINS        := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZERS))
FUZZ_CFLAGS       = -std=gnu11 -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter -I. -D_GNU_SOURCE \
                    -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS)

TEST_ENV = ASCENDOPT_BUILD=$(abspath $(BUILD)) \
           ASCENDOPT_FUZZ_DIR=$(abspath $(FUZZ_DIR)) \
           ASCENDOPT_EXEC_HELPER=$(abspath $(BUILD))/ascendopt-exec \
           ASCENDOPT_SIM_DIR=$(abspath $(BUILD))/sim \
           ASCENDOPT_CACHE_DIR=$(abspath $(BUILD))/test-cache \
           ASCENDOPT_SANITIZE=$(SANITIZE) \
           CMOCKA_MESSAGE_OUTPUT=TAP \
           ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
           LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: all check check-tests check-quick check-quick-tests bench bench-run demo demo-run seed-bank stress install clean lint fuzz fuzzers deps deps-tests tests \
	calibrate
.DELETE_ON_ERROR:
.SECONDARY:

all: $(LIB) $(PROGRAMS) $(SIM_TREE)

deps:
ifeq ($(NO_DEPS),)
	@scripts/install-deps
endif

# the tests also need a real Slurm (tests/t0050-fleet-slurm.sh); demo never installs it
deps-tests:
ifeq ($(NO_DEPS),)
	@scripts/install-deps --tests
endif

# check and demo install what is missing first, then re-enter make so that
# pkg-config sees the freshly installed packages.
check: deps-tests
	@$(MAKE) --no-print-directory NO_DEPS=1 check-tests

tests: all $(UNIT_BINS) $(HELPER_BINS) fuzzers

# T='t0019 queue' keeps the tests whose file names contain one of its words
# (make check T=t0019); without T, every test.
# The expensive ones (marked below) start first: prove -j runs the list in
# order, and a long test started last would run alone at the end.
EXPENSIVE      := $(shell grep -l -E '^(\# | \* )expensive:' $(SHELL_TESTS) $(wildcard tests/unit/test_*.c) 2>/dev/null)
EXPENSIVE_RUNS := $(filter $(EXPENSIVE),$(SHELL_TESTS)) $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(filter tests/unit/%,$(EXPENSIVE)))
ALL_TESTS      := $(EXPENSIVE_RUNS) $(filter-out $(EXPENSIVE_RUNS),$(UNIT_BINS) $(SHELL_TESTS))
SELECTED_TESTS := $(if $(T),$(foreach t,$(ALL_TESTS),$(if $(strip $(foreach w,$(T),$(findstring $(w),$(notdir $(t))))),$(t))),$(ALL_TESTS))

check-tests: tests
	$(if $(SELECTED_TESTS),,$(error T='$(T)' names no test: see tests/README.md))
	$(TEST_ENV) prove --timer -j$(NPROC) --exec '' $(SELECTED_TESTS)

# The edit loop: every test but those marked expensive, by a line
# "# expensive: WHY" in a shell test or " * expensive: WHY" in a unit
# test's top comment (tests/README.md); make check and CI still run them.
QUICK_TESTS := $(filter-out $(EXPENSIVE_RUNS),$(ALL_TESTS))

check-quick: deps
	@$(MAKE) --no-print-directory NO_DEPS=1 check-quick-tests

check-quick-tests: tests
	$(TEST_ENV) prove -j$$(( $(NPROC) * 2 )) --exec '' $(QUICK_TESTS)

# The seed bank: rewind over the corpus experts in a throwaway state
# directory, exported to etc/ascendopt/seed-bank.json (checked in).  The
# simulator is deterministic, so a 2% slowdown is already significant
# there; rewind's 5% default is for noisy hardware.
seed-bank: all
	@state=$$(mktemp -d) && \
	$(BUILD)/ascendopt rewind --root examples/ops --threshold 2 --state-dir $$state && \
	$(BUILD)/ascendopt experience export etc/ascendopt/seed-bank.json --state-dir $$state; \
	status=$$?; rm -rf $$state; exit $$status

# kill -9 the daemon at random moments during 10 episodes, 100 rounds
# (about a minute each); prints what was lost, duplicated or left undone.
stress: all
	@BUILD=$(BUILD) bash scripts/stress.sh $(or $(ROUNDS),100)

demo: deps
	@$(MAKE) --no-print-directory NO_DEPS=1 demo-run

demo-run: all
	@BUILD=$(BUILD) bash scripts/demo.sh

# The cycle model against the published Add benchmark (also part of check).
calibrate: all
	ASCENDOPT_BUILD=$(abspath $(BUILD)) tests/sim/calibrate.sh

bench: deps
	@$(MAKE) --no-print-directory NO_DEPS=1 bench-run

bench-run: all $(BENCH_BINS)
	@for b in $(BENCH_BINS); do ASCENDOPT_EXEC_HELPER=$(abspath $(BUILD))/ascendopt-exec ASCENDOPT_SIM_DIR=$(abspath $(BUILD))/sim $$b || exit 1; done
	@BUILD=$(BUILD) bash bench/bench_daemon.sh
	@BUILD=$(BUILD) bash bench/bench_control.sh
	@BUILD=$(BUILD) bash bench/realops.sh

fuzzers: $(FUZZ_BINS)

# Each target for FUZZ_RUNS executions, one at a time; a crash fails.
fuzz: fuzzers
	@FUZZ_DIR=$(abspath $(FUZZ_DIR)) FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) \
		bash bench/fuzz.sh $(FUZZ_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(SIM_DIR)/obj/%.o: npu/sim/runtime/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(SIM_CXXFLAGS) -c -o $@ $<

$(SIM_LIB): $(SIM_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# The evaluator finds the simulator as "sim" next to the programs.
$(SIM_DIR)/include $(SIM_DIR)/platforms:
	@mkdir -p $(SIM_DIR)
	ln -sfn $(abspath npu/sim/$(notdir $@)) $@

ifneq ($(SANITIZE),)
$(BUILD)/sim:
	@mkdir -p $(BUILD)
	ln -sfn $(abspath $(SIM_DIR)) $@
endif

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/ascendopt: $(BUILD)/obj/cli/main.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/ascendoptd: $(BUILD)/obj/daemon/main.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/ascendopt-exec: $(BUILD)/obj/common/exec-helper.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^

# what several unit tests share (tests/unit/op-fixture.h), linked into each
UNIT_SUPPORT := $(BUILD)/obj/tests/unit/op-fixture.o

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_SUPPORT) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) -lcmocka

$(BUILD)/tests/helpers/%: $(BUILD)/obj/tests/helpers/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

.SECONDEXPANSION:
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $$(FUZZ_$$*_SRCS) $$(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) $(LIBS)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(SYSCONFDIR)/ascendopt $(DESTDIR)$(DATADIR)
	install -m 0755 $(BUILD)/ascendopt $(BUILD)/ascendoptd $(DESTDIR)$(BINDIR)/
	install -m 0755 $(BUILD)/ascendopt-exec $(DESTDIR)$(LIBEXECDIR)/
	for unit in systemd/*.in; do \
		name=$$(basename $$unit .in); \
		case $$name in *.user.service) dest=$(DESTDIR)$(USERUNITDIR)/$${name%.user.service}.service;; \
		               *) dest=$(DESTDIR)$(UNITDIR)/$$name;; esac; \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		    -e 's|@SYSUSERSDIR@|$(PREFIX)/lib/sysusers.d|g' $$unit > $$dest; \
		chmod 0644 $$dest; \
	done
	@# The ascend backend's device permissions: an example drop-in, not active by default.
	install -d $(DESTDIR)$(DATADIR)/systemd
	install -m 0644 systemd/ascendoptd-ascend.conf $(DESTDIR)$(DATADIR)/systemd/ascendoptd-ascend.conf
	install -m 0644 systemd/ascendoptd-fleet.conf $(DESTDIR)$(DATADIR)/systemd/ascendoptd-fleet.conf
	@# The system unit's user; systemd-sysusers (or the next boot) creates it.
	install -d $(DESTDIR)$(PREFIX)/lib/sysusers.d
	install -m 0644 systemd/ascendopt.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/ascendopt.conf
	install -d $(DESTDIR)$(PREFIX)/lib/sysctl.d
	install -m 0644 systemd/ascendopt-inotify.conf $(DESTDIR)$(PREFIX)/lib/sysctl.d/60-ascendopt-inotify.conf
	@# An edited config is never overwritten; the example is installed beside it.
	if [ -e $(DESTDIR)$(SYSCONFDIR)/ascendopt/ascendoptd.json ]; then \
		install -m 0644 etc/ascendopt/ascendoptd.json $(DESTDIR)$(SYSCONFDIR)/ascendopt/ascendoptd.json.example; \
	else \
		install -m 0644 etc/ascendopt/ascendoptd.json $(DESTDIR)$(SYSCONFDIR)/ascendopt/; \
	fi
	@# Prompt templates are configuration users may edit: never overwritten.
	install -d $(DESTDIR)$(SYSCONFDIR)/ascendopt/prompts
	for p in etc/ascendopt/prompts/*; do \
		dest=$(DESTDIR)$(SYSCONFDIR)/ascendopt/prompts/$$(basename $$p); \
		[ -e $$dest ] || install -m 0644 $$p $$dest; \
	done
	install -d $(DESTDIR)$(DATADIR)/sim
	install -m 0644 etc/ascendopt/seed-bank.json $(DESTDIR)$(DATADIR)/seed-bank.json
	cp -R npu/sim/include npu/sim/platforms $(DESTDIR)$(DATADIR)/sim/
	install -m 0644 $(SIM_LIB) $(DESTDIR)$(DATADIR)/sim/
	@# The trivial operator 'ascendopt doctor' builds and runs on an NPU.
	install -d $(DESTDIR)$(DATADIR)/doctor/add
	cp -R examples/ops/level1/add/ascendopt.json examples/ops/level1/add/op_host \
		examples/ops/level1/add/op_kernel $(DESTDIR)$(DATADIR)/doctor/add/

# Our C; the AscendC shim (C++) and operator sources keep the style of their kind.
C_FILES = $(filter-out npu/sim/% tests/ops/% tests/fixtures/% examples/%,$(shell git ls-files '*.c' '*.h' 2>/dev/null))

lint:
	scripts/check-layers
	clang-format --dry-run --Werror $(C_FILES)
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
		--inline-suppr --suppress=missingIncludeSystem --suppress=unknownMacro -I. -D_GNU_SOURCE \
		$(filter %.c,$(C_FILES))

clean:
	rm -rf build build-san $(FUZZ_DIR)

-include $(shell find $(BUILD)/obj $(BUILD)/sim/obj -name '*.d' 2>/dev/null)
