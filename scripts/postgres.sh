#!/bin/bash
# A throwaway PostgreSQL server for the tests and the benchmark: Debian's
# server binaries, initdb into a new directory, a free port on 127.0.0.1,
# run as an unprivileged user when this runs as root (PostgreSQL refuses
# root). DIR holds what names it (its url, port and the path of its
# cluster); the cluster itself lives in a directory of its own under
# $TMPDIR (or /tmp) that user can reach, as a checkout in a 0700 directory
# is not.
#
#   scripts/postgres.sh start DIR [durable]   start (initdb first); prints its URL,
#                                             also written to DIR/url
#   scripts/postgres.sh stop DIR              stop it (fast), if running
#   scripts/postgres.sh restart DIR           stop and start on the same port
#   scripts/postgres.sh remove DIR            stop it and remove its cluster and DIR
#   scripts/postgres.sh run DIR COMMAND...    start, run COMMAND with
#                                             GPUQUOTE_TEST_POSTGRES set to the URL,
#                                             then stop and remove DIR, whatever happened;
#                                             exits with COMMAND's status
#
# Tests run with fsync off: a test of durability kills gpuquote, never the
# database server. "durable" keeps PostgreSQL's defaults (fsync and
# synchronous_commit on), as the benchmark needs.
set -eu

usage() { echo "usage: $0 start|stop|restart|remove DIR [durable] | run DIR COMMAND..." >&2; exit 2; }
[ $# -ge 2 ] || usage
command=$1
dir=$2
shift 2
mode=tests
[ "$command" != run ] && [ $# -gt 0 ] && mode=$1

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "gpuquote: PostgreSQL's server is not installed (scripts/deps.sh test installs it:" \
        "apt-get install postgresql)" >&2
    exit 1
fi

# Runs a server binary as the owner of DIR's cluster.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u nobody -- "$@"
    else
        "$@"
    fi
}

port_is_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# The cluster's directory, made on the first start.
cluster() {
    if [ ! -f "$dir/cluster" ]; then
        made=$(mktemp -d "${TMPDIR:-/tmp}/gpuquote-postgres-XXXXXX")
        chmod 0755 "$made"
        [ "$(id -u)" -eq 0 ] && chown nobody "$made"
        echo "$made" >"$dir/cluster"
    fi
    cat "$dir/cluster"
}

start_on() {
    as_owner "$bindir/pg_ctl" -D "$cluster/data" -l "$cluster/server.log" -w -t 30 \
        -o "-p $1 -k $cluster -c listen_addresses=127.0.0.1" start >/dev/null
}

start() {
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    cluster=$(cluster)
    if [ ! -f "$cluster/data/PG_VERSION" ]; then
        as_owner "$bindir/initdb" -D "$cluster/data" -U gq --auth=trust --no-locale -E UTF8 \
            >"$cluster/initdb.log" 2>&1 || { cat "$cluster/initdb.log" >&2; exit 1; }
        # Each backend is a process of its own, so max_connections costs
        # the postmaster no descriptors; a backend keeps at most
        # max_files_per_process files open, set within this shell's limit
        # (1024 is a common hard limit) less the few a process has already.
        files=$(ulimit -n)
        [ "$files" = unlimited ] || [ "$files" -gt 1064 ] && files=1064
        {
            echo "max_connections = 400"
            echo "max_files_per_process = $((files - 64))"
            echo "unix_socket_permissions = 0777"
            if [ "$mode" != durable ]; then
                echo "fsync = off"
                echo "full_page_writes = off"
            fi
        } | as_owner tee -a "$cluster/data/postgresql.conf" >/dev/null
    fi
    if [ -f "$dir/port" ]; then
        start_on "$(cat "$dir/port")" || { tail -40 "$cluster/server.log" >&2; exit 1; }
    else
        for _ in $(seq 1 20); do
            port=$((20000 + RANDOM % 40000))
            port_is_free "$port" || continue
            if start_on "$port"; then
                echo "$port" >"$dir/port"
                break
            fi
        done
        [ -f "$dir/port" ] || { tail -40 "$cluster/server.log" >&2; exit 1; }
    fi
    url="postgresql://gq@127.0.0.1:$(cat "$dir/port")/postgres"
    echo "$url" >"$dir/url"
    echo "$url"
}

stop() {
    [ -f "$dir/cluster" ] || return 0
    cluster=$(cat "$dir/cluster")
    [ -f "$cluster/data/postmaster.pid" ] || return 0
    as_owner "$bindir/pg_ctl" -D "$cluster/data" -m fast -w -t 30 stop >/dev/null
}

# Stops it and removes its cluster and DIR.
remove() {
    stop || true
    [ -f "$dir/cluster" ] && rm -rf "$(cat "$dir/cluster")"
    rm -rf "$dir"
}

run() {
    [ $# -gt 0 ] || usage
    remove
    trap 'remove' EXIT
    trap 'exit 130' INT TERM
    GPUQUOTE_TEST_POSTGRES=$(start)
    export GPUQUOTE_TEST_POSTGRES
    status=0
    "$@" || status=$?
    return $status
}

case "$command" in
start) start ;;
stop) stop ;;
restart) stop; start >/dev/null ;;
remove) remove ;;
run) run "$@" ;;
*) usage ;;
esac
