#!/usr/bin/env bash
# Builds the DocC documentation of every library from its catalog and public symbols, and fails on
# any warning (a broken symbol link, an undocumented parameter, a stale Topics entry).
# Uses the toolchain's own `swift package dump-symbol-graph` and `docc`, so no documentation
# plugin joins the package's dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

# The same build options as the test build (SWIFT_BUILD_FLAGS), so that its modules are reused.
# shellcheck disable=SC2086
graphs=$(swift package ${SWIFT_BUILD_FLAGS:-} dump-symbol-graph --minimum-access-level public 2>&1 | sed -n 's/^Files written to //p')
[ -d "$graphs" ] || { echo "check-docs: no symbol graphs were written" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for module in SluiceJSON SluiceJSONAPI SluiceImport SluiceJSONAPIImport SluiceSQLite SluicePostgres SluiceHTTP SluiceURLSession SluiceMacros SluiceTools; do
    mkdir -p "$work/$module/graphs"
    cp "$graphs/$module.symbols.json" "$work/$module/graphs/"
    cp "$graphs/$module"@*.symbols.json "$work/$module/graphs/" 2>/dev/null || true
    if ! docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$work/$module/graphs" \
        --output-dir "$work/$module/out" \
        --warnings-as-errors >"$work/$module/log" 2>&1; then
        echo "== $module: the documentation has warnings or errors" >&2
        cat "$work/$module/log" >&2
        status=1
    elif grep -q 'warning:' "$work/$module/log"; then
        echo "== $module: the documentation has warnings" >&2
        grep 'warning:' "$work/$module/log" >&2
        status=1
    else
        echo "== $module: documentation built without warnings"
    fi
done
exit $status
