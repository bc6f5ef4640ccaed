#!/usr/bin/env python3
"""How many of a document's decimal numbers serde_json's default float reading misrounds.

serde_json (1.0.87, without its `float_roundtrip` feature) reads a decimal with a fraction as its
digits made one integer, converted to f64, then multiplied or divided by an exact power of ten:
two roundings. Python's float() rounds correctly (to the nearest double, ties to even), so replaying
serde's formula here and comparing with float() counts the numbers whose double is not the nearest
one. Python's int-to-float conversion and float division round as Rust's `as f64` and `/` do
(IEEE 754 binary64, round to nearest even), so the replay is exact.

    python3 Benchmarks/Peers/float_rounding.py ../shared/corpora/canada.json

Numbers with an exponent, or with more digits than a u64 holds, take other paths in serde and are
left out (canada.json has none).
"""

import re
import sys

# serde_json's POW10 table: 1e0 through 1e308, each exact or correctly rounded.
POWERS_OF_TEN = [float(10**exponent) for exponent in range(309)]
NUMBER = re.compile(rb"-?(\d+)(?:\.(\d+))?([eE][-+]?\d+)?")


def serde_default(whole: bytes, fraction: bytes) -> float:
    """The double serde_json's default reading gives for `whole`.`fraction` (unsigned)."""
    value = float(int(whole + fraction))
    return value / POWERS_OF_TEN[len(fraction)]


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: float_rounding.py FILE.json")
    with open(sys.argv[1], "rb") as file:
        text = file.read()
    # Only numbers outside strings: canada.json's strings hold none, and a document whose strings
    # hold digits would need a JSON-aware scan.
    checked = misrounded = 0
    for match in NUMBER.finditer(text):
        whole, fraction, exponent = match.groups()
        if fraction is None or exponent is not None or int(whole + fraction) >= 2**64:
            continue
        checked += 1
        if serde_default(whole, fraction) != float(whole + b"." + fraction):
            misrounded += 1
    share = misrounded / checked if checked else 0
    print(f"{checked} decimals with a fraction, {misrounded} misrounded by serde_json's default ({share:.1%})")


if __name__ == "__main__":
    main()
