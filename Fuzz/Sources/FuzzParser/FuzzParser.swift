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

    let whole = parse(bytes, splits: [count], limits: limits)
    let split = random.splits(of: count)
    let chunked = parse(bytes, splits: split, limits: limits)
    if whole != chunked {
        fuzzFailure(
            "chunked parse differs from the whole parse (splits \(split.prefix(40)), limits \(limits)): "
                + whole.firstDifference(from: chunked)
        )
    }
    return 0
}

private func parse(_ bytes: UnsafeRawBufferPointer, splits: [Int], limits: JSONLimits) -> ParseRecord {
    let parser = JSONParser(limits: limits)
    var record = ParseRecord()
    var offset = 0
    do {
        for length in splits where length > 0 {
            try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]))
            offset += length
            record.take(from: parser)
        }
        try parser.finish()
        record.take(from: parser)
    } catch {
        record.take(from: parser)
        record.fail(error)
    }
    return record
}
