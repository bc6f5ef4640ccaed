#!/usr/bin/env python3
"""Typed decoding on one core against the best peers: Sluice, serde_json, msgspec, Foundation.

Every contender decodes the same bytes into types that name every field: Sluice's `@JSONModel`
with the models `sluice models` writes (Benchmarks/Sources/FullModels), Rust's serde_json with
`#[derive(Deserialize)]` structs (Benchmarks/Peers/serde), Python's msgspec with typed Structs
(Benchmarks/Peers/msgspec_peer.py), Foundation's JSONDecoder with Sluice's models. The JSON:API
row decodes and links the generated 20 000-article document (serde plainly, and reading `type`
first). simdjson's DOM parse is the parsing floor. Each contender's checksum line is compared
first: a run whose contenders disagree stops there.

Times are CPU per decode: the median over `--rounds` of (CPU of N+1 decodes - CPU of 1) / N,
the contenders interleaved so that the machine's noise falls on all alike.

    Benchmarks/Peers/build-serde.sh && Benchmarks/Peers/build-simdjson.sh
    swift build -c release --package-path Benchmarks --product Profile
    python3 Benchmarks/typed-peers.py [--rounds 9] [--repeats 20]

Sets up what is missing itself when given --setup (the venv with msgspec, the peer builds).
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, ".build-peers")
PROFILE = os.path.join(HERE, ".build", "release", "Profile")
SERDE = os.path.join(PEERS, "serde-target", "release", "serde_peer")
# The same peer with serde_json's float_roundtrip: floats rounded correctly, as Sluice's are.
SERDE_ROUNDTRIP = os.path.join(PEERS, "serde-roundtrip-target", "release", "serde_peer")
SIMDJSON = os.path.join(PEERS, "simdjson_floor")
PYTHON = os.path.join(PEERS, "venv", "bin", "python")
MSGSPEC = os.path.join(HERE, "Peers", "msgspec_peer.py")
CORPORA = os.environ.get("SLUICE_CORPORA", os.path.join(HERE, "..", "..", "shared", "corpora"))
DOCUMENT = os.path.join(PEERS, "jsonapi-20000.json")


def setup():
    """Builds or installs whatever contender is missing."""
    if not os.path.exists(PYTHON):
        subprocess.run([sys.executable, "-m", "venv", os.path.join(PEERS, "venv")], check=True)
    if subprocess.run([PYTHON, "-c", "import msgspec"], capture_output=True).returncode != 0:
        subprocess.run([PYTHON, "-m", "pip", "install", "-q", "msgspec"], check=True)
    if not os.path.exists(SERDE) or not os.path.exists(SERDE_ROUNDTRIP):
        subprocess.run([os.path.join(HERE, "Peers", "build-serde.sh")], check=True)
    if not os.path.exists(SIMDJSON):
        subprocess.run([os.path.join(HERE, "Peers", "build-simdjson.sh")], check=True)
    if not os.path.exists(PROFILE):
        subprocess.run(["swift", "build", "-c", "release", "--package-path", HERE, "--product", "Profile"], check=True)


def contenders(document, path):
    """(label, command taking N, prints-checksum) for one document."""
    env_threads = {"SLUICE_THREADS": "1"}
    if document == "jsonapi":
        articles = "20000"
        return [
            ("Sluice @JSONModel, whole document, linked", lambda n: [PROFILE, "jsonapi-generated-whole", str(n), articles], env_threads, True),
            ("Sluice @JSONModel, streamed, linked", lambda n: [PROFILE, "jsonapi-generated-stream", str(n), articles], env_threads, True),
            ("serde_json, typed, tag-first", lambda n: [SERDE, "jsonapi-tagfirst", path, str(n)], {}, True),
            ("serde_json, typed (internally tagged)", lambda n: [SERDE, "jsonapi", path, str(n)], {}, True),
            ("msgspec, typed Structs", lambda n: [PYTHON, MSGSPEC, "jsonapi", path, str(n)], {}, True),
            ("Foundation JSONDecoder + Codable", lambda n: [PROFILE, "jsonapi-foundation", str(n), articles], env_threads, True),
            ("simdjson DOM parse (floor)", lambda n: [SIMDJSON, path, str(n)], {}, False),
        ]
    return [
        ("Sluice @JSONModel, `sluice models` models", lambda n: [PROFILE, f"{document}-full", str(n)], {}, True),
        ("serde_json, typed structs", lambda n: [SERDE, document, path, str(n)], {}, True),
        ("serde_json, typed, float_roundtrip", lambda n: [SERDE_ROUNDTRIP, document, path, str(n)], {}, True),
        ("msgspec, typed Structs", lambda n: [PYTHON, MSGSPEC, document, path, str(n)], {}, True),
        ("Foundation JSONDecoder, the same models", lambda n: [PROFILE, f"{document}-full-foundation", str(n)], {}, True),
        ("Sluice @JSONModel, hand-written subset models", lambda n: [PROFILE, f"{document}-generated", str(n)], {}, False),
        ("simdjson DOM parse (floor)", lambda n: [SIMDJSON, path, str(n)], {}, False),
    ]


def run(command, extra_env, capture=False):
    env = dict(os.environ, SLUICE_CORPORA=CORPORA, **extra_env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, check=True, env=env, stdout=subprocess.PIPE if capture else subprocess.DEVNULL, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, (result.stdout if capture else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=20, help="decodes per corpus sample")
    parser.add_argument("--jsonapi-repeats", type=int, default=3, help="decodes per JSON:API sample")
    parser.add_argument("--only", help="one document: twitter, citm_catalog, canada or jsonapi")
    parser.add_argument("--setup", action="store_true", help="build and install missing contenders first")
    arguments = parser.parse_args()
    if arguments.setup:
        setup()
    for needed in (PROFILE, SERDE, SERDE_ROUNDTRIP, PYTHON, SIMDJSON):
        if not os.path.exists(needed):
            sys.exit(f"{needed} is missing: run with --setup (see the header of this script)")
    if not os.path.exists(DOCUMENT):
        with open(DOCUMENT, "wb") as output:
            subprocess.run([PROFILE, "jsonapi-document", "0", "20000"], check=True, stdout=output)
    documents = ["twitter", "citm_catalog", "canada", "jsonapi"]
    if arguments.only:
        documents = [arguments.only]
    table = []
    for document in documents:
        path = DOCUMENT if document == "jsonapi" else os.path.join(CORPORA, document + ".json")
        size = os.path.getsize(path)
        entries = contenders(document, path)
        # The same answer from every contender that computes one, before any is timed.
        lines = {}
        for label, command, env, checks in entries:
            if not checks:
                continue
            _, output = run(command(1), dict(env, SLUICE_PRINT="1"), capture=True)
            lines[label] = output.strip().splitlines()[-1] if output.strip() else ""
        if len(set(lines.values())) != 1:
            for label, line in lines.items():
                print(f"  {label}: {line}", file=sys.stderr)
            sys.exit(f"{document}: the contenders' checksums differ")
        repeats = arguments.jsonapi_repeats if document == "jsonapi" else arguments.repeats
        samples = {label: [] for label, _, _, _ in entries}
        for _ in range(arguments.rounds):
            for label, command, env, _ in entries:
                one, _ = run(command(1), env)
                many, _ = run(command(repeats + 1), env)
                samples[label].append((many - one) / repeats)
        medians = {label: statistics.median(values) for label, values in samples.items()}
        table.append((document, size, next(iter(lines.values())), medians))
    for document, size, checksum, medians in table:
        print(f"\n{document} ({size} bytes), one thread, median CPU per decode of {arguments.rounds} rounds")
        print(f"  checksum, equal for every contender: {checksum}")
        sluice = next(iter(medians.values()))
        for label, median in medians.items():
            print(f"  {label:48} {median * 1000:8.2f} ms {size / median / 1e6:8.1f} MB/s  Sluice is {median / sluice:5.2f}x")


if __name__ == "__main__":
    main()
