#!/usr/bin/env bash
# Instructions per decode for each contender, from callgrind: the Profile harness (Benchmarks)
# run once with N=1 and once with N=2; the difference is one decode, without start-up and input
# generation. Stable across runs where times are not, so it is what the README quotes.
#
#     scripts/profile.sh [MODE...]      (default: every mode)
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
swift build -c release --product Profile >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A stripped copy: valgrind 3.19 cannot read the DWARF 5 debug information Swift 6.3 writes, and
# gives up; totals need no symbols.
strip -o "$work/Profile" .build/release/Profile
binary="$work/Profile"
export SLUICE_CORPORA="${SLUICE_CORPORA:-$(cd ../../shared/corpora && pwd)}"
# Swift seeds its hashing per process, which moves the counts of anything that hashes (dictionary
# lookups, sets) by a few percent between runs; a fixed seed makes them repeat exactly.
export SWIFT_DETERMINISTIC_HASHING=1
modes=("$@")
if [ ${#modes[@]} -eq 0 ]; then
    modes=(jsonapi-foundation jsonapi-general-whole jsonapi-generated-whole jsonapi-general-stream jsonapi-generated-stream)
    for corpus in twitter citm_catalog canada; do
        for contender in foundation general generated tape; do modes+=("$corpus-$contender"); done
    done
fi
instructions() {
    if ! valgrind --tool=callgrind --callgrind-out-file="$work/out" "$binary" "$1" "$2" >/dev/null 2>"$work/log"; then
        cat "$work/log" >&2
        exit 1
    fi
    awk '/^summary:/ { print $2 }' "$work/out"
}
printf '%-28s %14s\n' mode instructions
for mode in "${modes[@]}"; do
    one=$(instructions "$mode" 1)
    two=$(instructions "$mode" 2)
    printf '%-28s %14s\n' "$mode" "$(( (two - one) / 1000 ))K"
done
