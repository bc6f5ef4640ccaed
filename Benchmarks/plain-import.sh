#!/usr/bin/env bash
# sluice import of plain JSON beside the importers a user would pick instead, in one run on the
# same generated GitHub-like events: DuckDB (read_ndjson_auto into a DuckDB table), sqlite-utils
# (insert --nl --alter, and --flatten), dlt (a pipeline with child tables into DuckDB) and, when
# SLUICE_POSTGRES_URL names a server (scripts/with-postgres.sh starts one), PostgreSQL's own path
# (COPY of the lines into a jsonb column, then INSERT ... SELECT into typed columns).
#
#   Benchmarks/plain-import.sh                          # about 100 MB of events, medians of 3
#   SIZE=1000 RUNS=1 Benchmarks/plain-import.sh         # about 1 GB
#   scripts/with-postgres.sh Benchmarks/plain-import.sh # with the PostgreSQL rows
#   SIZE=1000 SLOW_PEERS=0 Benchmarks/plain-import.sh   # without sqlite-utils and dlt (minutes each)
#
# Prints wall-clock seconds, MB/s and peak memory (RSS) per contender, and checks that every
# contender stored the same number of events. Peers go into a virtual environment under
# .build-peers (PyPI: duckdb, sqlite-utils, dlt[duckdb]).
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100}
RUNS=${RUNS:-3}
SLOW_PEERS=${SLOW_PEERS:-1}
WORK=.build/plain-import-bench
VENV=.build-peers/venv
SLUICE=.build/release/sluice
mkdir -p "$WORK"

[ -x "$SLUICE" ] || swift build -c release --product sluice
if [ ! -x "$VENV/bin/sqlite-utils" ] || ! "$VENV/bin/python" -c 'import duckdb, dlt' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q duckdb sqlite-utils "dlt[duckdb]"
fi
PY="$VENV/bin/python"

LINES="$WORK/events-$SIZE.ndjson"
ARRAY="$WORK/events-$SIZE.json"
if [ ! -f "$LINES" ] || [ ! -f "$ARRAY" ]; then
    echo "Generating about $SIZE MB of events..." >&2
    python3 Benchmarks/PlainImport/make_events.py --megabytes "$SIZE" --lines "$LINES" --array "$ARRAY" >/dev/null
fi
BYTES=$(stat -c %s "$LINES")
EVENTS=$(wc -l < "$LINES")

# Runs a command RUNS times (after removing $2), printing the median wall seconds and the peak RSS
# in KB of the median run. $1 names the row.
declare -a ROWS=()
measure() {
    local name=$1 clean=$2 runs=$3
    shift 3
    local results=()
    for _ in $(seq "$runs"); do
        rm -rf "$clean" "$clean".wal "$clean"-wal "$clean"-shm
        /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || {
            echo "$name failed:" >&2
            cat "$WORK/stderr" >&2
            return 1
        }
        results+=("$(cat "$WORK/time")")
    done
    local median
    median=$(printf '%s\n' "${results[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
    ROWS+=("$name|$median")
}

count_sqlite() { sqlite3 "$1" "SELECT COUNT(*) FROM $2"; }
count_duckdb() { "$PY" -c "import duckdb,sys; print(duckdb.connect(sys.argv[1], read_only=True).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }

check() {
    local name=$1 got=$2
    if [ "$got" != "$EVENTS" ]; then
        echo "$name stored $got events, not $EVENTS" >&2
        exit 1
    fi
}

measure "sluice import -> SQLite (--nested flatten)" "$WORK/s.sqlite" "$RUNS" \
    "$SLUICE" import "$LINES" --sqlite "$WORK/s.sqlite" --table events --pk id --quiet
check sluice "$(count_sqlite "$WORK/s.sqlite" events)"
measure "sluice import -> SQLite (--nested tables)" "$WORK/t.sqlite" "$RUNS" \
    "$SLUICE" import "$LINES" --sqlite "$WORK/t.sqlite" --table events --pk id --nested tables --quiet
check "sluice tables" "$(count_sqlite "$WORK/t.sqlite" events)"
measure "sluice import -> SQLite, the array form" "$WORK/a.sqlite" "$RUNS" \
    "$SLUICE" import "$ARRAY" --sqlite "$WORK/a.sqlite" --table events --pk id --quiet
check "sluice array" "$(count_sqlite "$WORK/a.sqlite" events)"
# With its default sample of rows DuckDB stops at the member that first appears half-way
# ("has unknown key score"); sample_size=-1, the fix its message suggests, reads the whole file
# for the schema first.
if "$PY" -c "import duckdb,sys; duckdb.connect(sys.argv[1]).execute(\"CREATE TABLE events AS SELECT * FROM read_ndjson_auto('\" + sys.argv[2] + \"')\")" \
    "$WORK/default.duckdb" "$LINES" 2>"$WORK/duckdb-default.err"; then
    DUCKDB_DEFAULT="reads the file with its default sampling"
else
    DUCKDB_DEFAULT="fails with its default sampling: $(grep -o 'has unknown key "*[a-z_]*"*' "$WORK/duckdb-default.err" | head -1)"
fi
rm -f "$WORK/default.duckdb"
measure "DuckDB read_ndjson_auto(sample_size=-1) -> table" "$WORK/d.duckdb" "$RUNS" \
    "$PY" -c "import duckdb,sys; duckdb.connect(sys.argv[1]).execute(\"CREATE TABLE events AS SELECT * FROM read_ndjson_auto('\" + sys.argv[2] + \"', sample_size=-1)\")" \
    "$WORK/d.duckdb" "$LINES"
check duckdb "$(count_duckdb "$WORK/d.duckdb" "SELECT COUNT(*) FROM events")"
if [ "$SLOW_PEERS" = 1 ]; then
    measure "sqlite-utils insert --nl --alter" "$WORK/u.sqlite" 1 \
        "$VENV/bin/sqlite-utils" insert "$WORK/u.sqlite" events "$LINES" --nl --pk id --alter
    check sqlite-utils "$(count_sqlite "$WORK/u.sqlite" events)"
    measure "sqlite-utils insert --nl --flatten --alter" "$WORK/f.sqlite" 1 \
        "$VENV/bin/sqlite-utils" insert "$WORK/f.sqlite" events "$LINES" --nl --flatten --pk id --alter
    check "sqlite-utils flatten" "$(count_sqlite "$WORK/f.sqlite" events)"
    measure "dlt pipeline, child tables -> DuckDB" "$WORK/dlt" 1 \
        env DLT_DATA_DIR="$WORK/dlt" DLT_PROJECT_DIR="$WORK/dlt" "$PY" Benchmarks/PlainImport/dlt_events.py "$LINES" "$WORK/dlt"
    check dlt "$(count_duckdb "$WORK/dlt/events.duckdb" "SELECT COUNT(*) FROM bench.events")"
fi

if [ -n "${SLUICE_POSTGRES_URL:-}" ]; then
    url=$SLUICE_POSTGRES_URL
    export PGPASSWORD=${SLUICE_POSTGRES_PASSWORD:-${PGPASSWORD:-}}
    psql "$url" -qc "DROP TABLE IF EXISTS events, events_payload_commits, documents, relationships, sluice_tables, sluice_columns CASCADE" >/dev/null
    measure "sluice import -> PostgreSQL (--nested flatten)" "$WORK/none" "$RUNS" \
        bash -c "psql '$url' -qc 'DROP TABLE IF EXISTS events, documents, relationships, sluice_tables, sluice_columns CASCADE' >/dev/null && '$SLUICE' import '$LINES' --postgres '$url' --table events --pk id --quiet"
    check "sluice postgres" "$(psql "$url" -tAc 'SELECT COUNT(*) FROM events')"
    # The server's own path: the lines as jsonb (CSV mode with quote and delimiter bytes that JSON
    # never holds, so each line is one value as written), then typed columns.
    measure "PostgreSQL COPY into jsonb, INSERT ... SELECT" "$WORK/none" "$RUNS" \
        psql "$url" -q -v ON_ERROR_STOP=1 \
        -c "DROP TABLE IF EXISTS raw_events, pg_events" \
        -c "CREATE UNLOGGED TABLE raw_events (doc jsonb)" \
        -c "\\copy raw_events FROM '$LINES' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
        -c "CREATE TABLE pg_events AS SELECT doc->>'id' AS id, doc->>'type' AS type, (doc->'actor'->>'id')::bigint AS actor_id,
              doc->'actor'->>'login' AS actor_login, doc->'actor'->>'display_login' AS actor_display_login,
              doc->'actor'->>'url' AS actor_url, (doc->'repo'->>'id')::bigint AS repo_id, doc->'repo'->>'name' AS repo_name,
              (doc->>'public')::boolean AS public, doc->>'created_at' AS created_at, doc->'payload' AS payload,
              (doc->'org'->>'id')::bigint AS org_id, doc->'org'->>'login' AS org_login, (doc->>'score')::float8 AS score
            FROM raw_events" \
        -c "ALTER TABLE pg_events ADD PRIMARY KEY (id)" \
        -c "DROP TABLE raw_events"
    check "PostgreSQL COPY" "$(psql "$url" -tAc 'SELECT COUNT(*) FROM pg_events')"
fi

printf 'DuckDB %s.\n' "$DUCKDB_DEFAULT"
printf '%s events, %s MB of JSON Lines; medians of %s runs (sqlite-utils and dlt: 1)\n\n' "$EVENTS" \
    "$(awk "BEGIN {printf \"%.1f\", $BYTES / 1000000}")" "$RUNS"
printf '| %-48s | %8s | %7s | %11s |\n' contender "wall s" "MB/s" "peak memory"
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..50})" "----------" "---------" "-------------"
for row in "${ROWS[@]}"; do
    name=${row%%|*}
    read -r seconds kilobytes <<<"${row#*|}"
    printf '| %-48s | %8.2f | %7.1f | %7.1f MiB |\n' "$name" "$seconds" \
        "$(awk "BEGIN {print $BYTES / 1000000 / ($seconds > 0 ? $seconds : 0.01)}")" \
        "$(awk "BEGIN {print $kilobytes / 1024}")"
done
