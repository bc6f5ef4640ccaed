#!/usr/bin/env python3
"""One core, every contender, one run: CPU per decode of the JSON:API document and the corpora.

Runs the Profile harness (Benchmarks/Sources/Profile) on one thread for each mode, once with one
decode and once with `--repeats` decodes, so that start-up and input generation cancel out; takes
the median of `--rounds` such pairs, interleaving the contenders so that the machine's noise
falls on all of them alike. Adds yajl's own `json_verify` on the same document (the C floor) and
msgspec (Benchmarks/msgspec_anchor.py), then prints each contender's CPU per decode, its MB/s
and its ratio to Foundation's JSONDecoder.

    swift build -c release --package-path Benchmarks --product Profile
    python3 Benchmarks/one_core.py [--articles 20000] [--rounds 5] [--repeats 5] [--corpus-repeats 40]
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, ".build", "release", "Profile")
CORPORA = os.environ.get("SLUICE_CORPORA", os.path.join(HERE, "..", "..", "shared", "corpora"))


def cpu_of(command, env=None):
    """CPU seconds (user + system) a child command took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5, help="decodes per JSON:API sample")
    parser.add_argument("--corpus-repeats", type=int, default=40, help="decodes per corpus sample (they are short)")
    arguments = parser.parse_args()
    if not os.path.exists(PROFILE):
        sys.exit(f"{PROFILE} is missing: swift build -c release --package-path Benchmarks --product Profile")
    env = dict(os.environ, SLUICE_THREADS="1", SLUICE_CORPORA=CORPORA)
    work = tempfile.mkdtemp()
    try:
        document = os.path.join(work, "articles.json")
        with open(document, "wb") as output:
            subprocess.run([PROFILE, "jsonapi-document", "0", str(arguments.articles)], check=True, stdout=output, env=env)
        groups = {
            "jsonapi": (os.path.getsize(document), [
                "jsonapi-foundation", "jsonapi-generated-whole", "jsonapi-generated-stream",
                "jsonapi-general-whole", "jsonapi-general-stream",
            ]),
        }
        for corpus in ("twitter", "citm_catalog", "canada"):
            path = os.path.join(CORPORA, corpus + ".json")
            groups[corpus] = (os.path.getsize(path), [f"{corpus}-foundation", f"{corpus}-generated", f"{corpus}-general"])
        samples = {mode: [] for _, modes in groups.values() for mode in modes}
        verify = []
        for _ in range(arguments.rounds):
            for mode in samples:
                size = str(arguments.articles)
                repeats = arguments.repeats if mode.startswith("jsonapi") else arguments.corpus_repeats
                one = cpu_of([PROFILE, mode, "1", size], env)
                many = cpu_of([PROFILE, mode, str(repeats + 1), size], env)
                samples[mode].append((many - one) / repeats)
            if shutil.which("json_verify"):
                with open(document, "rb") as source:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    subprocess.run(["json_verify", "-q"], stdin=source, check=True, stdout=subprocess.DEVNULL)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                verify.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        for group, (size, modes) in groups.items():
            foundation = statistics.median(samples[modes[0]])
            print(f"{group} ({size} bytes), one thread, median CPU per decode of {arguments.rounds}:")
            for mode in modes:
                median = statistics.median(samples[mode])
                print(f"  {mode:28} {median * 1000:8.1f} ms {size / median / 1e6:7.1f} MB/s {foundation / median:6.2f}x")
            if group == "jsonapi" and verify:
                median = statistics.median(verify)
                print(f"  {'json_verify (yajl, C)':28} {median * 1000:8.1f} ms {size / median / 1e6:7.1f} MB/s")
        anchor = subprocess.run(
            [sys.executable, os.path.join(HERE, "msgspec_anchor.py"), document, "--runs", str(arguments.rounds)],
            capture_output=True, text=True,
        )
        print(anchor.stdout.strip() or anchor.stderr.strip())
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
