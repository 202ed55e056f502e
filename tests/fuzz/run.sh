#!/bin/sh
# Builds the libFuzzer harnesses and runs each for FUZZ_SECONDS (default 30).
#
#   tests/fuzz/run.sh                  every target
#   tests/fuzz/run.sh quote_body money only these
#
# Targets: money, catalog_query, quote_body, recommend_body (the harness of
# each is tests/fuzz/fuzz_<target>.c). Each run starts from a scratch copy
# of tests/fuzz/corpus/<target>/, so the committed corpus never grows by
# itself. A crash, leak, timeout or out-of-memory is written to
# tests/fuzz/artifacts/<target>/ (git-ignored); the script then says which
# target failed and exits 1. Replay an artifact with
#   build/fuzz/fuzz_<target> tests/fuzz/artifacts/<target>/crash-...
# and keep it under tests/fuzz/regressions/<target>/ once it is fixed.
set -eu
cd "$(dirname "$0")/../.."

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
OUT=${FUZZ_BUILD:-build/fuzz}
ALL_TARGETS="money catalog_query quote_body recommend_body"
CC_FUZZ=${CC_FUZZ:-clang}

CFLAGS_FUZZ="-std=c11 -D_GNU_SOURCE -Isrc -Itests -g -O1
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
    -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
    -Wformat=2 -Wconversion -Wno-sign-conversion -Wpointer-arith -Wundef"

# The sources linked into each harness, and its options.
sources() {
    case "$1" in
    money) echo src/core/money.c ;;
    catalog_query) echo src/core/catalog_query.c src/core/catalog.c src/core/money.c \
        src/core/error.c ;;
    quote_body | recommend_body) echo src/core/*.c src/http/body_load.c src/http/fields.c \
        src/http/render.c src/http/quote_body.c src/http/recommend_body.c src/util/clock.c \
        src/util/json_writer.c src/util/utf8.c ;;
    *) return 1 ;;
    esac
}

max_len() {
    case "$1" in
    money | catalog_query) echo 256 ;;
    quote_body) echo 8192 ;; # a quote of 100 items takes about 5 KB
    *) echo 4096 ;;
    esac
}

targets=${*:-$ALL_TARGETS}
for target in $targets; do
    if ! sources "$target" >/dev/null; then
        echo "run.sh: unknown target '$target' (known: $ALL_TARGETS)" >&2
        exit 2
    fi
done

mkdir -p "$OUT"
for target in $targets; do
    echo "fuzz: building $OUT/fuzz_$target"
    # shellcheck disable=SC2046,SC2086 # word splitting intended
    $CC_FUZZ $CFLAGS_FUZZ $(pkg-config --cflags jansson) -o "$OUT/fuzz_$target" \
        "tests/fuzz/fuzz_$target.c" $(sources "$target") $(pkg-config --libs jansson) -lm
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpuquote-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
failed=""
for target in $targets; do
    corpus="$scratch/$target"
    artifacts="tests/fuzz/artifacts/$target"
    log="$OUT/$target.log"
    mkdir -p "$corpus" "$artifacts"
    if [ -d "tests/fuzz/corpus/$target" ]; then
        cp "tests/fuzz/corpus/$target"/* "$corpus"/ 2>/dev/null || true
    fi
    dict=""
    [ -f "tests/fuzz/$target.dict" ] && dict="-dict=tests/fuzz/$target.dict"
    echo "fuzz: $target for ${FUZZ_SECONDS}s ($(ls "$corpus" | wc -l) seeds, log $log)"
    status=0
    # shellcheck disable=SC2086 # $dict is one word or none
    "$OUT/fuzz_$target" -max_total_time="$FUZZ_SECONDS" -max_len="$(max_len "$target")" \
        -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" $dict "$corpus" >"$log" 2>&1 || status=$?
    summary=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "fuzz: $target: ${summary:-no progress line}; ${rate:-?} exec/s"
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $target FAILED (exit $status):" >&2
        grep -E 'ERROR: |runtime error|invariant failed|Test unit written|SUMMARY' "$log" >&2 ||
            tail -n 20 "$log" >&2
        failed="$failed $target"
    fi
done

if [ -n "$failed" ]; then
    echo "fuzz: FAILED:$failed (inputs in tests/fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: all targets ran ${FUZZ_SECONDS}s without a finding:$targets"
