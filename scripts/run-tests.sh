#!/bin/sh
# Runs each test binary given as an argument and reports the failures, then,
# when GPUQUOTE_TEST_POSTGRES names a PostgreSQL server, runs the binaries
# listed in $GPUQUOTE_POSTGRES_TESTS again against it
# (GPUQUOTE_TEST_BACKEND=postgres: every server they start gets a database
# of its own there). Exits 1 if any run fails. Check prints its own summary.
set -u
failed=""
runs=0
for test in "$@"; do
    runs=$((runs + 1))
    if ! "$test"; then
        failed="$failed ${test#*/}"
    fi
done
if [ -n "${GPUQUOTE_POSTGRES_TESTS:-}" ]; then
    if [ -z "${GPUQUOTE_TEST_POSTGRES:-}" ]; then
        echo "run-tests: GPUQUOTE_POSTGRES_TESTS without a server (GPUQUOTE_TEST_POSTGRES)" >&2
        exit 1
    fi
    echo "== the integration suites again, against PostgreSQL"
    for test in $GPUQUOTE_POSTGRES_TESTS; do
        runs=$((runs + 1))
        if ! GPUQUOTE_TEST_BACKEND=postgres "$test"; then
            failed="$failed ${test#*/}(postgres)"
        fi
    done
fi
if [ -n "$failed" ]; then
    echo "FAILED:$failed" >&2
    exit 1
fi
echo "all $runs test runs passed"
