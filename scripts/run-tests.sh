#!/bin/sh
# Runs each test binary given as an argument and reports the failures.
# Exits 1 if any binary fails. Check prints its own per-suite summary.
set -u
failed=""
for test in "$@"; do
    if ! "$test"; then
        failed="$failed ${test#*/}"
    fi
done
if [ -n "$failed" ]; then
    echo "FAILED:$failed" >&2
    exit 1
fi
echo "all $# test binaries passed"
