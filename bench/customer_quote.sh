#!/usr/bin/env bash
# bench/customer_quote.sh BINARY — what naming a customer costs an unsaved
# quote: one server, a key with every scope, and two bodies alternately
# (the same 3-item quote, with and without "customer": {"id": …} of a
# verified student); prints requests/s and CPU per request of every run and
# the median ratio. The customer's quote reads the customer and its
# verifications (two indexed reads) and prices every segment it holds.
# Environment: BENCH_DURATION (s, default 4), BENCH_PAIRS (default 6),
# BENCH_CONNS (default 64).
set -euo pipefail
export LC_ALL=C
[ $# -eq 1 ] || { echo "usage: bench/customer_quote.sh BINARY" >&2; exit 2; }
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
BINARY=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DURATION=${BENCH_DURATION:-4}
PAIRS=${BENCH_PAIRS:-6}
CONNS=${BENCH_CONNS:-64}
CLK_TCK=$(getconf CLK_TCK)
calc() { awk "BEGIN { printf $* }" </dev/null; }
WORK=$(mktemp -d /tmp/gpuquote-customer-quote.XXXXXX)
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export GPUQUOTE_BOOTSTRAP_KEY_FILE=$WORK/admin.key
export GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEY_BURST=1000000
(cd "$(dirname "$BINARY")/../.." && GPUQUOTE_ACCESS_LOG=false exec "$BINARY" --db "$WORK/gq.db" \
    --port 0 --port-file "$WORK/port" --threads 2 >"$WORK/out" 2>"$WORK/err") &
PID=$!
for _ in $(seq 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
[ -s "$WORK/port" ] || { echo "bench: the server did not start:" >&2; cat "$WORK/err" >&2; exit 1; }
BASE=http://127.0.0.1:$(cat "$WORK/port")
export BENCH_AUTHORIZATION="Bearer $(cat "$WORK/admin.key")"
api() { curl -sf -H "Authorization: $BENCH_AUTHORIZATION" -H 'Content-Type: application/json' "$@"; }
CUSTOMER=$(api -X POST "$BASE/customers" -d '{"name": "bench student"}' | jq -r .id)
api -X POST "$BASE/customers/$CUSTOMER/verifications" \
    -d "{\"segment\": \"student\", \"expires_at\": \"$(date -u -d '+1 year' +%Y-%m-%dT%H:%M:%SZ)\"}" >/dev/null
items='"items":[{"sku":"v100-16g-x1","quantity":1,"billing":"on_demand","hours_per_day":8,"days":30},{"sku":"t4-16g-x1","quantity":2,"billing":"cheapest","hours_per_day":4,"days":10},{"sku":"v100-32g-x4","quantity":1,"billing":"monthly","hours_per_day":24,"days":60}]'
printf '{%s,"save":false}\n' "$items" >"$WORK/plain.json"
printf '{"customer":{"id":"%s"},%s,"save":false}\n' "$CUSTOMER" "$items" >"$WORK/customer.json"
[ "$(api -X POST "$BASE/quote" -d @"$WORK/customer.json" | jq -r .customer.segment)" = student ] ||
    { echo "bench: the customer's quote is not the student's" >&2; exit 1; }

ticks() { sed 's/^.*) //' "/proc/$PID/stat" | awk '{ print $12 + $13 }'; }
run() { # BODY: prints "rps cpu_us"
    local t0 t1 out line requests duration
    t0=$(ticks)
    out=$(BENCH_BODY=$WORK/$1.json wrk -t2 -c"$CONNS" -d"${DURATION}s" --timeout 5s \
        -s "$BENCH_DIR/report.lua" "$BASE/quote" 2>&1)
    t1=$(ticks)
    line=$(grep '^BENCH_RESULT ' <<<"$out")
    requests=$(sed 's/.* requests=\([0-9]*\).*/\1/' <<<"$line")
    duration=$(sed 's/.* duration_us=\([0-9]*\).*/\1/' <<<"$line")
    echo "$(calc '"%.0f", '"$requests"' * 1000000 / '"$duration") $(calc '"%.1f", ('"$t1 - $t0"') * 1000000 / '"$CLK_TCK"' / '"$requests")"
}
echo "alternating $PAIRS pairs of ${DURATION} s at $CONNS connections: a keyed unsaved quote, without and with a customer"
ratios=()
for p in $(seq "$PAIRS"); do
    read -r plain_rps plain_cpu <<<"$(run plain)"
    read -r customer_rps customer_cpu <<<"$(run customer)"
    ratio=$(calc '"%.3f", '"$customer_rps"' / '"$plain_rps")
    ratios+=("$ratio")
    printf 'pair %d  plain %7s req/s %6s us  customer %7s req/s %6s us  customer/plain %s\n' \
        "$p" "$plain_rps" "$plain_cpu" "$customer_rps" "$customer_cpu" "$ratio"
done
printf 'median customer/plain %s (of %s)\n' \
    "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')" \
    "$(IFS=' '; echo "${ratios[*]}")"
