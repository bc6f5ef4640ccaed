#!/usr/bin/env bash
# One PostgreSQL import against two at once (one command with --jobs 2, then two processes),
# each into a fresh database, ROUNDS times: what the performance page's concurrency figures are.
#
#     Benchmarks/postgres-pair.sh SLUICE POSTGRES_URL DOCUMENT [ROUNDS]
#
# POSTGRES_URL names a database to connect to for creating and dropping `sluice_pair` (for
# example the one scripts/with-postgres.sh exports as $SLUICE_POSTGRES_URL); the second document
# is DOCUMENT with other ids (every `"id":"` gets a `b`), so the two write disjoint rows.
set -euo pipefail
sluice=$1 url=$2 document=$3 rounds=${4:-3}
# with-postgres.sh gives its password apart from the URL.
export PGPASSWORD="${PGPASSWORD:-${SLUICE_POSTGRES_PASSWORD:-}}"
psql=$(command -v psql || ls /usr/lib/postgresql/*/bin/psql | tail -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed 's/"id":"/"id":"b/g' "$document" > "$work/other.json"
pair="${url/\/postgres\?//sluice_pair?}"
fresh() {
    "$psql" "$url" -qc "DROP DATABASE IF EXISTS sluice_pair" >/dev/null 2>&1
    "$psql" "$url" -qc "CREATE DATABASE sluice_pair"
}
TIMEFORMAT="%R s wall, %U+%S s CPU"
for _ in $(seq "$rounds"); do
    fresh; echo -n "one:            "
    { time "$sluice" import "$document" --postgres "$pair" --quiet; } 2>&1 | tail -1
    fresh; echo -n "two, --jobs 2:  "
    { time "$sluice" import "$document" "$work/other.json" --jobs 2 --postgres "$pair" --quiet; } 2>&1 | tail -1
    fresh; echo -n "two processes:  "
    { time ("$sluice" import "$document" --postgres "$pair" --quiet &
        "$sluice" import "$work/other.json" --postgres "$pair" --quiet & wait); } 2>&1 | tail -1
done
"$psql" "$url" -qc "DROP DATABASE IF EXISTS sluice_pair" >/dev/null 2>&1
