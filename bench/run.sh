#!/usr/bin/env bash
# bench/run.sh BINARY — gpuquote against nginx on loopback (make bench).
#
# Starts BINARY (an optimised build) on its own temporary database and nginx
# serving the exact bytes of GET /catalog as a static file, then drives both
# with wrk in adjacent pairs (nginx, gpuquote, nginx, gpuquote, ...), every run
# bounded in time. Prints a table (endpoint x connections -> req/s, p50, p99,
# gpuquote / nginx of the same pair), checks keep-alive, the listen queue and
# collapse at exactly 128 and 256 connections, measures RSS, the cost of the
# access log and how cost grows with catalog size and quote size, runs POST
# /quote beside a second reference (bench/parse_only.c: jansson's parse of
# the body and gpuquote's response bytes, nothing else), and writes it all to
# bench/RESULTS.md.
#
# Exit status: 1 on a hard failure (a "Connection: close" on keep-alive or a
# connection the server closed during a run, a collapse, connections waiting
# in the listen queue, errors or timeouts under load), 2 on a set-up problem,
# 0 otherwise.
# Ratio targets that are missed are reported as MISS and do not change the
# exit status (see "why a MISS does not fail" in RESULTS.md).
#
# Environment: BENCH_DURATION (seconds per measured run, default 5),
# BENCH_GROWTH_DURATION (default 4), BENCH_WARMUP (default 1),
# BENCH_RESULTS (output file, default bench/RESULTS.md; "-" = don't write),
# BENCH_KEEP=1 keeps the temporary directory.

# GQ_PID_<name> and GQ_PORT_<name> are set by start_gpuquote with printf -v.
# shellcheck disable=SC2154
set -euo pipefail
export LC_ALL=C

usage() { echo "usage: bench/run.sh path/to/gpuquote" >&2; exit 2; }
[ $# -eq 1 ] || usage
[ -x "$1" ] || { echo "bench: $1 is not an executable" >&2; exit 2; }

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PARSE_ONLY_BIN=$(dirname "$BIN")/parse_only # built beside it by make bench
[ -x "$PARSE_ONLY_BIN" ] || { echo "bench: $PARSE_ONLY_BIN is not an executable (make bench builds it)" >&2; exit 2; }
DURATION=${BENCH_DURATION:-5}
GROWTH_DURATION=${BENCH_GROWTH_DURATION:-4}
WARMUP=${BENCH_WARMUP:-1}
RESULTS=${BENCH_RESULTS:-$BENCH_DIR/RESULTS.md}
THREADS=2       # gpuquote --threads and nginx worker_processes
WRK_THREADS=2   # wrk shares the two cores with the server
CONNS=(16 64 256)
WRK_TIMEOUT=2s  # a request slower than this counts as a timeout
RSS_TARGET_KB=$((32 * 1024))
LUA=$BENCH_DIR/report.lua

log() { printf '%s\n' "$*" >&2; }
die() { log "bench: $*"; exit 2; }

# ---- tools -------------------------------------------------------------------

install_tools() {
    local missing=() pair
    for pair in wrk:wrk nginx:nginx-light sqlite3:sqlite3 curl:curl ss:iproute2 \
        awk:gawk timeout:coreutils; do
        command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        log "bench: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null
        apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
    else
        die "missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]}"
    fi
}
install_tools

# ---- the temporary directory and the processes we start ---------------------

WORK=$(mktemp -d /tmp/gpuquote-bench.XXXXXX)
# The first start on an empty database writes an admin key: into the run's
# own directory, not the checkout's data/ (which a fresh clone lacks).
export GPUQUOTE_BOOTSTRAP_KEY_FILE=$WORK/admin.key
# One load generator on one address: the rate limits at their highest, so
# that their buckets are still taken on every call but never refuse one.
export GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEYLESS_BURST=1000000
export GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=1000000
export GPUQUOTE_RATE_LIMIT_KEY_PER_SECOND=1000000 GPUQUOTE_RATE_LIMIT_KEY_BURST=1000000
# Its 256 connections (and a probe beside them) are more than one address's
# default share of the connection limit, a quarter: no per-address limit, as
# behind a proxy.
export GPUQUOTE_PER_IP_CONNECTION_LIMIT=0
chmod 755 "$WORK" # nginx workers run as nobody when we are root
mkdir -p "$WORK/www" "$WORK/nginx" "$WORK/bodies" "$WORK/runs"
chmod 755 "$WORK/www"
STARTED_PIDS=()

stop_pid() { # pid [signal]: signal it, wait up to 10 s, then kill it
    local pid=$1 i
    kill -"${2:-TERM}" "$pid" 2>/dev/null || return 0
    for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local pid
    for pid in "${STARTED_PIDS[@]}"; do stop_pid "$pid"; done
    if [ "${BENCH_KEEP:-0}" = 1 ]; then log "bench: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- small helpers ------------------------------------------------------------

calc() { awk "BEGIN { printf $* }" </dev/null; } # calc '"%.2f", 1 / 3'

cpu_ticks() { # pid...: user+system clock ticks of every thread of each process
    local pid total=0 t
    for pid in "$@"; do
        t=$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }') || t=0
        total=$((total + ${t:-0}))
    done
    echo "$total"
}
CLK_TCK=$(getconf CLK_TCK)

server_closes() { # port: TIME-WAIT sockets on the server's side, i.e. connections the server closed
    ss -Htan state time-wait "sport = :$1" 2>/dev/null | wc -l
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

listen_queue() { # port: the Recv-Q of the listening socket (connections not yet accepted)
    ss -Hltn "sport = :$1" 2>/dev/null | awk '{ print $2; exit }'
}

port_in_use() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

fmt_ms() { calc '"%.2f", '"$1"' / 1000'; }
fmt_mb() { calc '"%.1f", '"$1"' / 1024'; }

# ---- gpuquote -------------------------------------------------------------------

# start_gpuquote NAME DB [ENV=VALUE...]: sets GQ_PID_<NAME>, GQ_PORT_<NAME>.
# Runs from the repository root, so config/gpuquote.json (production) applies;
# flags override only what a benchmark must own. Standard output (the access
# log) is appended to a file that is emptied after every run.
start_gpuquote() {
    local name=$1 db=$2 i pid port
    shift 2
    rm -f "$WORK/$name.port"
    (cd "$ROOT" && exec env "$@" "$BIN" --db "$db" --migrations "$ROOT/migrations" \
        --threads "$THREADS" --port 0 --port-file "$WORK/$name.port" \
        >>"$WORK/$name.access.log" 2>>"$WORK/$name.err") &
    pid=$!
    STARTED_PIDS+=("$pid")
    for i in $(seq 300); do
        kill -0 "$pid" 2>/dev/null || die "gpuquote ($name) exited: $(tail -3 "$WORK/$name.err")"
        if [ -s "$WORK/$name.port" ]; then
            port=$(tr -dc 0-9 <"$WORK/$name.port")
            if [ -n "$port" ] && curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; then
                printf -v "GQ_PID_$name" %s "$pid"
                printf -v "GQ_PORT_$name" %s "$port"
                return 0
            fi
        fi
        sleep 0.1
    done
    die "gpuquote ($name) not ready after 30 s"
}

stop_gpuquote() {
    local pid_var=GQ_PID_$1
    stop_pid "${!pid_var}"
}

migrate_db() { # db
    (cd "$ROOT" && "$BIN" migrate --db "$1" --migrations "$ROOT/migrations") \
        >/dev/null 2>>"$WORK/migrate.err" || die "migrate $1 failed: $(tail -3 "$WORK/migrate.err")"
}

# ---- nginx ------------------------------------------------------------------------

NGINX_MODULES=$(nginx -V 2>&1 || true)
# A worker's connections within this shell's open-files limit (1024 is a
# common hard one), half of it: the runs use 256 connections at most, and
# nginx warns when worker_connections exceeds the limit.
NGINX_CONNECTIONS=$(ulimit -n)
[ "$NGINX_CONNECTIONS" = unlimited ] || [ "$NGINX_CONNECTIONS" -gt 8192 ] && NGINX_CONNECTIONS=8192
NGINX_CONNECTIONS=$((NGINX_CONNECTIONS / 2))
start_nginx() {
    local port conf=$WORK/nginx/nginx.conf temp_paths="" m i
    for m in client_body proxy fastcgi uwsgi scgi; do
        case "$NGINX_MODULES" in
        *"without-http_${m}_module"*) ;;
        *) temp_paths+="    ${m}_temp_path $WORK/nginx/${m}_temp;"$'\n' ;;
        esac
    done
    for _ in $(seq 20); do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        port_in_use "$port" && continue
        cat >"$conf" <<EOF
# Written by bench/run.sh: the reference server.
daemon off;
worker_processes $THREADS;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections $NGINX_CONNECTIONS; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000000;
    keepalive_timeout 75s;
    open_file_cache max=64 inactive=60s;
    default_type application/json;
$temp_paths    server {
        listen 127.0.0.1:$port backlog=1024;
        root $WORK/www;
        location / { }
    }
}
EOF
        nginx -e "$WORK/nginx/error.log" -p "$WORK/nginx" -c "$conf" &
        NGINX_PID=$!
        for i in $(seq 50); do
            kill -0 "$NGINX_PID" 2>/dev/null || break
            if curl -sf -o /dev/null "http://127.0.0.1:$port/catalog.json"; then
                STARTED_PIDS+=("$NGINX_PID")
                NGINX_PORT=$port
                return 0
            fi
            sleep 0.1
        done
        stop_pid "$NGINX_PID" QUIT
    done
    die "nginx did not start: $(tail -3 "$WORK/nginx/error.log" 2>/dev/null)"
}

# shellcheck disable=SC2046 # one word per worker pid
nginx_pids() { echo "$NGINX_PID" $(pgrep -P "$NGINX_PID" || true); }

# ---- the parse-only reference (bench/parse_only.c) ------------------------------------

# start_parse_only RESPONSE_FILE: sets PARSE_ONLY_PID and PARSE_ONLY_PORT.
start_parse_only() {
    local port i
    for _ in $(seq 20); do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        port_in_use "$port" && continue
        "$PARSE_ONLY_BIN" "$port" "$THREADS" "$1" 2>>"$WORK/parse_only.err" &
        PARSE_ONLY_PID=$!
        for i in $(seq 50); do
            kill -0 "$PARSE_ONLY_PID" 2>/dev/null || break
            if curl -sf -o /dev/null --data-binary '{}' "http://127.0.0.1:$port/quote"; then
                STARTED_PIDS+=("$PARSE_ONLY_PID")
                PARSE_ONLY_PORT=$port
                return 0
            fi
            sleep 0.1
        done
    done
    die "the parse-only reference did not start: $(tail -3 "$WORK/parse_only.err")"
}

# ---- request bodies -------------------------------------------------------------------

quote_body() { # N_ITEMS SAVE: a quote over the seed SKUs, cycling billing modes
    local n=$1 save=$2 i skus=(v100-16g-x1 t4-16g-x1 v100-32g-x4 v100-16g-x2 v100-32g-x8)
    local modes=(on_demand cheapest monthly quarterly)
    local hours=(8 4 24 12 6) days=(30 10 60 90 45)
    printf '{"customer":{"segment":"individual"},"items":['
    for ((i = 0; i < n; i++)); do
        [ $i -gt 0 ] && printf ','
        printf '{"sku":"%s","quantity":%d,"billing":"%s","hours_per_day":%d,"days":%d}' \
            "${skus[i % 5]}" $((1 + i % 2)) "${modes[i % 4]}" "${hours[i % 5]}" "${days[i % 5]}"
    done
    printf '],"save":%s}\n' "$save"
}

quote_body 3 false >"$WORK/bodies/quote.json"
quote_body 3 true >"$WORK/bodies/quote_saved.json"
for n in 1 10 100; do quote_body "$n" false >"$WORK/bodies/quote_$n.json"; done
# "Fine-tune a 7B model in fp16 on 2B tokens within 10 days, student, <= 3000 yuan."
cat >"$WORK/bodies/recommend.json" <<'EOF'
{"workload":{"task":"finetune","model_params_b":7,"precision":"fp16","tokens_b":2},"deadline_days":10,"customer":{"segment":"student"},"budget":"3000.00"}
EOF

# ---- endpoints ---------------------------------------------------------------------

EPS=(catalog filtered quote quote_saved recommend)
declare -A EP_NAME=([catalog]='GET /catalog' [filtered]='GET /catalog?min_total_memory_gb=64'
    [quote]='POST /quote (3 items, unsaved)' [quote_saved]='POST /quote (3 items, saved)'
    [recommend]='POST /recommend')
declare -A EP_PATH=([catalog]=/catalog [filtered]='/catalog?min_total_memory_gb=64'
    [quote]=/quote [quote_saved]=/quote [recommend]=/recommend)
declare -A EP_BODY=([catalog]='' [filtered]='' [quote]=quote.json
    [quote_saved]=quote_saved.json [recommend]=recommend.json)
declare -A EP_STATUS=([catalog]=200 [filtered]=200 [quote]=200 [quote_saved]=201 [recommend]=200)
declare -A EP_TARGET=([catalog]=1.0 [filtered]='' [quote]=0.6 [quote_saved]=0.3 [recommend]=0.3)

# ---- one wrk run ---------------------------------------------------------------------

HARD=()   # hard failures: the exit status is 1 when there is any
declare -A R # R[key.field]: results of run `key`

# run_wrk KEY URL CONNS SECONDS BODY PORT RSS_PID CPU_PIDS...
# Records requests/s, latency percentiles, errors, server CPU per request,
# connections the server closed (TIME-WAIT on its port), and the listen
# queue and RSS sampled every 0.25 s.
run_wrk() {
    local key=$1 url=$2 conns=$3 secs=$4 body=$5 port=$6 rss_pid=$7
    shift 7
    local cpu_pids=("$@") out=$WORK/runs/$key.out samples=$WORK/runs/$key.samples
    local cpu0 cpu1 closes0 closes1 sampler line
    : >"$samples"
    (
        t=0
        while :; do
            echo "$t $(rss_kb "$rss_pid") $(listen_queue "$port")" >>"$samples"
            sleep 0.25
            t=$((t + 1))
        done
    ) &
    sampler=$!
    closes0=$(server_closes "$port")
    cpu0=$(cpu_ticks "${cpu_pids[@]}")
    BENCH_BODY=${body:+$WORK/bodies/$body} timeout -k 5 $((secs + 20)) \
        wrk -t"$WRK_THREADS" -c"$conns" -d"${secs}s" --timeout "$WRK_TIMEOUT" --latency \
        -s "$LUA" "$url" >"$out" 2>&1 || true
    cpu1=$(cpu_ticks "${cpu_pids[@]}")
    closes1=$(server_closes "$port")
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    line=$(grep '^BENCH_RESULT ' "$out" | tail -1)
    if [ -z "$line" ]; then
        HARD+=("$key: wrk gave no result ($(tail -2 "$out" | tr '\n' ' '))")
        line="BENCH_RESULT requests=0 duration_us=1 bytes=0 p50_us=0 p90_us=0 p99_us=0 max_us=0 connect=0 read=0 write=0 status=0 timeout=0"
    fi
    local kv
    for kv in ${line#BENCH_RESULT }; do R[$key.${kv%%=*}]=${kv#*=}; done
    R[$key.conns]=$conns
    R[$key.rps]=$(calc '"%.0f", '"${R[$key.requests]}"' * 1000000 / '"${R[$key.duration_us]}")
    R[$key.cpu_us]=$(calc '"%.1f", ('"$cpu1 - $cpu0"') * 1000000 / '"$CLK_TCK"' / ('"${R[$key.requests]}"' > 0 ? '"${R[$key.requests]}"' : 1)')
    R[$key.closes]=$((closes1 > closes0 ? closes1 - closes0 : 0))
    # Listen queue and RSS after the first second (connections being set up
    # then are not "left waiting").
    R[$key.q_max]=$(awk '$1 >= 4 && $3 > m { m = $3 } END { print m + 0 }' "$samples")
    R[$key.q_busy]=$(awk '$1 >= 4 && $3 > 0 { n++ } END { print n + 0 }' "$samples")
    R[$key.q_samples]=$(awk '$1 >= 4 { n++ } END { print n + 0 }' "$samples")
    R[$key.rss_max]=$(awk '$2 > m { m = $2 } END { print m + 0 }' "$samples")
    local errors=$((R[$key.connect] + R[$key.read] + R[$key.write]))
    [ "${R[$key.status]}" -eq 0 ] || HARD+=("$key: ${R[$key.status]} responses were not 2xx/3xx")
    [ "$errors" -eq 0 ] || HARD+=("$key: socket errors (connect ${R[$key.connect]}, read ${R[$key.read]}, write ${R[$key.write]})")
    [ "${R[$key.timeout]}" -eq 0 ] || HARD+=("$key: ${R[$key.timeout]} requests timed out (> $WRK_TIMEOUT): collapse")
    # Keep-alive: wrk keeps its connections for the whole run; a connection
    # the server closed (it is left in TIME-WAIT on the server's port) means
    # keep-alive was lost (Connection: close) or the server dropped it.
    if [ "${R[$key.closes]}" -gt 0 ]; then
        HARD+=("$key: the server closed ${R[$key.closes]} connections during the run (keep-alive lost: Connection: close?)")
    fi
    log "$(printf '  %-34s c=%-3s %9s req/s  p50 %7s ms  p99 %7s ms  cpu %6s us/req  closed %s  queue %s' \
        "$key" "$conns" "${R[$key.rps]}" "$(fmt_ms "${R[$key.p50_us]}")" "$(fmt_ms "${R[$key.p99_us]}")" \
        "${R[$key.cpu_us]}" "${R[$key.closes]}" "${R[$key.q_max]}")"
}

# warm URL BODY: an unrecorded second of load at 64 connections.
warm() {
    BENCH_BODY=${2:+$WORK/bodies/$2} timeout -k 5 $((WARMUP + 20)) \
        wrk -t"$WRK_THREADS" -c64 -d"${WARMUP}s" --timeout "$WRK_TIMEOUT" -s "$LUA" "$1" \
        >/dev/null 2>&1 || true
}

truncate_logs() { local f; for f in "$WORK"/*.access.log; do [ -e "$f" ] && : >"$f"; done; return 0; }

# pair KEY NGINX_URL GQ_NAME GQ_URL CONNS SECONDS BODY: nginx then gpuquote.
pair() {
    local key=$1 nurl=$2 gq=$3 gurl=$4 conns=$5 secs=$6 body=$7
    local pid_var=GQ_PID_$gq port_var=GQ_PORT_$gq
    # shellcheck disable=SC2046 # one argument per pid
    run_wrk "$key.nginx" "$nurl" "$conns" "$secs" "" "$NGINX_PORT" "$NGINX_PID" $(nginx_pids)
    run_wrk "$key.gq" "$gurl" "$conns" "$secs" "$body" "${!port_var}" "${!pid_var}" "${!pid_var}"
    truncate_logs
    R[$key.ratio]=$(calc '"%.2f", '"${R[$key.gq.rps]}"' / ('"${R[$key.nginx.rps]}"' > 0 ? '"${R[$key.nginx.rps]}"' : 1)')
    R[$key.p99_ratio]=$(calc '"%.2f", '"${R[$key.gq.p99_us]}"' / ('"${R[$key.nginx.p99_us]}"' > 0 ? '"${R[$key.nginx.p99_us]}"' : 1)')
}

# ---- keep-alive: two requests on one connection -------------------------------------

# keepalive_check NAME URL BODY EXPECTED_STATUS
KEEPALIVE=()
keepalive_check() {
    local name=$1 url=$2 body=$3 want=$4 trace=$WORK/runs/keepalive.$RANDOM
    local args=(-sv --max-time 10 -o /dev/null -o /dev/null)
    [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary "@$WORK/bodies/$body")
    curl "${args[@]}" "$url" "$url" 2>"$trace" || true
    local statuses reused closes
    statuses=$(grep -c "^< HTTP/1.1 $want" "$trace" || true)
    reused=$(grep -ci 're-using existing connection' "$trace" || true)
    closes=$(grep -ci '^< connection: *close' "$trace" || true)
    if [ "$statuses" -eq 2 ] && [ "$reused" -ge 1 ] && [ "$closes" -eq 0 ]; then
        KEEPALIVE+=("PASS | $name | 2 × $want on one connection, no Connection: close")
    else
        KEEPALIVE+=("FAIL | $name | $statuses × $want, connection re-used: $reused, Connection: close: $closes")
        HARD+=("keep-alive: $name: $statuses × $want, re-used $reused, Connection: close $closes")
    fi
}

# =====================================================================================
log "bench: work directory $WORK"
START_TIME=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
# What was measured: the commit, and whether src/ differed from it (the
# binary was built from the working tree just before).
GIT_DESC=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || GIT_DESC+='+local changes in src/'
if awk -v l="${LOAD_START%% *}" 'BEGIN { exit !(l > 1.0) }'; then
    log "bench: warning: load average $LOAD_START before starting; other work on this machine will disturb the ratios"
fi

MAIN_DB=$WORK/main.db
migrate_db "$MAIN_DB"
start_gpuquote main "$MAIN_DB"
# The admin key its first start wrote (the next server's start overwrites
# the file): the key check's cost is measured with it.
ADMIN_KEY=$(cat "$GPUQUOTE_BOOTSTRAP_KEY_FILE")
GQ=http://127.0.0.1:$GQ_PORT_main
sleep 1
RSS_IDLE=$(rss_kb "$GQ_PID_main")

curl -sf -o "$WORK/www/catalog.json" "$GQ/catalog" || die "GET /catalog failed"
chmod 644 "$WORK/www/catalog.json"
start_nginx
NG=http://127.0.0.1:$NGINX_PORT
cmp -s "$WORK/www/catalog.json" <(curl -sf "$NG/catalog.json") || die "nginx does not serve the catalog's bytes"
CATALOG_BYTES=$(wc -c <"$WORK/www/catalog.json")

# Every endpoint answers as expected before it is measured.
declare -A EP_BYTES
for ep in "${EPS[@]}"; do
    args=(-s -o "$WORK/runs/$ep.response" -w '%{http_code}' --max-time 10)
    [ -n "${EP_BODY[$ep]}" ] && args+=(-H 'Content-Type: application/json' --data-binary "@$WORK/bodies/${EP_BODY[$ep]}")
    status=$(curl "${args[@]}" "$GQ${EP_PATH[$ep]}" || true)
    [ "$status" = "${EP_STATUS[$ep]}" ] ||
        die "${EP_NAME[$ep]} answered $status, expected ${EP_STATUS[$ep]}: $(head -c 300 "$WORK/runs/$ep.response")"
    EP_BYTES[$ep]=$(wc -c <"$WORK/runs/$ep.response")
done

log "bench: keep-alive checks"
keepalive_check 'nginx GET /catalog.json' "$NG/catalog.json" '' 200
for ep in "${EPS[@]}"; do
    keepalive_check "gpuquote ${EP_NAME[$ep]}" "$GQ${EP_PATH[$ep]}" "${EP_BODY[$ep]}" "${EP_STATUS[$ep]}"
done

# ---- the main table -------------------------------------------------------------------
log "bench: endpoints x connections, ${DURATION} s a run, nginx then gpuquote"
for ep in "${EPS[@]}"; do
    warm "$NG/catalog.json" ''
    warm "$GQ${EP_PATH[$ep]}" "${EP_BODY[$ep]}"
    truncate_logs
    for c in "${CONNS[@]}"; do
        pair "$ep.$c" "$NG/catalog.json" main "$GQ${EP_PATH[$ep]}" "$c" "$DURATION" "${EP_BODY[$ep]}"
    done
done

# ---- exactly 128 connections (256 is in the table) ----------------------------------------
log "bench: exactly 128 connections"
for ep in catalog quote; do
    pair "$ep.128" "$NG/catalog.json" main "$GQ${EP_PATH[$ep]}" 128 "$DURATION" "${EP_BODY[$ep]}"
done

# ---- POST /quote against the parse-only reference, interleaved -------------------------------
log "bench: POST /quote (unsaved): nginx, parse-only reference, gpuquote"
start_parse_only "$WORK/runs/quote.response"
PO=http://127.0.0.1:$PARSE_ONLY_PORT
cmp -s "$WORK/runs/quote.response" <(curl -sf --data-binary "@$WORK/bodies/quote.json" "$PO/quote") ||
    die "the parse-only reference does not answer gpuquote's bytes"
warm "$PO/quote" quote.json
warm "$GQ/quote" quote.json
truncate_logs
for c in "${CONNS[@]}"; do
    # shellcheck disable=SC2046 # one argument per pid
    run_wrk "po.$c.nginx" "$NG/catalog.json" "$c" "$DURATION" "" "$NGINX_PORT" "$NGINX_PID" $(nginx_pids)
    run_wrk "po.$c.ref" "$PO/quote" "$c" "$DURATION" quote.json "$PARSE_ONLY_PORT" \
        "$PARSE_ONLY_PID" "$PARSE_ONLY_PID"
    run_wrk "po.$c.gq" "$GQ/quote" "$c" "$DURATION" quote.json "$GQ_PORT_main" "$GQ_PID_main" \
        "$GQ_PID_main"
    truncate_logs
done
stop_pid "$PARSE_ONLY_PID"

RSS_PEAK=$(hwm_kb "$GQ_PID_main")
RSS_AFTER=$(rss_kb "$GQ_PID_main")
QUOTES_STORED=$(sqlite3 "file:$MAIN_DB?mode=ro" 'SELECT count(*) FROM quotes' 2>/dev/null || echo '?')
DB_MB=$(du -cm "$MAIN_DB"* 2>/dev/null | awk 'END { print $1 }')

# ---- the access log's cost: the same server with it off, interleaved -----------------------
log "bench: access log on / off"
migrate_db "$WORK/nolog.db"
start_gpuquote nolog "$WORK/nolog.db" GPUQUOTE_ACCESS_LOG=false
for ep in catalog quote; do
    warm "$GQ${EP_PATH[$ep]}" "${EP_BODY[$ep]}"
    warm "http://127.0.0.1:$GQ_PORT_nolog${EP_PATH[$ep]}" "${EP_BODY[$ep]}"
    truncate_logs
    # shellcheck disable=SC2046 # one argument per pid
    run_wrk "log.$ep.nginx" "$NG/catalog.json" 64 "$DURATION" "" "$NGINX_PORT" "$NGINX_PID" $(nginx_pids)
    for round in 1 2; do
        # on, off, off, on: a drift over the four runs cancels out
        order=(on off)
        [ $round -eq 2 ] && order=(off on)
        for mode in "${order[@]}"; do
            if [ "$mode" = on ]; then
                run_wrk "log.$ep.on$round" "$GQ${EP_PATH[$ep]}" 64 "$DURATION" "${EP_BODY[$ep]}" \
                    "$GQ_PORT_main" "$GQ_PID_main" "$GQ_PID_main"
            else
                run_wrk "log.$ep.off$round" "http://127.0.0.1:$GQ_PORT_nolog${EP_PATH[$ep]}" 64 "$DURATION" \
                    "${EP_BODY[$ep]}" "$GQ_PORT_nolog" "$GQ_PID_nolog" "$GQ_PID_nolog"
            fi
            truncate_logs
        done
    done
done
stop_gpuquote nolog

# ---- the key check's cost: the same server, with and without a key, interleaved ------------
# GET /catalog is public: with a key it is identified (prefix lookup,
# SHA-256, constant-time compare) and its bucket taken, without one the
# address's bucket is. The CPU per request's difference is the key check.
log "bench: GET /catalog with and without an API key"
warm "$GQ/catalog" ""
for round in 1 2; do
    order=(with without)
    [ $round -eq 2 ] && order=(without with)
    for mode in "${order[@]}"; do
        auth=
        [ "$mode" = with ] && auth="Bearer $ADMIN_KEY"
        BENCH_AUTHORIZATION=$auth run_wrk "key.$mode$round" "$GQ/catalog" 64 "$DURATION" "" \
            "$GQ_PORT_main" "$GQ_PID_main" "$GQ_PID_main"
        truncate_logs
    done
done

# ---- growth -----------------------------------------------------------------------------------
# Reference for each growth row: nginx serving the very bytes gpuquote
# answered (fetched once), so the cost of moving the bytes is in both.
log "bench: growth with catalog size and quote size (${GROWTH_DURATION} s a run, 16 connections)"
SIZES=(5 1000 10000)
for n in "${SIZES[@]}"; do
    db=$WORK/fixture-$n.db
    migrate_db "$db"
    "$BENCH_DIR/make_fixture.sh" "$n" | sqlite3 "$db" || die "fixture of $n SKUs failed"
    t0=$(date +%s%N)
    start_gpuquote "fx$n" "$db"
    R[fx$n.ready_ms]=$((($(date +%s%N) - t0) / 1000000))
    pid_var=GQ_PID_fx$n
    port_var=GQ_PORT_fx$n
    base=http://127.0.0.1:${!port_var}
    for ep in filtered recommend; do
        args=(-s -o "$WORK/www/$ep-$n.json" -w '%{http_code}' --max-time 30)
        [ -n "${EP_BODY[$ep]}" ] && args+=(-H 'Content-Type: application/json' --data-binary "@$WORK/bodies/${EP_BODY[$ep]}")
        status=$(curl "${args[@]}" "$base${EP_PATH[$ep]}" || true)
        [ "$status" = 200 ] || die "${EP_NAME[$ep]} over $n SKUs answered $status"
        chmod 644 "$WORK/www/$ep-$n.json"
        R[grow.$ep.$n.bytes]=$(wc -c <"$WORK/www/$ep-$n.json")
        warm "$base${EP_PATH[$ep]}" "${EP_BODY[$ep]}"
        truncate_logs
        pair "grow.$ep.$n" "$NG/$ep-$n.json" "fx$n" "$base${EP_PATH[$ep]}" 16 "$GROWTH_DURATION" "${EP_BODY[$ep]}"
    done
    R[fx$n.rss]=$(hwm_kb "${!pid_var}")
    stop_gpuquote "fx$n"
done
for n in 1 10 100; do
    ep=quote_$n
    status=$(curl -s -o "$WORK/www/$ep.json" -w '%{http_code}' --max-time 30 -H 'Content-Type: application/json' \
        --data-binary "@$WORK/bodies/$ep.json" "$GQ/quote" || true)
    [ "$status" = 200 ] || die "POST /quote with $n items answered $status: $(head -c 300 "$WORK/www/$ep.json")"
    chmod 644 "$WORK/www/$ep.json"
    R[grow.quote.$n.bytes]=$(wc -c <"$WORK/www/$ep.json")
    warm "$GQ/quote" "$ep.json"
    truncate_logs
    pair "grow.quote.$n" "$NG/$ep.json" main "$GQ/quote" 16 "$GROWTH_DURATION" "$ep.json"
done

ELAPSED=$(($(date +%s) - START_TIME))
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# =====================================================================================
# The report.

TARGETS=() # "PASS|MISS | what | detail"
verdict() { # ok what detail
    if [ "$1" = 1 ]; then TARGETS+=("PASS | $2 | $3"); else TARGETS+=("MISS | $2 | $3"); fi
}
ge() { calc '"%d", ((('"$1"') >= ('"$2"')))'; }

report() {
    local ep c key t ok tail_factor
    echo "# gpuquote benchmark"
    echo
    echo "Generated by \`make bench\` (\`bench/run.sh\`) on $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
        "\`$GIT_DESC\`," \
        "in ${ELAPSED} s. Machine: $(nproc) cores ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo))," \
        "Linux $(uname -r); $(nginx -v 2>&1 | sed 's/^nginx version: //'), wrk $(wrk -v 2>&1 | awk 'NR == 1 { print $2 }')," \
        "libmicrohttpd $(pkg-config --modversion libmicrohttpd 2>/dev/null || echo '?')." \
        "Load average (1, 5, 15 min) before: $LOAD_START; after: $LOAD_END — anything well above" \
        "what the benchmark itself makes (about 2-3) is other work on the machine, which disturbs the ratios;" \
        "gpuquote's CPU time per request (in the table) is the figure least affected by it."
    echo
    echo "gpuquote: optimised build (\`-O2 -DNDEBUG\`), \`--threads $THREADS\`, production configuration" \
        "(\`config/gpuquote.json\`) with its own temporary database, **access log on** (to a file)." \
        "nginx: \`worker_processes $THREADS\`, \`access_log off\`, sendfile, keep-alive without a request limit," \
        "serving the exact bytes of \`GET /catalog\` ($CATALOG_BYTES bytes) as a static \`.json\` file." \
        "wrk: $WRK_THREADS threads on the same 2 cores, ${DURATION} s a run after a ${WARMUP} s warm-up," \
        "\`--timeout $WRK_TIMEOUT\`, runs in adjacent pairs (nginx, then gpuquote)."
    echo
    echo "**Absolute numbers mean nothing on this shared machine; the ratios to nginx in the same pair do.**" \
        "Every endpoint, POSTs included, is compared with nginx serving the catalog's bytes with GET:" \
        "nginx is the cost of answering a request with those bytes at all, the floor any endpoint is held to."
    echo
    echo "Why each missed target is missed — the profiles, what was fixed and what is left — is in" \
        "[ANALYSIS.md](ANALYSIS.md), written by hand; this file is regenerated by every run."
    echo
    echo "## Results"
    echo
    echo "ratio = gpuquote req/s ÷ nginx req/s of the same pair; p99 ratio = gpuquote p99 ÷ nginx p99;" \
        "CPU = gpuquote's user+system CPU time per request (all threads, from \`/proc\`), nginx's in brackets."
    echo
    echo "| endpoint | conns | nginx req/s | gpuquote req/s | **ratio** | target | nginx p50 / p99 ms | gpuquote p50 / p99 ms | p99 ratio | CPU µs/req | response bytes |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"
    for ep in "${EPS[@]}"; do
        for c in "${CONNS[@]}" 128; do
            key=$ep.$c
            [ -n "${R[$key.ratio]:-}" ] || continue
            t=${EP_TARGET[$ep]}
            local tcell='—'
            if [ -n "$t" ]; then
                ok=$(ge "${R[$key.ratio]}" "$t")
                tcell="≥ $t: $([ "$ok" = 1 ] && echo PASS || echo '**MISS**')"
            fi
            echo "| ${EP_NAME[$ep]} | $c | ${R[$key.nginx.rps]} | ${R[$key.gq.rps]} | **${R[$key.ratio]}** | $tcell" \
                "| $(fmt_ms "${R[$key.nginx.p50_us]}") / $(fmt_ms "${R[$key.nginx.p99_us]}")" \
                "| $(fmt_ms "${R[$key.gq.p50_us]}") / $(fmt_ms "${R[$key.gq.p99_us]}")" \
                "| ${R[$key.p99_ratio]} | ${R[$key.gq.cpu_us]} (${R[$key.nginx.cpu_us]}) | ${EP_BYTES[$ep]} |"
        done
    done
    echo
    echo "## Targets"
    echo
    for ep in "${EPS[@]}"; do
        t=${EP_TARGET[$ep]}
        for c in "${CONNS[@]}"; do
            key=$ep.$c
            if [ -n "$t" ]; then
                verdict "$(ge "${R[$key.ratio]}" "$t")" "${EP_NAME[$ep]}, $c connections: throughput ≥ $t × nginx" \
                    "${R[$key.ratio]} ×"
            fi
            if [ "$c" -ge 64 ]; then
                # The target as the issue states it, for every endpoint; for all
                # but the plain catalog the detail adds the tail factor (see "p99"
                # in the notes below): how much of a miss is the tail's shape.
                if [ "$ep" = catalog ]; then
                    verdict "$(ge 1.25 "${R[$key.p99_ratio]}")" "${EP_NAME[$ep]}, $c connections: p99 ≤ 1.25 × nginx's p99" \
                        "${R[$key.p99_ratio]} ×"
                else
                    tail_factor=$(calc '"%.2f", '"${R[$key.p99_ratio]}"' * '"${R[$key.ratio]}")
                    verdict "$(ge 1.25 "${R[$key.p99_ratio]}")" "${EP_NAME[$ep]}, $c connections: p99 ≤ 1.25 × nginx's p99" \
                        "${R[$key.p99_ratio]} × (tail factor: × throughput ratio ${R[$key.ratio]} = $tail_factor)"
                fi
            fi
        done
    done
    verdict "$(ge "$RSS_TARGET_KB" "$RSS_PEAK")" "RSS under load ≤ 32 MB" \
        "peak (VmHWM) $(fmt_mb "$RSS_PEAK") MB over every run above, up to 256 connections"
    growth_section
    echo "| result | target | measured |"
    echo "|---|---|---|"
    printf '| %s |\n' "${TARGETS[@]}" | sed 's/^| PASS /| PASS /; s/^| MISS /| **MISS** /'
    echo
    echo "## Hard checks (any FAIL makes \`make bench\` exit 1)"
    echo
    echo "| result | check | detail |"
    echo "|---|---|---|"
    printf '| %s |\n' "${KEEPALIVE[@]}"
    local closes_bad=0 worst_closes="" k
    for k in "${!R[@]}"; do
        case $k in *.closes) ;; *) continue ;; esac
        if [ "${R[$k]}" -gt 0 ]; then closes_bad=$((closes_bad + 1)); worst_closes+=" ${k%.closes}: ${R[$k]}"; fi
    done
    if [ "$closes_bad" -eq 0 ]; then
        echo "| PASS | every run: no connection closed by the server (no \`Connection: close\`, no drop) | 0 TIME-WAIT sockets on the server's port after each run |"
    else
        echo "| FAIL | every run: no connection closed by the server | closed in$worst_closes |"
    fi
    for ep in "${EPS[@]}"; do
        for c in 128 256; do
            key=$ep.$c.gq
            [ -n "${R[$key.rps]:-}" ] || continue
            local own64=${R[$ep.64.gq.rps]} frac
            frac=$(calc '"%.2f", '"${R[$key.rps]}"' / ('"$own64"' > 0 ? '"$own64"' : 1)')
            if [ "$(ge "$frac" 0.5)" = 1 ] && [ "${R[$key.timeout]}" -eq 0 ]; then
                echo "| PASS | no collapse: ${EP_NAME[$ep]} at exactly $c connections | ${R[$key.rps]} req/s = $frac × its 64-connection rate, ${R[$key.timeout]} timeouts |"
            else
                echo "| FAIL | no collapse: ${EP_NAME[$ep]} at exactly $c connections | ${R[$key.rps]} req/s = $frac × its 64-connection rate, ${R[$key.timeout]} timeouts |"
                HARD+=("collapse: ${EP_NAME[$ep]} at $c connections: $frac × the 64-connection rate")
            fi
            if [ "${R[$key.q_busy]}" -lt 2 ]; then
                echo "| PASS | listen queue empty: ${EP_NAME[$ep]} at $c connections | Recv-Q > 0 in ${R[$key.q_busy]} of ${R[$key.q_samples]} samples (max ${R[$key.q_max]}) |"
            else
                echo "| FAIL | listen queue empty: ${EP_NAME[$ep]} at $c connections | Recv-Q > 0 in ${R[$key.q_busy]} of ${R[$key.q_samples]} samples (max ${R[$key.q_max]}) |"
                HARD+=("listen queue: ${EP_NAME[$ep]} at $c connections: ${R[$key.q_busy]} samples with waiting connections (max ${R[$key.q_max]})")
            fi
        done
    done
    if [ ${#HARD[@]} -gt 0 ]; then
        echo
        echo "Hard failures:"
        echo
        printf -- '- %s\n' "${HARD[@]}"
    fi
    echo
    echo "## Memory"
    echo
    echo "| gpuquote RSS | MB |"
    echo "|---|---:|"
    echo "| idle, after start-up | $(fmt_mb "$RSS_IDLE") |"
    echo "| peak under load (VmHWM, all runs above up to 256 connections) | $(fmt_mb "$RSS_PEAK") |"
    echo "| after the load | $(fmt_mb "$RSS_AFTER") |"
    echo "| peak, fixture of 5 / 1 000 / 10 000 SKUs | $(fmt_mb "${R[fx5.rss]}") / $(fmt_mb "${R[fx1000.rss]}") / $(fmt_mb "${R[fx10000.rss]}") |"
    echo
    echo "The saved-quote runs stored $QUOTES_STORED quotes; the database (with its WAL) was then $DB_MB MB." \
        "Each saved run inserts into the table the previous ones filled, as production would."
    echo
    echo "## POST /quote against a parse-only reference"
    echo
    echo "nginx cannot compute a quote, so a second reference measures what the stack costs by itself:" \
        "\`bench/parse_only.c\`, a libmicrohttpd server configured like gpuquote (thread pool of $THREADS," \
        "\`poll\`, the same connection memory) that parses each body with jansson, as gpuquote must," \
        "and answers with gpuquote's ${EP_BYTES[quote]} response bytes for that body — no validation," \
        "pricing, rendering or access log. Runs in the order nginx, reference, gpuquote, same body" \
        "as \`POST /quote (3 items, unsaved)\` above. Its ratio to nginx is the most any server on" \
        "this stack can reach for that request and response; gpuquote ÷ reference is the share of" \
        "that ceiling gpuquote reaches while doing the work."
    echo
    echo "| conns | nginx req/s | reference req/s | gpuquote req/s | reference ÷ nginx | gpuquote ÷ nginx | gpuquote ÷ reference | CPU µs/req nginx / reference / gpuquote |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
    for c in "${CONNS[@]}"; do
        local ng ref gqr
        ng=${R[po.$c.nginx.rps]} ref=${R[po.$c.ref.rps]} gqr=${R[po.$c.gq.rps]}
        echo "| $c | $ng | $ref | $gqr | $(calc '"%.2f", '"$ref / $ng") | $(calc '"%.2f", '"$gqr / $ng")" \
            "| $(calc '"%.2f", '"$gqr / $ref") | ${R[po.$c.nginx.cpu_us]} / ${R[po.$c.ref.cpu_us]} / ${R[po.$c.gq.cpu_us]} |"
    done
    echo
    echo "## The access log's cost"
    echo
    echo "The same build with \`GPUQUOTE_ACCESS_LOG=false\` on a copy of the database, both servers up," \
        "runs in the order nginx, on, off, off, on at 64 connections; the table above is with the log on."
    echo
    echo "| endpoint | nginx req/s | log on req/s | log off req/s | on ÷ off | on ÷ nginx | off ÷ nginx | CPU µs/req on / off |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for ep in catalog quote; do
        local on off ng con coff
        on=$(calc '"%.0f", ('"${R[log.$ep.on1.rps]} + ${R[log.$ep.on2.rps]}"') / 2')
        off=$(calc '"%.0f", ('"${R[log.$ep.off1.rps]} + ${R[log.$ep.off2.rps]}"') / 2')
        ng=${R[log.$ep.nginx.rps]}
        con=$(calc '"%.1f", ('"${R[log.$ep.on1.cpu_us]} + ${R[log.$ep.on2.cpu_us]}"') / 2')
        coff=$(calc '"%.1f", ('"${R[log.$ep.off1.cpu_us]} + ${R[log.$ep.off2.cpu_us]}"') / 2')
        echo "| ${EP_NAME[$ep]} | $ng | $on | $off | $(calc '"%.2f", '"$on / $off") | $(calc '"%.2f", '"$on / $ng") | $(calc '"%.2f", '"$off / $ng") | $con / $coff |"
    done
    echo
    echo "## The key check's cost"
    echo
    echo "GET /catalog on the main server at 64 connections, with \`Authorization: Bearer\` and the admin key" \
        "and without, in the order with, without, without, with: the CPU per request's difference is what" \
        "identifying a key costs (its prefix looked up, its SHA-256 compared in constant time, its bucket taken)."
    echo
    echo "| | req/s (mean of 2) | CPU µs/req (mean of 2) |"
    echo "|---|---:|---:|"
    local mode rps cpu
    for mode in with without; do
        rps=$(calc '"%.0f", ('"${R[key.${mode}1.rps]} + ${R[key.${mode}2.rps]}"') / 2')
        cpu=$(calc '"%.2f", ('"${R[key.${mode}1.cpu_us]} + ${R[key.${mode}2.cpu_us]}"') / 2')
        R[key.$mode.cpu]=$cpu
        echo "| $mode a key | $rps | $cpu |"
    done
    echo
    echo "The key check: $(calc '"%.2f", '"${R[key.with.cpu]} - ${R[key.without.cpu]}") µs of CPU a request (target ≤ 2 µs)."
    echo
    printf '%s\n' "${GROWTH_OUT[@]}"
    echo
    cat <<'EOF'
## How to read this, and why a MISS does not fail

- **Pairs.** Each gpuquote run follows an nginx run with the same connections and duration;
  the ratio is taken within the pair, so a machine that is slower for a minute slows both.
  wrk, nginx and gpuquote share the same two cores, so a server that needs less CPU per
  request also leaves more to wrk: the ratio measures efficiency, not only speed.
- **POST endpoints against a static GET.** nginx cannot compute a quote; it stands for the
  cheapest way to answer a request with a few KB over HTTP on this machine. A POST ratio is
  therefore "how close to that floor", and its targets (0.6, 0.3) allow for the work.
- **p99.** The target is checked as stated, p99 ≤ 1.25 × nginx's p99, for every endpoint. For
  an endpoint slower than nginx it is mostly a second throughput target: at a fixed number of
  connections the mean latency is connections ÷ throughput (Little's law), so an endpoint at
  0.3 × nginx's throughput has ≥ 3.3 × its mean latency, and its p99 can only be within 1.25 ×
  if its tail is much tighter than nginx's. The detail therefore also gives the tail factor,
  p99 ratio × throughput ratio: at or below 1.25, gpuquote's p99 relative to its own mean
  latency is no worse than nginx's, and the miss is the throughput's.
- **Hard checks** are properties that do not depend on noise: a keep-alive connection that gets
  `Connection: close` (two requests on one curl connection per endpoint, and after every run
  no socket in TIME-WAIT on the server's port: wrk keeps its connections open for the whole
  run, so any such socket is a connection the server closed), a collapse at exactly 128 or
  256 connections (below half the 64-connection rate, or any request over the wrk timeout),
  connections waiting in the listen queue (the listening socket's Recv-Q, sampled every
  0.25 s after the first second of the 128- and 256-connection runs, above 0 in two samples or
  more), and errors, timeouts or non-2xx answers in any run. These make `make bench` exit 1.
  libmicrohttpd 0.9.75's poll loop serves every ready connection once and then accepts one
  new connection, so when requests are expensive a burst of new connections waits in the
  listen queue for seconds (and wrk counts their first requests as timeouts): the cost per
  request, not only a connection limit, can make this check fail.
- **Ratio targets** are reported as PASS or **MISS** and leave the exit status at 0. They are
  product goals measured on a shared 2-core machine where a ratio moves by ±10 % between
  runs; failing the build on them would make `make bench` flaky and, worse, would make a
  benchmark that is a measuring instrument refuse to produce its measurements exactly when
  they are most needed. A MISS is loud in the table and in this file, which is committed.
- **Growth** uses generated fixtures (`bench/make_fixture.sh`, not product data) served by
  their own gpuquote processes, 16 connections, and nginx serving the very bytes gpuquote
  answered as the pair's reference. The cost per request is gpuquote's CPU time per request;
  "cost growth ÷ size growth" is (cost ratio) ÷ (size ratio) between adjacent sizes: ≤ 1 means
  the cost grows no faster than linearly. PASS when it is ≤ 1.10 (the noise allowance), or when
  it is no more than 1.10 × nginx's growth for the same bytes: moving megabytes through the
  caches and loopback grows faster than linearly on this machine for any server, and that part
  is not gpuquote's algorithm.
EOF
}

# Growth tables: fills GROWTH_OUT and adds verdicts.
GROWTH_OUT=()
growth_section() {
    local ep n prev cost prev_cost ng_cost ng_prev ratio ng_growth label sizes ok name
    GROWTH_OUT+=("## Growth: cost per request against size")
    GROWTH_OUT+=("")
    GROWTH_OUT+=("Cost = CPU time per request. Growth between adjacent sizes: (cost ratio) ÷ (size ratio);" \
        "≤ 1 is linear or better. nginx serves the very bytes gpuquote answered at each size, so its" \
        "cost growth is what moving those bytes costs on this machine (caches included).")
    GROWTH_OUT+=("")
    GROWTH_OUT+=("| endpoint | size | response bytes | nginx (same bytes) req/s | gpuquote req/s | ratio | nginx CPU µs/req | gpuquote CPU µs/req | gpuquote cost growth ÷ size growth | nginx's, same bytes |")
    GROWTH_OUT+=("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for ep in filtered recommend quote; do
        if [ "$ep" = quote ]; then sizes=(1 10 100); label=items; else sizes=("${SIZES[@]}"); label=SKUs; fi
        name=${EP_NAME[$ep]}
        [ "$ep" = quote ] && name='POST /quote (unsaved)'
        prev=""
        for n in "${sizes[@]}"; do
            key=grow.$ep.$n
            cost=${R[$key.gq.cpu_us]}
            ng_cost=${R[$key.nginx.cpu_us]}
            ratio='—'
            ng_growth='—'
            if [ -n "$prev" ]; then
                prev_cost=${R[grow.$ep.$prev.gq.cpu_us]}
                ng_prev=${R[grow.$ep.$prev.nginx.cpu_us]}
                ratio=$(calc '"%.3f", ('"$cost"' / '"$prev_cost"') / ('"$n"' / '"$prev"')')
                ng_growth=$(calc '"%.3f", ('"$ng_cost"' / '"$ng_prev"') / ('"$n"' / '"$prev"')')
                # Linear (with a 10 % noise allowance), or no faster than nginx
                # moving the same bytes: then the excess is the machine's, not
                # gpuquote's.
                ok=$(ge 1.10 "$ratio")
                [ "$ok" = 1 ] || ok=$(ge "$(calc '"%.3f", 1.10 * '"$ng_growth")" "$ratio")
                verdict "$ok" "$name: cost grows no faster than linearly, $prev → $n $label" \
                    "CPU/request × $(calc '"%.2f", '"$cost / $prev_cost") for size × $(calc '"%g", '"$n / $prev") ⇒ $ratio (nginx, same bytes: $ng_growth)"
            fi
            GROWTH_OUT+=("| $name | $n $label | ${R[$key.bytes]} | ${R[$key.nginx.rps]} | ${R[$key.gq.rps]} | ${R[$key.ratio]} | $ng_cost | $cost | $ratio | $ng_growth |")
            prev=$n
        done
    done
    GROWTH_OUT+=("")
    GROWTH_OUT+=("Start-up to ready with 5 / 1 000 / 10 000 SKUs: ${R[fx5.ready_ms]} / ${R[fx1000.ready_ms]} / ${R[fx10000.ready_ms]} ms.")
}

REPORT_FILE=$WORK/RESULTS.md
report >"$REPORT_FILE"

cat "$REPORT_FILE"
if [ "$RESULTS" != - ]; then
    cp "$REPORT_FILE" "$RESULTS"
    log "bench: wrote $RESULTS"
fi

if [ ${#HARD[@]} -gt 0 ]; then
    log "bench: FAIL (${#HARD[@]} hard failure(s))"
    printf '  %s\n' "${HARD[@]}" >&2
    exit 1
fi
MISSES=$(printf '%s\n' "${TARGETS[@]}" | grep -c '^MISS' || true)
log "bench: hard checks PASS; $MISSES target(s) missed (MISS, see $RESULTS)"
exit 0
