#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets in Fuzz/ with -sanitize=fuzzer,address and runs each
# for FUZZ_SECONDS (default 60), one after the other. Fails on any crash, leak, timeout (a hang),
# out-of-memory or broken invariant (the differential checks call fatalError), and prints each
# target's executions and coverage.
#
#   FUZZ_SECONDS=600 make fuzz               every target for ten minutes
#   FUZZ_TARGETS="FuzzParser" make fuzz      one target
#   FUZZ_CONCURRENT=1 FUZZ_SECONDS=3600 make fuzz
#                                            every target at once, each for an hour, at the
#                                            lowest CPU priority (builds and work go first)
#
# Each run starts from the checked-in seeds (Fuzz/Corpus), the inputs that once failed
# (Fuzz/Regressions, which must all pass first), JSONTestSuite from ../shared when it is there,
# and the corpus earlier runs grew in Fuzz/.build/corpus (kept between runs, never committed).
# What fails is written to Fuzz/.build/artifacts; turn it into a regression test and a file in
# Fuzz/Regressions/TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-"FuzzParser FuzzTokenizer FuzzDocument FuzzDecoder FuzzValidator FuzzElements FuzzRoundTrip"}
SHARED=${SHARED:-../shared}
# Swift's own backtracer fights ASan's over the crash signal; let ASan report.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}

# SwiftPM keeps a path dependency's file list from the last build: a source file Sluice gained
# since would be missing. Dropping the cached build description makes it list them again.
rm -f Fuzz/.build/*/release/description.json
# Swift 6.3 at -O leaves out the coverage instrumentation that -sanitize=fuzzer asks for (at
# -Onone it is there): without it libFuzzer sees only the C code's few hundred counters and
# fuzzes blind. Naming the coverage explicitly (what clang's -fsanitize=fuzzer implies) puts it
# back in every Swift module: some 40 000 counters.
coverage=edge,inline-8bit-counters,pc-table,trace-cmp
build() {
    swift build -c release --package-path Fuzz --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize-coverage=$coverage "$@"
}
build
BIN=$(build --show-bin-path)

# The coverage counters libFuzzer reports as it starts, read from its output on standard input.
counters_in() { grep -oE "Loaded 1 modules +\([0-9]+ inline" | grep -oE "[0-9]+" | tail -1; }
# The coverage counters a target's binary has.
counters_of() { "$BIN/$1" -runs=0 2>&1 | counters_in; }
# Should a build still have linked uninstrumented modules (a few hundred counters instead of some
# 40 000), coverage would guide nothing: rebuild from scratch once when the first target shows it.
first_target=${TARGETS%% *}
if [ "$(counters_of "$first_target" || echo 0)" -lt 10000 ]; then
    echo "fuzz: $first_target has too few coverage counters (uninstrumented modules); rebuilding from scratch" >&2
    rm -rf Fuzz/.build/*/release Fuzz/.build/release
    build
fi

seeds_for() {
    case "$1" in
    FuzzDocument | FuzzValidator) echo "Fuzz/Corpus/jsonapi Fuzz/Corpus/json" ;;
    *) echo "Fuzz/Corpus/json Fuzz/Corpus/jsonapi" ;;
    esac
}

mkdir -p Fuzz/.build/artifacts
# Runs one target and writes its summary line to Fuzz/.build/artifacts/TARGET.summary; fails
# when the target does.
run_target() {
    local target=$1 failed=0
    corpus=Fuzz/.build/corpus/$target
    mkdir -p "$corpus"
    regressions=Fuzz/Regressions/$target
    # Every input that ever failed must pass now.
    if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
        "$BIN/$target" -runs=1 "$regressions"/* >/dev/null 2>&1 || {
            echo "$target fails on a regression input in $regressions" >&2
            printf '%-14s FAILED on a regression input\n' "$target" >"Fuzz/.build/artifacts/$target.summary"
            return 1
        }
    fi
    extra=()
    [ -d "$SHARED/corpora/JSONTestSuite" ] && extra+=("$SHARED/corpora/JSONTestSuite")
    [ -d "$regressions" ] && extra+=("$regressions")
    log=Fuzz/.build/artifacts/$target.log
    echo "== $target for $SECONDS_EACH s"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: bounded memory is a promise.
    if $NICE "$BIN/$target" "$corpus" $(seeds_for "$target") "${extra[@]}" \
        -dict=Fuzz/fuzz.dict -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="Fuzz/.build/artifacts/$target-" \
        >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed=1
        grep -E "ERROR|invariant|SUMMARY|Test unit written" "$log" | head -8 >&2 || true
    fi
    # Still too few counters after the rebuild above: coverage says nothing, so that is a failure.
    counters=$(counters_in <"$log" || true)
    if [ "${counters:-0}" -lt 10000 ]; then
        echo "$target: only ${counters:-0} coverage counters, even after a rebuild from scratch:" \
            "the libraries are not instrumented" >&2
        status=FAILED
        failed=1
    fi
    runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
    cov=$(grep -E "^#[0-9]+" "$log" | grep -oE "cov: [0-9]+ ft: [0-9]+" | tail -1)
    corp=$(ls "$corpus" | wc -l)
    line=$(printf '%-14s %-6s %10s executions  %s  corpus %s' "$target" "$status" "${runs:-?}" "${cov:-cov: ?}" "$corp")
    echo "$line"
    echo "$line" >"Fuzz/.build/artifacts/$target.summary"
    return $failed
}

failed=0
if [ -n "${FUZZ_CONCURRENT:-}" ]; then
    # Every target at once, niced, so that a long run shares the machine with other work.
    NICE="nice -n 19"
    pids=()
    for target in $TARGETS; do
        run_target "$target" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
else
    NICE=""
    for target in $TARGETS; do run_target "$target" || failed=1; done
fi
echo
for target in $TARGETS; do cat "Fuzz/.build/artifacts/$target.summary"; done
exit $failed
