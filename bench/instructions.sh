#!/usr/bin/env bash
# bench/instructions.sh OLD NEW [ENDPOINT...] — instructions per request of
# two builds of gpuquote, counted by valgrind's callgrind: the same binary
# and requests give the same count whatever else the machine is doing, so
# this judges a change on the hot path where wall-clock runs (bench/run.sh,
# bench/alternate.sh) are too noisy to see a few per cent.
#
# Each build serves, under callgrind with one worker thread, on a fresh
# SQLite database of its own; curl sends SHORT then LONG requests over one
# kept-alive connection, in two runs; (instructions of the long run - those
# of the short one) / (LONG - SHORT) is the cost of one request, start-up
# and shutdown cancelled. Background work is held off: the catalog poll at
# its slowest, the access log off, rate limits at their highest (their
# buckets are still taken).
#
# Endpoints: catalog (GET /catalog), quote (POST /quote, 3 items, unsaved),
# quote_saved (the same, saved: every thread's instructions, the store's
# writer and its commit's included, but not the time the disk takes),
# recommend (the 7B fine-tune), catalog_key (GET /catalog with the admin
# key: the key check's cost is catalog_key - catalog). Default: catalog,
# catalog_key, quote, recommend.
# Environment: BENCH_SHORT (default 100), BENCH_LONG (default 1100).
#
# Callgrind counts libmicrohttpd's clearing of its 16 KB connection pool
# after every request (about 25,000 of the ~40,000 of a GET /catalog) as
# one instruction per store: real CPUs do that memset in well under a
# microsecond, so ratios here understate a change's share of the cost.
set -euo pipefail
export LC_ALL=C
[ $# -ge 2 ] || { echo "usage: bench/instructions.sh OLD NEW [ENDPOINT...]" >&2; exit 2; }
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
OLD=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
NEW=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
shift 2
ENDPOINTS=("$@")
[ ${#ENDPOINTS[@]} -gt 0 ] || ENDPOINTS=(catalog catalog_key quote recommend)
SHORT=${BENCH_SHORT:-100}
LONG=${BENCH_LONG:-1100}
command -v valgrind >/dev/null || { echo "bench: valgrind is needed (scripts/deps.sh tools)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/gpuquote-instructions.XXXXXX)
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

printf '%s\n' '{"customer":{"segment":"individual"},"items":[{"sku":"v100-16g-x1","quantity":1,"billing":"on_demand","hours_per_day":8,"days":30},{"sku":"t4-16g-x1","quantity":2,"billing":"cheapest","hours_per_day":4,"days":10},{"sku":"v100-32g-x4","quantity":1,"billing":"monthly","hours_per_day":24,"days":60}],"save":false}' >"$WORK/quote.json"
sed 's/,"save":false}$/}/' "$WORK/quote.json" >"$WORK/quote_saved.json"
printf '%s\n' '{"workload":{"task":"finetune","model_params_b":7,"precision":"fp16","tokens_b":2},"deadline_days":10,"customer":{"segment":"student"},"budget":"3000.00"}' >"$WORK/recommend.json"
declare -A PATH_OF=([catalog]=/catalog [catalog_key]=/catalog [quote]=/quote [quote_saved]=/quote
    [recommend]=/recommend)
declare -A BODY_OF=([catalog]='' [catalog_key]='' [quote]=quote.json [quote_saved]=quote_saved.json
    [recommend]=recommend.json)
declare -A STATUS_OF=([quote_saved]=201)

# count BINARY ENDPOINT N: prints the instructions of a whole run serving N requests
count() {
    local binary=$1 endpoint=$2 n=$3 dir=$WORK/run
    rm -rf "$dir" && mkdir -p "$dir"
    # Each build runs from its own checkout (build/bench/gpuquote: two levels
    # up), so that it finds the migrations of its own layout.
    (cd "$(dirname "$binary")/../.." && GPUQUOTE_ACCESS_LOG=false GPUQUOTE_CATALOG_POLL_MS=600000 \
        GPUQUOTE_BOOTSTRAP_KEY_FILE="$dir/admin.key" \
        GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=1000000 \
        GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=1000000 \
        GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEY_BURST=1000000 \
        exec valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" "$binary" \
        --db "$dir/gq.db" --port 0 --port-file "$dir/port" --threads 1 >"$dir/out" 2>"$dir/err") &
    SERVER_PID=$!
    for _ in $(seq 600); do [ -s "$dir/port" ] && break; sleep 0.05; done
    [ -s "$dir/port" ] || { echo "bench: $binary did not start; its log:" >&2; cat "$dir/err" >&2; exit 1; }
    local base urls=() args=(-s -w '%{http_code}\n')
    base=http://127.0.0.1:$(cat "$dir/port")${PATH_OF[$endpoint]}
    # One -o for each URL: curl pairs them in order.
    for _ in $(seq "$n"); do urls+=(-o /dev/null "$base"); done
    [ -n "${BODY_OF[$endpoint]}" ] &&
        args+=(-H 'Content-Type: application/json' --data-binary "@$WORK/${BODY_OF[$endpoint]}")
    if [ "$endpoint" = catalog_key ]; then
        [ -s "$dir/admin.key" ] || { echo "bench: $binary wrote no admin key" >&2; exit 1; }
        args+=(-H "Authorization: Bearer $(cat "$dir/admin.key")")
    fi
    local bad
    bad=$(curl "${args[@]}" "${urls[@]}" | grep -cv "^${STATUS_OF[$endpoint]:-200}\$" || true)
    kill -TERM "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
    [ "$bad" -eq 0 ] ||
        { echo "bench: $bad of $n answers to $endpoint were not ${STATUS_OF[$endpoint]:-200}" >&2; exit 1; }
    awk '/^totals:/ { print $2 }' "$dir/callgrind.out"
}

# per_request BINARY ENDPOINT: sets PER_REQUEST (count's failures end the
# script: it runs in this shell, not in a $(...) subshell).
per_request() {
    count "$1" "$2" "$SHORT" >"$WORK/short"
    count "$1" "$2" "$LONG" >"$WORK/long"
    PER_REQUEST=$((($(cat "$WORK/long") - $(cat "$WORK/short")) / (LONG - SHORT)))
}

echo "| endpoint | old instructions/request | new | new ÷ old |"
echo "|---|---:|---:|---:|"
for endpoint in "${ENDPOINTS[@]}"; do
    [ -n "${PATH_OF[$endpoint]:-}" ] || { echo "bench: unknown endpoint $endpoint" >&2; exit 2; }
    if [ "$endpoint" = catalog_key ] && ! "$OLD" --help 2>&1 | grep -q 'keys'; then
        old=-
    else
        per_request "$OLD" "$endpoint"
        old=$PER_REQUEST
    fi
    per_request "$NEW" "$endpoint"
    new=$PER_REQUEST
    ratio=-
    [ "$old" != - ] && ratio=$(awk -v a="$old" -v b="$new" 'BEGIN { printf "%.3f", b / a }')
    echo "| $endpoint | $old | $new | $ratio |"
done
