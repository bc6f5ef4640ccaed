// The parser fed the same bytes whole and in random chunk splits: the tokens (kind, text, byte
// offset, line, column) and the error that ends the parse (kind, position, message) must be the
// same, whatever the splits and the limits.

import FuzzSupport
import SluiceJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var random = InputRandom(bytes)
    let limits = fuzzLimits(&random)

    let whole = parseRecord(bytes, splits: [count], limits: limits)
    let split = random.splits(of: count)
    let chunked = parseRecord(bytes, splits: split, limits: limits)
    if whole != chunked {
        fuzzFailure(
            "chunked parse differs from the whole parse (splits \(split.prefix(40)), limits \(limits)): "
                + whole.firstDifference(from: chunked)
        )
    }
    return 0
}
