#!/usr/bin/env bash
# bench/mode_plans.sh [DAYS...] — instructions of one cheapest plan, today's
# plans.c against mode_plans.c, and of the plan work of the benchmark's
# 3-item quote with today's four modes against seven modes as data.
# Counted by callgrind (bench/mode_plans.c): (instructions of a run of
# CALLS calls - those of a run of none) / CALLS. Default days: 30 90 365 3650.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "bench: valgrind is needed (scripts/deps.sh tools)" >&2; exit 2; }
WORK=$(mktemp -d /tmp/gpuquote-mode-plans.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CALLS=${BENCH_CALLS:-200}
cc -std=c11 -O2 -DNDEBUG -D_GNU_SOURCE -fno-strict-aliasing -Isrc -o "$WORK/mode_plans" bench/mode_plans.c \
    src/core/*.c -lm

# per_call WHAT DAYS MILLIHOURS
per_call() {
    local runs=()
    for calls in 0 "$CALLS"; do
        valgrind --tool=callgrind --callgrind-out-file="$WORK/out" "$WORK/mode_plans" "$1" "$2" "$3" \
            "$calls" >/dev/null 2>"$WORK/err"
        runs+=("$(sed -n 's/^summary: //p' "$WORK/out")")
    done
    echo $(((runs[1] - runs[0]) / CALLS))
}

DAYS=("$@")
[ ${#DAYS[@]} -gt 0 ] || DAYS=(30 90 365 3650)
printf '%-8s %-6s %12s %12s %12s %8s %8s\n' days hours today seed seven seed/today seven/today
for hours in 24 8; do
    for days in "${DAYS[@]}"; do
        today=$(per_call today "$days" $((hours * 1000)))
        seed=$(per_call seed "$days" $((hours * 1000)))
        seven=$(per_call seven "$days" $((hours * 1000)))
        printf '%-8s %-6s %12s %12s %12s %8s %8s\n' "$days" "$hours" "$today" "$seed" "$seven" \
            "$(awk -v a="$seed" -v b="$today" 'BEGIN { printf "%.2f", a / b }')" \
            "$(awk -v a="$seven" -v b="$today" 'BEGIN { printf "%.2f", a / b }')"
    done
done
quote_today=$(per_call quote_today 0 0)
quote_seven=$(per_call quote_seven 0 0)
echo "3-item quote, plan work: today (4 modes) $quote_today, seven modes as data $quote_seven," \
    "difference $((quote_seven - quote_today)) instructions"
