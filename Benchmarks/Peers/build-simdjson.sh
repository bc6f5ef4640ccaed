#!/bin/sh
# Builds the simdjson parsing floor (Benchmarks/Peers/simdjson_floor.cpp) against Debian's
# libsimdjson-dev (apt-get install libsimdjson-dev) into Benchmarks/.build-peers/ and prints
# the binary's path.
set -eu
peers=$(cd "$(dirname "$0")" && pwd)
build="$(dirname "$peers")/.build-peers"
mkdir -p "$build"
${CXX:-g++} -std=c++17 -O3 -DNDEBUG -o "$build/simdjson_floor" "$peers/simdjson_floor.cpp" $(pkg-config --cflags --libs simdjson 2>/dev/null || echo -lsimdjson)
echo "$build/simdjson_floor"
