#!/usr/bin/env python3
"""Writes GitHub-like events as JSON Lines (and, with --array, as one JSON array) for the plain
import benchmark: nested objects, arrays of objects, optional members, and a member that first
appears half-way through. Deterministic for a given --seed and size."""
import argparse
import json
import random


def event(index, rng, total):
    kind = rng.choice(["PushEvent", "IssuesEvent", "WatchEvent", "ForkEvent", "PullRequestEvent"])
    record = {
        "id": str(20_000_000_000 + index),
        "type": kind,
        "actor": {
            "id": rng.randrange(1, 5_000_000),
            "login": "user%d" % rng.randrange(1, 200_000),
            "display_login": "User %d" % rng.randrange(1, 200_000),
            "url": "https://api.example.com/users/%d" % rng.randrange(1, 200_000),
        },
        "repo": {"id": rng.randrange(1, 90_000_000), "name": "org%d/repo%d" % (rng.randrange(999), rng.randrange(9999))},
        "public": rng.random() < 0.97,
        "created_at": "2026-11-%02dT%02d:%02d:%02dZ" % (1 + index % 28, index % 24, index % 60, (index * 7) % 60),
    }
    if kind == "PushEvent":
        record["payload"] = {
            "push_id": 9_000_000_000 + index,
            "size": rng.randrange(1, 4),
            "ref": "refs/heads/main",
            "commits": [
                {
                    "sha": "%040x" % rng.getrandbits(160),
                    "author": {"name": "Dev %d" % rng.randrange(5000), "email": "dev%d@example.com" % rng.randrange(5000)},
                    "message": "Fix the %s in the %s path" % (rng.choice(["race", "leak", "typo", "crash"]), rng.choice(["read", "write", "sync"])),
                    "distinct": rng.random() < 0.9,
                }
                for _ in range(rng.randrange(1, 4))
            ],
        }
    elif kind == "IssuesEvent":
        record["payload"] = {
            "action": rng.choice(["opened", "closed"]),
            "issue": {"number": rng.randrange(1, 50_000), "title": "Crash when reading %d bytes" % rng.randrange(1, 1 << 20),
                      "labels": [{"name": name} for name in rng.sample(["bug", "docs", "perf", "ux"], rng.randrange(0, 3))]},
        }
    else:
        record["payload"] = {"action": "started"}
    if rng.random() < 0.3:
        record["org"] = {"id": rng.randrange(1, 100_000), "login": "org%d" % rng.randrange(999)}
    if index > total // 2:
        record["score"] = round(rng.random() * 100, 3)
    return record


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--lines", required=True)
    parser.add_argument("--array")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    # About 400 bytes an event.
    total = args.megabytes * 1_000_000 // 400
    with open(args.lines, "w") as lines:
        for index in range(total):
            lines.write(json.dumps(event(index, rng, total), separators=(",", ":")))
            lines.write("\n")
    if args.array:
        with open(args.lines) as source, open(args.array, "w") as array:
            array.write("[")
            for number, line in enumerate(source):
                if number:
                    array.write(",\n")
                array.write(line.rstrip("\n"))
            array.write("]\n")
    print(total)


if __name__ == "__main__":
    main()
