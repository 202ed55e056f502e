#!/bin/sh
# Runs each test binary given as an argument and reports the failures, then,
# when GPUQUOTE_TEST_POSTGRES names a PostgreSQL server, runs the binaries
# listed in $GPUQUOTE_POSTGRES_TESTS again against it
# (GPUQUOTE_TEST_BACKEND=postgres: every server they start gets a database
# of its own there). Exits 1 if any run fails. Check prints its own summary.
#
# GPUQUOTE_TEST_JOBS=N (default 1) runs N binaries at once, each one's
# output kept apart and printed whole, in the order given, when it ends:
# for the valgrind run, whose servers each keep one core busy.
set -u
jobs=${GPUQUOTE_TEST_JOBS:-1}
failed=""
runs=0

# run_all LABEL_SUFFIX BINARY...: runs them, $jobs at a time; appends the
# failures to $failed and counts the runs.
run_all() {
    suffix=$1
    shift
    if [ "$jobs" -le 1 ]; then
        for test in "$@"; do
            runs=$((runs + 1))
            "$test" || failed="$failed ${test#*/}$suffix"
        done
        return
    fi
    logs=$(mktemp -d "${TMPDIR:-/tmp}/gpuquote-run-tests.XXXXXX")
    n=0
    for test in "$@"; do
        n=$((n + 1))
        printf '%s %s\n' "$n" "$test"
    done | xargs -P "$jobs" -L 1 sh -c '"$2" >"$0/$1.log" 2>&1; echo $? >"$0/$1.status"' "$logs"
    n=0
    for test in "$@"; do
        n=$((n + 1))
        runs=$((runs + 1))
        cat "$logs/$n.log"
        [ "$(cat "$logs/$n.status" 2>/dev/null)" = 0 ] || failed="$failed ${test#*/}$suffix"
    done
    rm -rf "$logs"
}

run_all "" "$@"
if [ -n "${GPUQUOTE_POSTGRES_TESTS:-}" ]; then
    if [ -z "${GPUQUOTE_TEST_POSTGRES:-}" ]; then
        echo "run-tests: GPUQUOTE_POSTGRES_TESTS without a server (GPUQUOTE_TEST_POSTGRES)" >&2
        exit 1
    fi
    echo "== the integration suites again, against PostgreSQL"
    export GPUQUOTE_TEST_BACKEND=postgres
    # shellcheck disable=SC2086 # a list of paths, split on purpose
    run_all "(postgres)" $GPUQUOTE_POSTGRES_TESTS
fi
if [ -n "$failed" ]; then
    echo "FAILED:$failed" >&2
    exit 1
fi
echo "all $runs test runs passed"
