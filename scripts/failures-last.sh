#!/usr/bin/env bash
# Runs a command (the test run) with its output passing through as usual, and when it fails,
# prints again at the very end what says why: failed expectations, fatal errors and the first
# frames of a crashed thread. A crash's backtrace runs to hundreds of lines, and a log that keeps
# only its tail would otherwise show registers and images but not the test or the message.
#
#   scripts/failures-last.sh swift test --parallel
set -uo pipefail

log="$(mktemp /tmp/sluice-test-log.XXXXXX)"
trap 'rm -f "$log"' EXIT

# The crashed thread only, without registers or the image list: the frames that matter come
# first and stay readable.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,threads=crashed,registers=none,images=none,limit=40}"

"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
    echo
    echo "== why the run failed (exit status $status)"
    grep -a -E "Fatal error|Program crashed|✘|error: |XCTAssert|failed \(|Thread [0-9]+ crashed" "$log" \
        | grep -a -v "^◇" | tail -40
    # The first frames after the crash line: the function that trapped and its callers.
    awk '/Program crashed/ { on = 1 } on && /^[0-9]+ / { print; if (++n == 15) exit }' "$log"
fi
exit "$status"
