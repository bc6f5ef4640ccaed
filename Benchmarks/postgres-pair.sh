#!/usr/bin/env bash
# One PostgreSQL import against two at once (one command with --jobs 2, then two processes),
# each into a fresh database, ROUNDS times: what the performance page's concurrency figures are.
#
#     Benchmarks/postgres-pair.sh SLUICE POSTGRES_URL DOCUMENT [ROUNDS]
#
# POSTGRES_URL names a database to connect to for creating and dropping `sluice_pair` (for
# example the one scripts/with-postgres.sh exports as $SLUICE_POSTGRES_URL); the second document
# is DOCUMENT with other ids (every `"id":"` gets a `b`), so the two write disjoint rows.
# With WAITS=1 it also samples, every 20 ms while each import runs, what the importing backends
# wait on (pg_stat_activity; CPU when they wait on nothing) and prints the counts at the end.
set -euo pipefail
sluice=$1 url=$2 document=$3 rounds=${4:-3}
# with-postgres.sh gives its password apart from the URL.
export PGPASSWORD="${PGPASSWORD:-${SLUICE_POSTGRES_PASSWORD:-}}"
psql=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql | tail -1)
work=$(mktemp -d)
sampler=""
trap '[ -n "$sampler" ] && kill "$sampler" 2>/dev/null; rm -rf "$work"' EXIT
sed 's/"id":"/"id":"b/g' "$document" > "$work/other.json"
pair="${url/\/postgres\?//sluice_pair?}"
fresh() {
    "$psql" "$url" -qc "DROP DATABASE IF EXISTS sluice_pair" >/dev/null 2>&1
    "$psql" "$url" -qc "CREATE DATABASE sluice_pair"
}
# Appends the importing backends' wait events to $work/waits.$1 until killed.
sample() {
    while :; do
        "$psql" "$url" -Atc "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
            FROM pg_stat_activity WHERE datname = 'sluice_pair' AND state = 'active'" >>"$work/waits.$1" 2>/dev/null ||
            true
        sleep 0.02
    done
}
# Times `$2...` (a command run in a subshell), sampling its waits as kind $1 when WAITS=1.
timed() {
    local kind=$1
    shift
    if [ "${WAITS:-0}" = 1 ]; then sample "$kind" & sampler=$!; fi
    { time ("$@"); } 2>&1 | tail -1
    if [ -n "$sampler" ]; then
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        sampler=""
    fi
}
# Both imports as processes of their own; fails when either does.
both() {
    "$sluice" import "$document" --postgres "$pair" --quiet &
    local first=$!
    "$sluice" import "$work/other.json" --postgres "$pair" --quiet &
    local second=$!
    wait "$first" && wait "$second"
}
TIMEFORMAT="%R s wall, %U+%S s CPU"
for _ in $(seq "$rounds"); do
    fresh; echo -n "one:            "
    timed one "$sluice" import "$document" --postgres "$pair" --quiet
    fresh; echo -n "two, --jobs 2:  "
    timed two "$sluice" import "$document" "$work/other.json" --jobs 2 --postgres "$pair" --quiet
    fresh; echo -n "two processes:  "
    timed two both
done
if [ "${WAITS:-0}" = 1 ]; then
    for kind in one two; do
        echo "what the importing backends waited on, $kind import(s) at once (samples):"
        { grep -v '^$' "$work/waits.$kind" 2>/dev/null || true; } | sort | uniq -c | sort -rn | head -8
    done
fi
"$psql" "$url" -qc "DROP DATABASE IF EXISTS sluice_pair" >/dev/null 2>&1
