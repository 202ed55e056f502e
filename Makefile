# gpuquote — build, run and test.
#
#   make            build build/gpuquote
#   make run        install missing packages, build, migrate data/gpuquote.db, serve on :8080
#   make test       install missing packages, build and run every test
#   make check      run every test (what make test runs once packages are in), the
#                   commands of README.md and docs/ among them
#   make migrate    build, and apply pending migrations to the configured database
#   make asan       the whole test suite built with -fsanitize=address,undefined
#   make valgrind   the integration tests against the server under valgrind
#   make bench      benchmarks against nginx (bench/RESULTS.md) and, for saved quotes on
#                   PostgreSQL, against pgbench (bench/POSTGRES.md)
#   make fuzz       libFuzzer harnesses, FUZZ_SECONDS each
#   make lint       openapi.yaml through redocly, cppcheck over src/
#   make k8s-check  deploy/kubernetes/ against the Kubernetes API's schemas
#   make deps       install missing packages only
#   make format     clang-format the sources
#   make clean      remove build/
#   make help       this list
#
# The layers link in one direction: core <- util <- store <- codec <- http,
# api, admin <- main.
# The core's unit tests link the core objects alone, with neither
# libmicrohttpd nor sqlite3, which keeps src/core/ pure.

BUILD ?= build
SANITIZE ?=
# `make V=1` shows full command lines.
V ?= 0
ifeq ($(V),0)
Q = @
say = @printf '  %-6s %s\n' $(1) $(2);
else
Q =
say =
endif
OPT ?= -O2 -g

VERSION := 0.1.0

WARNINGS = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wvla -Wformat=2 -Wconversion -Wno-sign-conversion -Wpointer-arith -Wundef
CPPFLAGS = -Isrc -D_GNU_SOURCE -DGQ_VERSION='"$(VERSION)"'
CFLAGS_ALL = -std=c11 $(OPT) $(WARNINGS) -fno-strict-aliasing -pthread $(CFLAGS)
# The server's allocator (docs/development.md, Dependencies): jemalloc. Builds that must
# see every allocation themselves keep glibc's: ASan's, and valgrind's
# (`make valgrind` sets ALLOCATOR empty), as Redis does with MALLOC=libc.
ALLOCATOR ?= jemalloc
ifeq ($(SANITIZE),1)
CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS_SAN = -fsanitize=address,undefined
override ALLOCATOR =
endif

# Library flags are looked up when a recipe runs (=, not :=), after deps.sh
# has had the chance to install them.
pkg = $(shell pkg-config $(1) $(2))
LIBS_CORE  = -lm
LIBS_UTIL  = $(call pkg,--libs,jansson nettle) -pthread
LIBS_STORE = $(call pkg,--libs,sqlite3 libpq nettle liblz4)
LIBS_HTTP  = $(call pkg,--libs,libmicrohttpd jansson)
LIBS_CHECK = $(call pkg,--libs,check)
LIBS_CURL  = $(call pkg,--libs,libcurl)
LIBS_DOCUMENT = $(call pkg,--libs,pangocairo fontconfig)
# The tests' webhook receiver checks signatures with OpenSSL, apart from nettle.
LIBS_CRYPTO = $(call pkg,--libs,libcrypto)
LIBS_ALLOC = $(if $(ALLOCATOR),$(call pkg,--libs,$(ALLOCATOR)))
PKG_CFLAGS = $(call pkg,--cflags,libmicrohttpd jansson sqlite3 libpq nettle liblz4 libcurl)
# Only for the tests' objects, so that building the server alone (the
# Dockerfile's build stage) does not ask for packages it has no need of.
TEST_PKG_CFLAGS = $(call pkg,--cflags,check libcurl)

CORE_SRC  := $(wildcard src/core/*.c)
UTIL_SRC  := $(wildcard src/util/*.c)
STORE_SRC := $(wildcard src/store/*.c src/store/sqlite/*.c src/store/postgres/*.c)
# The transport (http/), the public API's handlers (api/) and the admin
# API's (admin/); the codecs (codec/) are apart, below.
HTTP_SRC  := $(wildcard src/http/*.c src/api/*.c src/admin/*.c)
# The quotation's PDF, on cairo and pango: in the server alone.
DOCUMENT_SRC := $(wildcard src/document/*.c)
HTTP_ASM  := $(wildcard src/http/*.S)
CLI_SRC   := $(wildcard src/cli/*.c)
CODEC_SRC := $(wildcard src/codec/*.c)
# The codecs of the store's records (src/codec/store_json.h): they call the
# store's helpers, so they link wherever the store does, apart from the
# others.
STORE_JSON_SRC := $(addprefix src/codec/,quote_json.c endpoint_json.c price_list_json.c \
                                         store_render.c price_list_document.c)
# The webhook sender, on libcurl: in the server alone.
WEBHOOK_SRC := $(wildcard src/webhooks/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(patsubst %.S,$(BUILD)/obj/%.o,$(1)))
CORE_OBJ  := $(call obj,$(CORE_SRC))
UTIL_OBJ  := $(call obj,$(UTIL_SRC))
STORE_OBJ := $(call obj,$(STORE_SRC))
# The store's records as the API shows them (src/codec/store_json.h): on
# the store's types, so linked wherever the store is, and handed to it as
# its renderer (store_set_render()).
STORE_JSON_OBJ := $(call obj,$(STORE_JSON_SRC))
# The storefront page (web/), built into the server with a gzip copy of
# each file (scripts/embed-web.sh, src/http/static.c).
WEB_FILES := web/index.html $(sort $(wildcard web/static/*))
WEB_GZ    := $(patsubst web/%,$(BUILD)/web/%.gz,$(WEB_FILES))
WEB_OBJ   := $(BUILD)/obj/web_assets.o
# The codecs: JSON <-> the core's structs, without libmicrohttpd
# (src/codec/), tested and fuzzed on their own.
BODY_OBJ  := $(call obj,$(filter-out $(STORE_JSON_SRC),$(CODEC_SRC)))
HTTP_OBJ  := $(call obj,$(HTTP_SRC) $(HTTP_ASM)) $(BODY_OBJ) $(WEB_OBJ)
MAIN_OBJ  := $(call obj,src/main.c $(CLI_SRC) $(WEBHOOK_SRC))
DOCUMENT_OBJ := $(call obj,$(DOCUMENT_SRC))

BIN := $(BUILD)/gpuquote

# Test binaries, one per tests/<layer>/check_*.c.
TEST_CORE  := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/core/check_*.c))
TEST_UTIL  := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/util/check_*.c))
TEST_STORE := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/store/check_*.c))
TEST_BODY  := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/bodies/check_*.c))
TEST_HTTP  := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/http/check_*.c))
TEST_REPLICAS := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/replicas/check_*.c))
TEST_FRONT := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/front/check_*.c))
TEST_SUPPORT_OBJ := $(call obj,$(wildcard tests/support/*.c))
TESTS := $(TEST_CORE) $(TEST_UTIL) $(TEST_STORE) $(TEST_BODY) $(TEST_FRONT) $(TEST_HTTP) \
         $(TEST_REPLICAS)

# Keep objects of test programs between runs.
.SECONDARY:

.PHONY: all run test check asan valgrind bench fuzz lint deps clean format migrate help FORCE

all: $(BIN)

deps:
	@scripts/deps.sh test

# The targets, from the list at the top of this file.
help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST)) | sed '/^$$/,$$d'

# make does not see a change of flags: the stamp holds the allocator linked
# in, and changes (so the server is linked again) when it does.
ALLOCATOR_STAMP = $(BUILD)/allocator.stamp
# A missing allocator stops the build instead of linking glibc's unnoticed.
$(ALLOCATOR_STAMP): FORCE
	@mkdir -p $(@D)
	@if [ -n '$(ALLOCATOR)' ] && ! pkg-config --exists '$(ALLOCATOR)'; then \
	    echo "gpuquote: allocator '$(ALLOCATOR)' not found: scripts/deps.sh build installs it;" \
	        "ALLOCATOR= builds with glibc's" >&2; \
	    exit 1; \
	fi
	@echo '$(ALLOCATOR)' | cmp -s - $@ || echo '$(ALLOCATOR)' >$@

$(BIN): $(MAIN_OBJ) $(HTTP_OBJ) $(STORE_JSON_OBJ) $(DOCUMENT_OBJ) $(STORE_OBJ) $(UTIL_OBJ) $(CORE_OBJ) \
        $(ALLOCATOR_STAMP)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $(filter-out $(ALLOCATOR_STAMP),$^) $(LIBS_ALLOC) $(LIBS_HTTP) $(LIBS_CURL) $(LIBS_DOCUMENT) $(LIBS_STORE) \
		$(LIBS_UTIL) $(LIBS_CORE) $(LDFLAGS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS_ALL) $(PKG_CFLAGS) $(if $(filter tests/%,$<),$(TEST_PKG_CFLAGS)) \
	    $(if $(filter src/document/%,$<),$(call pkg,--cflags,pangocairo fontconfig)) \
	    -Itests -MMD -MP -c -o $@ $<

# The OpenAPI document is embedded in the binary (.incbin), so the server
# serves exactly the contract it was built with.
$(BUILD)/obj/%.o: %.S openapi.yaml
	@mkdir -p $(dir $@)
	$(call say,AS,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/web/%.gz: web/%
	@mkdir -p $(dir $@)
	$(Q)gzip -9 -n -c $< >$@

$(BUILD)/gen/web_assets.S: scripts/embed-web.sh $(WEB_FILES) $(WEB_GZ)
	@mkdir -p $(dir $@)
	$(Q)scripts/embed-web.sh $(BUILD) $(WEB_FILES) >$@

$(WEB_OBJ): $(BUILD)/gen/web_assets.S
	$(call say,AS,$<)
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<

$(BUILD)/core/%: $(BUILD)/obj/tests/core/%.o $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $^ $(LIBS_CHECK) $(LIBS_CORE)

$(BUILD)/util/%: $(BUILD)/obj/tests/util/%.o $(UTIL_OBJ) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $^ $(LIBS_CHECK) $(LIBS_UTIL) $(LIBS_CORE)

$(BUILD)/bodies/%: $(BUILD)/obj/tests/bodies/%.o $(BODY_OBJ) $(UTIL_OBJ) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $^ $(LIBS_CHECK) $(LIBS_UTIL) $(LIBS_CORE)

$(BUILD)/store/%: $(BUILD)/obj/tests/store/%.o $(BUILD)/obj/tests/support/testdb.o $(STORE_OBJ) \
                  $(STORE_JSON_OBJ) $(call obj,src/codec/price_list_merge.c) $(UTIL_OBJ) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $^ $(LIBS_CHECK) $(LIBS_STORE) $(LIBS_UTIL) $(LIBS_CORE)

# The request front's fuzz regressions: the HTTP layer's objects in a
# program of their own, with no socket opened.
$(BUILD)/front/%: $(BUILD)/obj/tests/front/%.o $(HTTP_OBJ) $(STORE_JSON_OBJ) $(DOCUMENT_OBJ) $(STORE_OBJ) \
                  $(UTIL_OBJ) $(CORE_OBJ)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $^ $(LIBS_CHECK) $(LIBS_HTTP) $(LIBS_DOCUMENT) $(LIBS_STORE) \
		$(LIBS_UTIL) $(LIBS_CORE)

# Integration tests, and the test of several replicas behind a balancer.
INTEGRATION_LINK = $(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_SAN) -o $@ $(filter-out $(BIN),$^) \
	$(LIBS_CHECK) $(LIBS_CURL) $(LIBS_CRYPTO) $(LIBS_STORE) $(LIBS_UTIL) $(LIBS_CORE)
$(BUILD)/http/%: $(BUILD)/obj/tests/http/%.o $(TEST_SUPPORT_OBJ) $(STORE_OBJ) $(UTIL_OBJ) $(CORE_OBJ) $(BIN)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(INTEGRATION_LINK)

$(BUILD)/replicas/%: $(BUILD)/obj/tests/replicas/%.o $(TEST_SUPPORT_OBJ) $(STORE_OBJ) $(UTIL_OBJ) \
                     $(CORE_OBJ) $(BIN)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(INTEGRATION_LINK)

# Unit tests run in any order; integration tests start $(BIN) themselves and
# log every response they receive, which is then validated against
# openapi.yaml, so the contract cannot drift from the code.
# scripts/postgres.sh runs a PostgreSQL server of the run's own for them
# (in $(BUILD)/postgres, on a free port, removed at the end whatever
# happens): the store's conformance suite runs against both backends, and
# the integration suites run once on SQLite and again on PostgreSQL, but for
# check_faults, whose every test is of SQLite's file.
CONTRACT_LOG = $(BUILD)/contract.jsonl
POSTGRES_TESTS = $(filter-out %/check_faults,$(TEST_HTTP))
# Then the storefront page end to end in headless Chromium (tests/e2e/),
# screenshots in $(BUILD)/storefront-*.png.
check: $(BIN) $(TESTS) tests/contract/node_modules tests/e2e/node_modules
	@rm -f $(CONTRACT_LOG)
	@GPUQUOTE_BIN=$(abspath $(BIN)) GPUQUOTE_SOURCE_DIR=$(CURDIR) \
		GPUQUOTE_CONTRACT_LOG=$(abspath $(CONTRACT_LOG)) GPUQUOTE_POSTGRES_TESTS="$(POSTGRES_TESTS)" \
		scripts/postgres.sh run $(BUILD)/postgres scripts/run-tests.sh $(TESTS)
	@node tests/contract/validate.mjs --self-test >$(BUILD)/contract-self-test.log || \
		{ grep -v '^ok' $(BUILD)/contract-self-test.log; exit 1; }
	@node tests/contract/validate.mjs --require-headers $(CONTRACT_LOG)
	@GPUQUOTE_BIN=$(abspath $(BIN)) GPUQUOTE_SOURCE_DIR=$(CURDIR) \
		GPUQUOTE_SCREENSHOT_DIR=$(abspath $(BUILD)) node --test tests/e2e/storefront.test.mjs
	@GPUQUOTE_BIN=$(abspath $(BIN)) tests/docs/run-docs.sh

# npm's own errors are printed (--loglevel=error), and a failure says which
# install it was.
NPM_CI = npm ci --no-audit --no-fund --loglevel=error --prefix
tests/contract/node_modules tests/e2e/node_modules: %/node_modules: %/package.json %/package-lock.json
	@$(NPM_CI) $* || { echo "gpuquote: npm ci in $* failed: its error is above" >&2; exit 1; }
	@touch $@

# The Kubernetes manifests (deploy/kubernetes/) against the API's schemas and
# the rules they must keep, offline: the checker must first refuse its broken
# samples. Part of make test (through check) and of make lint.
.PHONY: k8s-check
check lint: k8s-check
k8s-check: tests/k8s/node_modules
	@node tests/k8s/check.mjs --self-test
	@node tests/k8s/check.mjs

# npm's messages stay on, so that a failed install says why.
tests/k8s/node_modules: tests/k8s/package.json tests/k8s/package-lock.json
	npm ci --prefix tests/k8s --no-audit --no-fund
	@touch $@

test:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory check

asan:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory BUILD=build/asan SANITIZE=1 OPT="-O1 -g" check

# The integration tests with the server under valgrind (on SQLite, and the
# quote and operations suites again on PostgreSQL); the test programs
# themselves are plain builds. Two at a time: a server under valgrind runs
# on one core, and their timeouts are stretched (GPUQUOTE_SLOW).
VALGRIND = valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect --error-exitcode=99
valgrind:
	@scripts/deps.sh tools
	@$(MAKE) --no-print-directory BUILD=build/valgrind OPT="-O1 -g" ALLOCATOR= build/valgrind/gpuquote \
		$(patsubst $(BUILD)/%,build/valgrind/%,$(TEST_HTTP))
	@GPUQUOTE_BIN=$(abspath build/valgrind/gpuquote) GPUQUOTE_SOURCE_DIR=$(CURDIR) \
		GPUQUOTE_WRAPPER="$(VALGRIND)" GPUQUOTE_SLOW=1 GPUQUOTE_TEST_JOBS=2 \
		GPUQUOTE_POSTGRES_TESTS="build/valgrind/http/check_quote build/valgrind/http/check_operations" \
		scripts/postgres.sh run build/valgrind/postgres \
		scripts/run-tests.sh $(patsubst $(BUILD)/%,build/valgrind/%,$(TEST_HTTP))

migrate: $(BIN)
	@mkdir -p data
	$(BIN) migrate

run:
	@scripts/deps.sh build
	@$(MAKE) --no-print-directory $(BIN)
	@mkdir -p data
	$(BIN) migrate
	$(BIN)

bench:
	@scripts/deps.sh tools
	@$(MAKE) --no-print-directory BUILD=build/bench OPT="-O2 -DNDEBUG" build/bench/gpuquote \
		build/bench/parse_only
	bench/run.sh build/bench/gpuquote
	bench/postgres.sh build/bench/gpuquote

# The parse-only reference server of bench/run.sh (see bench/parse_only.c),
# with gpuquote's allocator, so that the comparison is of the work alone.
$(BUILD)/parse_only: bench/parse_only.c $(ALLOCATOR_STAMP)
	$(call say,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS_ALL) $(PKG_CFLAGS) -o $@ $< $(LIBS_ALLOC) $(LIBS_HTTP)

FUZZ_SECONDS ?= 30
fuzz:
	@scripts/deps.sh tools
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

lint:
	npx --yes @redocly/cli@1.34.5 lint --format=stylish openapi.yaml
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 \
		--suppress=missingIncludeSystem -Isrc src

format:
	clang-format -i src/*.c src/*/*.c src/*/*.h tests/*/*.c tests/*/*.h

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
