#!/usr/bin/env bash
# bench/postgres.sh BINARY — saved quotes on PostgreSQL against pgbench
# inserting the same rows (make bench runs it after bench/run.sh).
#
# A PostgreSQL server of its own (scripts/postgres.sh, "durable": fsync and
# synchronous_commit on, as in production), two databases migrated alike.
# In adjacent pairs at 16, 64 and 256 clients:
#   pgbench: one INSERT of a stored quote's row (its ~1.3 KB LZ4 response, its
#            request text) per transaction, prepared, with the same
#            durability: a commit per row;
#   gpuquote: POST /quote (the benchmark's 3-item quote, saved) with wrk,
#            priced, rendered, compressed and group-committed.
# For each: rows (or quotes) a second, the ratio gpuquote / pgbench, and the
# CPU per row of gpuquote and of PostgreSQL (every server process, the ones
# that ended included). Writes bench/POSTGRES.md.
#
# Environment: BENCH_DURATION (seconds per run, default 5), BENCH_PAIRS
# (default 2), BENCH_CONNS (default "16 64 256"), BENCH_POSTGRES_RESULTS
# (default bench/POSTGRES.md; "-": none).
set -euo pipefail
export LC_ALL=C

[ $# -eq 1 ] && [ -x "$1" ] || { echo "usage: bench/postgres.sh path/to/gpuquote" >&2; exit 2; }
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DURATION=${BENCH_DURATION:-5}
PAIRS=${BENCH_PAIRS:-2}
RESULTS=${BENCH_POSTGRES_RESULTS:-$BENCH_DIR/POSTGRES.md}
read -r -a CONNS <<<"${BENCH_CONNS:-16 64 256}"
LUA=$BENCH_DIR/report.lua
PGBENCH=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1 || true)
[ -x "$PGBENCH" ] || { echo "bench: pgbench is missing (apt-get install postgresql)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install wrk)" >&2; exit 2; }
log() { printf '%s\n' "$*" >&2; }
calc() { awk "BEGIN { printf $* }" </dev/null; }

WORK=$(mktemp -d /tmp/gpuquote-bench-pg.XXXXXX)
# The first start on an empty database writes an admin key: into the run's
# own directory, not the checkout's data/ (which a fresh clone lacks).
export GPUQUOTE_BOOTSTRAP_KEY_FILE=$WORK/admin.key
# One load generator on one address: the rate limits at their highest, so
# that their buckets are still taken on every call but never refuse one.
export GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=1000000
export GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=1000000
export GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEY_BURST=1000000
GQ_PID=
cleanup() {
    [ -n "$GQ_PID" ] && kill "$GQ_PID" 2>/dev/null && wait "$GQ_PID" 2>/dev/null
    "$ROOT/scripts/postgres.sh" remove "$WORK/postgres" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

URL=$("$ROOT/scripts/postgres.sh" start "$WORK/postgres" durable)
BASE=${URL%/postgres}
CLUSTER=$(cat "$WORK/postgres/cluster")
PSQL=(psql -qtAX)
"${PSQL[@]}" "$URL" -c "CREATE DATABASE service" -c "CREATE DATABASE reference"
"${PSQL[@]}" "$URL" -c "SHOW fsync" -c "SHOW synchronous_commit" | tr '\n' ' ' | grep -q "^on on" ||
    { log "bench: PostgreSQL is not durable"; exit 2; }
(cd "$ROOT" && "$BIN" migrate --db "$BASE/service" 2>/dev/null && "$BIN" migrate --db "$BASE/reference" 2>/dev/null)

# ---- CPU of PostgreSQL and of gpuquote ----------------------------------------------

CLK_TCK=$(getconf CLK_TCK)
postmaster() { head -1 "$CLUSTER/data/postmaster.pid"; }
# Every server process's user + system ticks: the postmaster's own and its
# reaped children's (backends that ended), and its live children's.
postgres_ticks() {
    local pm total pid
    pm=$(postmaster)
    total=$(sed 's/^.*) //' "/proc/$pm/stat" | awk '{ print $12 + $13 + $14 + $15 }')
    for pid in $(pgrep -P "$pm"); do
        total=$((total + $(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }' || echo 0)))
    done
    echo "$total"
}
process_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# ---- gpuquote on the service database --------------------------------------------------

start_gpuquote() {
    (cd "$ROOT" && exec "$BIN" --db "$BASE/service" --port 0 --port-file "$WORK/port" \
        --threads 2 >"$WORK/gq.out" 2>"$WORK/gq.err") &
    GQ_PID=$!
    for _ in $(seq 600); do [ -s "$WORK/port" ] && break; sleep 0.05; done
    if [ ! -s "$WORK/port" ]; then
        log "bench: gpuquote did not start on PostgreSQL within 30 s; its log:"
        cat "$WORK/gq.err" >&2
        exit 1
    fi
    GQ_PORT=$(cat "$WORK/port")
    curl -sf "http://127.0.0.1:$GQ_PORT/readyz" >/dev/null
}
GQ_ACCESS_LOG=false
export GPUQUOTE_ACCESS_LOG=$GQ_ACCESS_LOG
start_gpuquote

# The benchmark's saved 3-item quote (bench/run.sh's quote_body 3 true).
BODY=$WORK/quote_saved.json
printf '%s\n' '{"customer":{"segment":"individual"},"items":[{"sku":"v100-16g-x1","quantity":1,"billing":"on_demand","hours_per_day":8,"days":30},{"sku":"t4-16g-x1","quantity":2,"billing":"cheapest","hours_per_day":4,"days":10},{"sku":"v100-32g-x4","quantity":1,"billing":"monthly","hours_per_day":24,"days":60}],"save":true}' >"$BODY"
curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @"$BODY" "http://127.0.0.1:$GQ_PORT/quote"

# ---- pgbench's row: the very row gpuquote stored ----------------------------------------

column() { "${PSQL[@]}" "$BASE/service" -c "SELECT $1 FROM quotes LIMIT 1"; }
REQUEST=$(column request_json)
RESPONSE_HEX=$(column "encode(response_lz4, 'hex')")
RESPONSE_SIZE=$(column response_size)
ROW_BYTES=$((${#RESPONSE_HEX} / 2))
cat >"$WORK/insert.sql" <<'EOF'
INSERT INTO quotes (id, status, request_json, response_lz4, response_size, price_list_version, created_at, expires_at) VALUES ('p_' || md5(random()::text || clock_timestamp()::text), 'open', :request, decode(:response, 'hex'), :size, 1, extract(epoch FROM now())::bigint, extract(epoch FROM now())::bigint + 604800);
EOF

declare -A R

run_pgbench() { # key conns
    local key=$1 conns=$2 cpu0 cpu1 out
    cpu0=$(postgres_ticks)
    out=$("$PGBENCH" -n -M prepared -c "$conns" -j 2 -T "$DURATION" -f "$WORK/insert.sql" \
        -D "request=$REQUEST" -D "response=$RESPONSE_HEX" -D "size=$RESPONSE_SIZE" "$BASE/reference" 2>&1)
    cpu1=$(postgres_ticks)
    R[$key.rps]=$(awk '/^tps = / { printf "%.0f", $3 }' <<<"$out")
    if [ -z "${R[$key.rps]}" ]; then
        log "bench: pgbench with $conns clients gave no rate; it said:"
        log "$out"
        exit 1
    fi
    R[$key.rows]=$(awk '/number of transactions actually processed/ { print $NF }' <<<"$out" | cut -d/ -f1)
    R[$key.pg_us]=$(calc '"%.1f", ('"$cpu1 - $cpu0"') * 1000000 / '"$CLK_TCK"' / '"${R[$key.rows]:-1}")
    log "$(printf '  %-22s c=%-3s %7s rows/s   PostgreSQL %6s us/row' "$key" "$conns" "${R[$key.rps]}" "${R[$key.pg_us]}")"
}

run_gpuquote() { # key conns
    local key=$1 conns=$2 pg0 pg1 gq0 gq1 out line kv
    pg0=$(postgres_ticks)
    gq0=$(process_ticks "$GQ_PID")
    out=$(BENCH_BODY=$BODY timeout -k 5 $((DURATION + 20)) wrk -t2 -c"$conns" -d"${DURATION}s" \
        --timeout 5s -s "$LUA" "http://127.0.0.1:$GQ_PORT/quote" 2>&1 || true)
    gq1=$(process_ticks "$GQ_PID")
    pg1=$(postgres_ticks)
    line=$(grep '^BENCH_RESULT ' <<<"$out" | tail -1)
    for kv in ${line#BENCH_RESULT }; do R[$key.${kv%%=*}]=${kv#*=}; done
    R[$key.rps]=$(calc '"%.0f", '"${R[$key.requests]}"' * 1000000 / '"${R[$key.duration_us]}")
    R[$key.gq_us]=$(calc '"%.1f", ('"$gq1 - $gq0"') * 1000000 / '"$CLK_TCK"' / '"${R[$key.requests]}")
    R[$key.pg_us]=$(calc '"%.1f", ('"$pg1 - $pg0"') * 1000000 / '"$CLK_TCK"' / '"${R[$key.requests]}")
    R[$key.bad]=$((R[$key.status] + R[$key.timeout] + R[$key.connect] + R[$key.read] + R[$key.write]))
    log "$(printf '  %-22s c=%-3s %7s quotes/s gpuquote %6s us, PostgreSQL %6s us a quote, %s bad' \
        "$key" "$conns" "${R[$key.rps]}" "${R[$key.gq_us]}" "${R[$key.pg_us]}" "${R[$key.bad]}")"
}

log "bench: saved quotes on PostgreSQL against pgbench (durable; $DURATION s runs, $PAIRS pairs)"
for c in "${CONNS[@]}"; do
    for p in $(seq "$PAIRS"); do
        run_pgbench "pgbench.$c.$p" "$c"
        run_gpuquote "gpuquote.$c.$p" "$c"
    done
done
STORED=$("${PSQL[@]}" "$BASE/service" -c "SELECT count(*) FROM quotes")

# ---- the report ---------------------------------------------------------------------------

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
PG_VERSION=$("${PSQL[@]}" "$URL" -c "SHOW server_version")
BAD=0
report() {
    echo "# Saved quotes on PostgreSQL against pgbench"
    echo
    echo "Written by \`make bench\` (bench/postgres.sh) on $(date -u +%Y-%m-%d), commit" \
        "$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores ($CPU_MODEL)," \
        "PostgreSQL $PG_VERSION with fsync and synchronous_commit on, on the same machine as" \
        "gpuquote and the load generator. $DURATION s runs in adjacent pairs (pgbench, then gpuquote)."
    echo
    echo "pgbench inserts the row gpuquote stored for the benchmark's 3-item quote (its request text" \
        "and its $ROW_BYTES-byte LZ4 response, $RESPONSE_SIZE bytes of JSON) with a prepared INSERT," \
        "one transaction a row. gpuquote prices, renders, compresses and stores the same quote on" \
        "POST /quote and answers 201 only after the COMMIT that holds it (group commit: many" \
        "quotes a transaction, in one pipelined round trip). CPU is per row (per quote): gpuquote's" \
        "process, and every PostgreSQL server process's."
    echo
    echo "| clients | pair | pgbench rows/s | PostgreSQL CPU µs/row | gpuquote quotes/s | ratio | gpuquote CPU µs/quote | PostgreSQL CPU µs/quote | gpuquote p99 ms | target |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    local c p ratio verdict
    for c in "${CONNS[@]}"; do
        for p in $(seq "$PAIRS"); do
            ratio=$(calc '"%.2f", '"${R[gpuquote.$c.$p.rps]}"' / '"${R[pgbench.$c.$p.rps]:-1}")
            verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 1.0) ? "ok" : "MISS" }')
            echo "| $c | $p | ${R[pgbench.$c.$p.rps]} | ${R[pgbench.$c.$p.pg_us]} | ${R[gpuquote.$c.$p.rps]} | **$ratio** | ${R[gpuquote.$c.$p.gq_us]} | ${R[gpuquote.$c.$p.pg_us]} | $(calc '"%.1f", '"${R[gpuquote.$c.$p.p99_us]}"' / 1000') | ≥ 1.0 $verdict |"
            BAD=$((BAD + R[gpuquote.$c.$p.bad]))
        done
    done
    echo
    echo "Non-2xx answers, timeouts and socket errors in the gpuquote runs: $BAD. The service database" \
        "held $STORED quotes at the end."
}
# Capacity past this machine, by arithmetic on what was measured at the most
# clients (where group commit batches most): replicas share nothing, so
# each adds its CPU until PostgreSQL's CPU per quote (or its disk) is the
# limit.
capacity() {
    local c=${CONNS[-1]} p gq=0 pg=0 n=0
    for p in $(seq "$PAIRS"); do
        gq=$(calc '"%.1f", '"$gq + ${R[gpuquote.$c.$p.gq_us]}")
        pg=$(calc '"%.1f", '"$pg + ${R[gpuquote.$c.$p.pg_us]}")
        n=$((n + 1))
    done
    gq=$(calc '"%.1f", '"$gq / $n")
    pg=$(calc '"%.1f", '"$pg / $n")
    echo "## Capacity past this machine"
    echo
    echo "Replicas hold no state of their own (the catalog is a snapshot of the database's, quotes" \
        "are written through), so saved-quote throughput grows with replicas until PostgreSQL is the" \
        "limit. Measured here at $c clients (mean of $n runs): a saved quote costs gpuquote" \
        "$gq µs of CPU and PostgreSQL $pg µs (all its processes: backends, WAL writer," \
        "checkpointer). One gpuquote core therefore carries about $(calc '"%.0f", 1000000 / '"$gq") saved" \
        "quotes/s, and a 16-core PostgreSQL, by the same arithmetic and with its cores all given to" \
        "this work, about $(calc '"%.0f", 16000000 / '"$pg") quotes/s, served by" \
        "$(calc '"%.0f", 16 * '"$pg"' / '"$gq") gpuquote cores. That is CPU alone: group commit" \
        "makes the commit rate (one WAL flush a batch, not a quote) no bound until the disk's flush" \
        "latency exceeds a batch's interval, and the network between replicas and the database adds" \
        "latency, not CPU. Reads (\`GET /catalog\`, unsaved quotes, \`/recommend\`) never touch the" \
        "database and grow with replicas alone."
}
{ report; echo; capacity; } | tee "$WORK/report.md" >&2
if [ "$RESULTS" != - ]; then
    cp "$WORK/report.md" "$RESULTS"
    # bench/RESULTS.md (bench/run.sh, which runs first) gets the capacity
    # paragraph too, replacing the one of an earlier run.
    SQLITE_RESULTS=$BENCH_DIR/RESULTS.md
    if [ -f "$SQLITE_RESULTS" ]; then
        # $(...) drops the blank lines the old paragraph left behind.
        kept=$(sed '/^## Capacity past this machine$/,$d' "$SQLITE_RESULTS")
        { printf '%s\n\n' "$kept"; capacity; } >"$SQLITE_RESULTS"
    fi
fi
[ "$BAD" -eq 0 ] || exit 1
