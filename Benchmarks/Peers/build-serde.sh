#!/bin/sh
# Builds the serde_json peer (Benchmarks/Peers/serde) offline from Debian's vendored crates
# (apt-get install librust-serde-json-dev librust-serde-derive-dev) twice, with serde_json's
# defaults and with its correctly rounded floats (feature float_roundtrip), and prints the
# default binary's path.
# Everything cargo writes goes under Benchmarks/.build-peers/ (its CARGO_HOME and the target
# folder); the source replacement lives in Benchmarks/Peers/serde/.cargo/config.toml.
#
#     Benchmarks/Peers/build-serde.sh
#     "$(Benchmarks/Peers/build-serde.sh | tail -n 1)" twitter shared/corpora/twitter.json 100
set -eu
peers=$(cd "$(dirname "$0")" && pwd)
build="$(dirname "$peers")/.build-peers"
mkdir -p "$build/cargo-home"
export CARGO_HOME="$build/cargo-home"
cd "$peers/serde"
cargo build --release --offline --target-dir "$build/serde-roundtrip-target" --features float_roundtrip >&2
cargo build --release --offline --target-dir "$build/serde-target" >&2
echo "$build/serde-target/release/serde_peer"
