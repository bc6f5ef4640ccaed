#!/usr/bin/env python3
"""Counts the calls a callgrind profile records to the runtime's retain and allocation entry
points: how many retains (swift_retain, its _n form and bridge-object retains) and allocations
(malloc, calloc, realloc, posix_memalign, aligned_alloc) a run made. Prints "RETAINS MALLOCS".

    scripts/callgrind-calls.py callgrind.out
"""
import re
import sys

RETAINS = {"swift_retain", "swift_retain_n", "swift_bridgeObjectRetain", "swift_bridgeObjectRetain_n",
           "swift_nonatomic_retain", "swift_unknownObjectRetain"}
MALLOCS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"}

names = {}
callee = None
counts = {"retain": 0, "malloc": 0}
# Names are compressed: "cfn=(12) swift_retain" the first time, "cfn=(12)" afterwards; fn= and
# cfn= share the table. A "calls=N ..." line follows the cfn= of the function it calls.
name_line = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
with open(sys.argv[1], encoding="utf-8", errors="replace") as profile:
    for line in profile:
        match = name_line.match(line.rstrip("\n"))
        if match:
            number, name = match.groups()
            if name:
                names[number] = name.split("'")[0]
            if line.startswith("cfn="):
                callee = names.get(number)
            continue
        if line.startswith("calls=") and callee:
            calls = int(line[6:].split()[0])
            if callee in RETAINS:
                counts["retain"] += calls
            elif callee in MALLOCS:
                counts["malloc"] += calls
print(counts["retain"], counts["malloc"])
