#!/bin/bash
# Runs the commands of README.md and docs/*.md, so that a doc that drifts
# from the server fails the build.
#
#   tests/docs/run-docs.sh [FILE.md ...]      (default: README.md docs/*.md)
#
# Each fenced block whose info string is `sh` is run; a block marked
# `sh no-run` (docker, kubectl, make run: what cannot run here) is only
# checked to parse (bash -n), and counted and named. The blocks of one file
# run in order in one shell, so a variable set by one (KEY, ID) serves the
# next, against a server of their own: build/gpuquote (or $GPUQUOTE_BIN)
# started with the checkout's config/gpuquote.json in a temporary directory
# laid out like the checkout (build/gpuquote, config/, migrations/, data/),
# as `make run` starts it, on a free port that replaces 8080 in the
# commands. The server runs with keyless rate limits off and webhooks
# allowed to reach plain http on loopback (docs/integration.md's receiver).
#
# Checks: every command must succeed and every curl must be answered below
# 400, unless a `# → TEXT` comment ends the command: then its output must
# contain TEXT (whatever the status). A failure names the file and line.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GPUQUOTE_BIN:-$root/build/gpuquote}
[ -x "$bin" ] || { echo "docs: $bin is not built" >&2; exit 2; }
for tool in curl jq openssl node; do
    command -v "$tool" >/dev/null || { echo "docs: $tool is missing (scripts/deps.sh test)" >&2; exit 2; }
done
cd "$root" || exit 2
if [ $# -eq 0 ]; then set -- README.md docs/*.md; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuquote-docs-XXXXXX")
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
        server_pid=""
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# Splits FILE's fenced sh blocks into $2/N.sh, listing "N KIND LINE" in
# $2/blocks; `# → TEXT` at a line's end becomes a pipe into __expect.
extract() {
    awk -v dir="$2" -v file="$1" '
        function finish() { close(out); kind = "" }
        kind == "" && /^```sh( no-run)?[ \t]*$/ {
            n++; kind = ($0 ~ /no-run/) ? "no-run" : "run"; start = NR + 1
            out = dir "/" n ".sh"; printf "" > out
            print n, kind, start >> (dir "/blocks"); next
        }
        kind != "" && /^```[ \t]*$/ { finish(); next }
        kind == "run" && match($0, / *# → /) {
            want = substr($0, RSTART + RLENGTH); gsub(/\047/, "\047\\\047\047", want)
            printf "%s | __expect \047%s\047 \047%s:%d\047\n", substr($0, 1, RSTART - 1), want,
                file, NR >> out
            next
        }
        kind != "" { print >> out }
    ' "$1"
}

# The server of one file, like `make run`'s, on a free port.
start_server() {
    local dir=$1
    mkdir -p "$dir/build" "$dir/data"
    ln -s "$bin" "$dir/build/gpuquote"
    ln -s "$root/config" "$dir/config"
    ln -s "$root/migrations" "$dir/migrations"
    (cd "$dir" && exec env -u GPUQUOTE_BIN -u GPUQUOTE_SOURCE_DIR \
        GPUQUOTE_RATE_LIMIT_KEYLESS_PER_SECOND=0 GPUQUOTE_RATE_LIMIT_KEYLESS_SAVES_PER_MINUTE=0 \
        GPUQUOTE_WEBHOOKS_ALLOW_HTTP=true GPUQUOTE_WEBHOOKS_ALLOW_PRIVATE=true \
        GPUQUOTE_WEBHOOK_POLL_MS=100 \
        build/gpuquote --port 0 --port-file port >server.out 2>server.err) &
    server_pid=$!
    for _ in $(seq 200); do
        [ -s "$dir/port" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.05
    done
    echo "docs: the server did not start:" >&2
    cat "$dir/server.err" >&2
    return 1
}

# The shell every block of a file runs in: strict, with curl answered
# below 400 unless the command's output is checked.
prelude() {
    cat <<'PRELUDE'
set -eo pipefail
__statuses=$PWD/.statuses
: >"$__statuses"
curl() {
    local arg
    for arg in "$@"; do
        case $arg in -w | --write-out | -w*) command curl "$@"; return; esac
    done
    local out status
    out=$(command curl "$@" -w '\n@@status %{http_code}') || return
    status=${out##*@@status }
    out=${out%$'\n'@@status *}
    printf '%s\n' "$out"
    echo "$status" >>"$__statuses"
}
__expect() {
    local out
    out=$(cat)
    printf '%s\n' "$out"
    case $out in
    *"$1"*) sed -i '$d' "$__statuses" ;;
    *) echo "docs: $2: the output lacks '$1'" >&2; return 1 ;;
    esac
}
__check_statuses() {
    if grep -qv '^[123]' "$__statuses"; then
        echo "docs: $1: a curl was answered $(grep -v '^[123]' "$__statuses" | head -1)" >&2
        return 1
    fi
}
PRELUDE
}

failed=0
ran=0
not_run=()

# README.md says `make help` lists every target: each phony one but FORCE
# (and all, which is plain `make`).
help=$(make -s --no-print-directory -C "$root" help 2>&1)
# shellcheck disable=SC2013 # one target a word
for target in $(sed -n 's/^\.PHONY: //p' "$root/Makefile"); do
    case $target in FORCE | all) continue ;; esac
    if ! grep -q "^ *make $target " <<<"$help"; then
        echo "docs: make help does not list '$target'" >&2
        failed=1
    fi
done
for file in "$@"; do
    # Commands fenced otherwise would escape the test.
    if grep -nE '^```(bash|shell|console|zsh|sh[^ a-z-])' "$file" >"$work/fences"; then
        sed "s|^|docs: $file:|; s|\$|: fence commands as sh, or sh no-run|" "$work/fences" >&2
        failed=1
    fi
    blocks="$work/$(basename "$file" .md)"
    mkdir -p "$blocks"
    : >"$blocks/blocks"
    extract "$file" "$blocks"
    runnable=0
    while read -r n kind line; do
        if ! bash -n "$blocks/$n.sh" 2>"$blocks/$n.err"; then
            echo "docs: $file:$line: the block does not parse: $(cat "$blocks/$n.err")" >&2
            failed=1
        fi
        if [ "$kind" = no-run ]; then
            not_run+=("$file:$line")
        else
            runnable=$((runnable + 1))
        fi
    done <"$blocks/blocks"
    [ "$runnable" -gt 0 ] || continue
    dir="$blocks/checkout"
    start_server "$dir" || { failed=1; continue; }
    port=$(cat "$dir/port")
    {
        prelude
        while read -r n kind line; do
            [ "$kind" = run ] || continue
            sed -e "s/localhost:8080/localhost:$port/g" -e "s/127\.0\.0\.1:8080/127.0.0.1:$port/g" \
                "$blocks/$n.sh" >"$blocks/$n.run"
            printf "__where='%s:%s'\n" "$file" "$line"
            printf "trap 'echo \"docs: %s:\$((%s + LINENO - 1)): exit status \$?\" >&2' ERR\n" \
                "$file" "$line"
            # shellcheck disable=SC2016 # expanded where the blocks run
            printf 'source %q\n__check_statuses "$__where"\n' "$blocks/$n.run"
        done <"$blocks/blocks"
    } >"$blocks/all.sh"
    # In a process group of its own, so that what a block left running
    # (a receiver) goes with it; and in a bounded time.
    (cd "$dir" && exec setsid timeout 300 bash "$blocks/all.sh") >"$blocks/output.log" 2>&1 &
    group=$!
    wait "$group"
    status=$?
    kill -- -"$group" 2>/dev/null
    if [ "$status" -eq 0 ]; then
        echo "docs: $file: $runnable block(s) ran"
    else
        echo "docs: $file: FAILED; its output:" >&2
        tail -n 40 "$blocks/output.log" | cut -c1-400 >&2
        failed=1
    fi
    ran=$((ran + runnable))
    stop_server
done
echo "docs: $ran block(s) ran; ${#not_run[@]} not run, checked to parse: ${not_run[*]:-none}"
exit $failed
