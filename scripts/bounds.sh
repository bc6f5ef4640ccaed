#!/usr/bin/env bash
# Memory bounds on adversarial and huge inputs: each case is generated on the fly (nothing large
# is checked in), then `sluice validate` and `sluice import` read it under /usr/bin/time, and the
# script prints the exit code, the first line of the message and the peak memory. Every case must
# end in a clear message or a correct result, in flat memory.
#
#     scripts/bounds.sh [SCALE]     (SCALE 1 = the full sizes: ten million resources, 1 GB string)
#
# Cases: the generated document at ten million resources (about 3.7 GB), `included` of ten
# million tiny resources, one string of 1 GB, ten million keys in one object. SCALE 0.01 runs
# them at a hundredth for a quick look; BOUNDS_CASES="string keys" runs only those. Needs a release
# build (`swift build -c release`).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
sluice="$here/../.build/release/sluice"
scale="${1:-1}"
work="${BOUNDS_DIR:-$(mktemp -d)}"
trap 'rm -rf "$work"' EXIT
count() { python3 -c "print(max(1, int($1 * $scale)))"; }

python3 - "$work" "$(count 10000000)" "$(count 1000000000)" <<'PY'
import sys
work, n, string_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f"{work}/included.json", "w") as f:
    f.write('{"data":[],"included":[')
    for start in range(0, n, 100000):
        f.write(",".join('{"type":"t","id":"%d"}' % i for i in range(start, min(n, start + 100000))))
        if start + 100000 < n:
            f.write(",")
    f.write("]}")
with open(f"{work}/keys.json", "w") as f:
    f.write('{"data":null,"meta":{')
    for start in range(0, n, 100000):
        f.write(",".join('"k%d":%d' % (i, i) for i in range(start, min(n, start + 100000))))
        if start + 100000 < n:
            f.write(",")
    f.write("}}")
with open(f"{work}/string.json", "wb") as f:
    f.write(b'{"data":null,"meta":{"s":"')
    block = b"a" * (1 << 20)
    for _ in range(string_bytes // len(block)):
        f.write(block)
    f.write(b"a" * (string_bytes % len(block)))
    f.write(b'"}}')
PY
# The generated document: about 4.1 resources an article.
cases=${BOUNDS_CASES:-generated included string keys}
if [[ " $cases " == *" generated "* ]]; then
    "$sluice" generate --articles "$(count 2430000)" --output "$work/generated.json" >/dev/null
fi

printf '%-14s %-9s %6s %10s %9s  %s\n' case command exit "peak MB" seconds message
for case in $cases; do
    file="$work/$case.json"
    for command in validate import; do
        if [ "$command" = validate ]; then
            args=(validate "$file")
        else
            rm -f "$work/db.sqlite"*
            args=(import "$file" --sqlite "$work/db.sqlite")
        fi
        set +e
        /usr/bin/time -f "%M %e" -o "$work/time" "$sluice" "${args[@]}" >"$work/out" 2>"$work/err"
        code=$?
        set -e
        # time writes "Command exited with non-zero status N" first when it did.
        read -r kilobytes seconds < <(tail -1 "$work/time")
        # The fault when there is one, else the last line (the summary, or the last warning).
        if [ "$code" -eq 0 ]; then pick=(tail -1); else pick=(head -1); fi
        message=$( (grep -hv '^\s*$' "$work/err" "$work/out" || true) | grep -v '% ' | "${pick[@]}" | cut -c1-150)
        printf '%-14s %-9s %6s %10s %9s  %s\n' "$case" "$command" "$code" "$((kilobytes / 1024))" "$seconds" "$message"
    done
done
ls -l "$work"/*.json | awk '{ printf "%s %d MB\n", $NF, $5 / 1e6 }'
