#!/usr/bin/env bash
# Instructions, retains and allocations per decode for each contender, from callgrind: the
# Profile harness (Benchmarks) run once with N=1 and once with N=2; the difference is one decode,
# without start-up and input generation. Stable across runs where times are not, so it is what
# the performance page quotes. PROFILE_LIMITS=FILE checks the counts against the most allowed
# there (lines of MODE RETAINS MALLOCS per decode) and fails past them.
#
#     scripts/profile.sh [MODE...]      (default: every mode)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# The limits file as given from where the script was started (it runs in Benchmarks/).
if [ -n "${PROFILE_LIMITS:-}" ]; then
    [ -f "$PROFILE_LIMITS" ] || { echo "profile.sh: no limits file $PROFILE_LIMITS" >&2; exit 2; }
    PROFILE_LIMITS="$(cd "$(dirname "$PROFILE_LIMITS")" && pwd)/$(basename "$PROFILE_LIMITS")"
fi
cd "$here/../Benchmarks"
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
# One thread, as the figures and the limits are for: with more, the JSON:API modes take the
# parallel path, whose batches add their own allocations and instructions.
export SLUICE_THREADS="${SLUICE_THREADS:-1}"
modes=("$@")
if [ ${#modes[@]} -eq 0 ]; then
    modes=(jsonapi-foundation jsonapi-general-whole jsonapi-generated-whole jsonapi-general-stream jsonapi-generated-stream
        jsonapi-flatten)
    for corpus in twitter citm_catalog canada; do
        for contender in foundation general generated tape; do modes+=("$corpus-$contender"); done
    done
fi
# "INSTRUCTIONS RETAINS MALLOCS" of one run: the total, and the calls to the runtime's retain
# entry points and to malloc and its kin (scripts/callgrind-calls.py), which the stripped
# copy still names since they live in shared libraries.
counts() {
    if ! valgrind --tool=callgrind --callgrind-out-file="$work/out" "$binary" "$1" "$2" >/dev/null 2>"$work/log"; then
        cat "$work/log" >&2
        exit 1
    fi
    echo "$(awk '/^summary:/ { print $2 }' "$work/out") $("$here/callgrind-calls.py" "$work/out")"
}
printf '%-28s %14s %12s %10s\n' mode instructions retains mallocs
for mode in "${modes[@]}"; do
    read -r i1 r1 m1 <<<"$(counts "$mode" 1)"
    read -r i2 r2 m2 <<<"$(counts "$mode" 2)"
    printf '%-28s %14s %12s %10s\n' "$mode" "$(( (i2 - i1) / 1000 ))K" "$(( r2 - r1 ))" "$(( m2 - m1 ))"
    if [ -n "${PROFILE_LIMITS:-}" ]; then
        read -r _ max_retains max_mallocs <<<"$(grep "^$mode " "$PROFILE_LIMITS" || echo "- - -")"
        if [ "$max_retains" != "-" ] && { [ $(( r2 - r1 )) -gt "$max_retains" ] || [ $(( m2 - m1 )) -gt "$max_mallocs" ]; }; then
            echo "$mode: $(( r2 - r1 )) retains and $(( m2 - m1 )) allocations per decode, past $max_retains and $max_mallocs" >&2
            failed=1
        fi
    fi
done
exit "${failed:-0}"
