#!/usr/bin/env bash
# bench/alternate.sh OLD NEW [ENDPOINT...] — two builds of gpuquote measured
# in alternation (OLD, NEW, OLD, NEW, ...) on the same machine, each on a
# fresh SQLite database of its own, so that a change on the hot path is
# judged against its parent commit by pairs rather than against figures of
# another day. Prints requests/s and CPU per request of every run and the
# median NEW/OLD ratio per endpoint.
#
# Endpoints: catalog (GET /catalog), quote (POST /quote, 3 items, unsaved),
# quote_saved (the same, saved), recommend. Default: all four.
# Environment: BENCH_DURATION (s, default 5), BENCH_PAIRS (default 5),
# BENCH_CONNS (default 64).
#
#   git worktree add /tmp/parent HEAD~1 && make -C /tmp/parent BUILD=build/bench \
#       OPT="-O2 -DNDEBUG" build/bench/gpuquote
#   bench/alternate.sh /tmp/parent/build/bench/gpuquote build/bench/gpuquote quote
set -euo pipefail
export LC_ALL=C
[ $# -ge 2 ] || { echo "usage: bench/alternate.sh OLD NEW [ENDPOINT...]" >&2; exit 2; }
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
OLD=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
NEW=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
ENDPOINTS=("$@")
[ ${#ENDPOINTS[@]} -gt 0 ] || ENDPOINTS=(catalog quote quote_saved recommend)
DURATION=${BENCH_DURATION:-5}
PAIRS=${BENCH_PAIRS:-5}
CONNS=${BENCH_CONNS:-64}
LUA=$BENCH_DIR/report.lua
CLK_TCK=$(getconf CLK_TCK)
calc() { awk "BEGIN { printf $* }" </dev/null; }

WORK=$(mktemp -d /tmp/gpuquote-alternate.XXXXXX)
# The first start on an empty database writes an admin key: into the run's
# own directory, not the checkout's data/ (which a fresh clone lacks).
export GPUQUOTE_BOOTSTRAP_KEY_FILE=$WORK/admin.key
# One load generator on one address: the rate limits at their highest, so
# that their buckets are still taken on every call but never refuse one.
export GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=1000000
export GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=1000000
export GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEY_BURST=1000000
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

quote_body() { # SAVE: bench/run.sh's 3-item quote
    printf '{"customer":{"segment":"individual"},"items":[{"sku":"v100-16g-x1","quantity":1,"billing":"on_demand","hours_per_day":8,"days":30},{"sku":"t4-16g-x1","quantity":2,"billing":"cheapest","hours_per_day":4,"days":10},{"sku":"v100-32g-x4","quantity":1,"billing":"monthly","hours_per_day":24,"days":60}],"save":%s}\n' "$1"
}
quote_body false >"$WORK/quote.json"
quote_body true >"$WORK/quote_saved.json"
printf '%s\n' '{"workload":{"task":"finetune","model_params_b":7,"precision":"fp16","tokens_b":2},"deadline_days":10,"customer":{"segment":"student"},"budget":"3000.00"}' >"$WORK/recommend.json"
declare -A PATH_OF=([catalog]=/catalog [quote]=/quote [quote_saved]=/quote [recommend]=/recommend)
declare -A BODY_OF=([catalog]='' [quote]=quote.json [quote_saved]=quote_saved.json [recommend]=recommend.json)

# start NAME BINARY: serves on a database of its own; sets PORT_<NAME>, PID_<NAME>
start() {
    local name=$1 binary=$2 dir=$WORK/$1
    mkdir -p "$dir"
    # Each build runs from its own checkout (build/bench/gpuquote: two levels
    # up), so that it finds the migrations of its own layout.
    (cd "$(dirname "$binary")/../.." && GPUQUOTE_ACCESS_LOG=false exec "$binary" --db "$dir/gq.db" --port 0 \
        --port-file "$dir/port" --threads 2 >"$dir/out" 2>"$dir/err") &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 200); do [ -s "$dir/port" ] && break; sleep 0.05; done
    printf -v "PORT_$name" '%s' "$(cat "$dir/port")"
    printf -v "PID_$name" '%s' "$pid"
}
start old "$OLD"
start new "$NEW"

ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# run NAME ENDPOINT: prints "rps cpu_us"
run() {
    local name=$1 endpoint=$2 port pid out line t0 t1 requests duration
    port=PORT_$name
    pid=PID_$name
    t0=$(ticks "${!pid}")
    out=$(BENCH_BODY=${BODY_OF[$endpoint]:+$WORK/${BODY_OF[$endpoint]}} wrk -t2 -c"$CONNS" \
        -d"${DURATION}s" --timeout 5s -s "$LUA" "http://127.0.0.1:${!port}${PATH_OF[$endpoint]}" 2>&1)
    t1=$(ticks "${!pid}")
    line=$(grep '^BENCH_RESULT ' <<<"$out")
    requests=$(sed 's/.* requests=\([0-9]*\).*/\1/' <<<"$line")
    duration=$(sed 's/.* duration_us=\([0-9]*\).*/\1/' <<<"$line")
    echo "$(calc '"%.0f", '"$requests"' * 1000000 / '"$duration") $(calc '"%.1f", ('"$t1 - $t0"') * 1000000 / '"$CLK_TCK"' / '"$requests")"
}

echo "alternating $PAIRS pairs of ${DURATION} s at $CONNS connections; OLD $OLD, NEW $NEW"
for endpoint in "${ENDPOINTS[@]}"; do
    ratios=()
    for p in $(seq "$PAIRS"); do
        read -r old_rps old_cpu <<<"$(run old "$endpoint")"
        read -r new_rps new_cpu <<<"$(run new "$endpoint")"
        ratio=$(calc '"%.3f", '"$new_rps"' / '"$old_rps")
        ratios+=("$ratio")
        printf '%-12s pair %d  old %7s req/s %6s us  new %7s req/s %6s us  new/old %s\n' \
            "$endpoint" "$p" "$old_rps" "$old_cpu" "$new_rps" "$new_cpu" "$ratio"
    done
    printf '%-12s median new/old %s (of %s)\n' "$endpoint" \
        "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')" \
        "$(IFS=' '; echo "${ratios[*]}")"
done
