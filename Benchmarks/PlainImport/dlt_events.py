#!/usr/bin/env python3
"""The dlt contender of plain-import.sh: the JSON Lines file through a dlt pipeline into DuckDB,
arrays normalized into child tables as dlt does by default. Arguments: the file, a directory."""
import json
import sys

import dlt


def events():
    with open(sys.argv[1]) as lines:
        for line in lines:
            yield json.loads(line)


pipeline = dlt.pipeline(
    pipeline_name="events",
    destination=dlt.destinations.duckdb(sys.argv[2] + "/events.duckdb"),
    dataset_name="bench",
    pipelines_dir=sys.argv[2],
)
pipeline.run(events(), table_name="events", primary_key="id")
