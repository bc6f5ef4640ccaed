// The tokenizer against yajl: the parser reads the common case with its own tokenizer and hands
// everything else (and every fault's message) to yajl. Parsed by yajl alone, the same bytes must
// give the same tokens (kind, text, byte offset, line, column) and the same error, whole and in
// the same random chunk splits, under the same random limits.

import FuzzSupport
import SluiceJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenizer(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var random = InputRandom(bytes)
    let limits = fuzzLimits(&random)

    for splits in [[count], random.splits(of: count)] {
        let tokenizer = parseRecord(bytes, splits: splits, limits: limits, usesTokenizer: true)
        let yajl = parseRecord(bytes, splits: splits, limits: limits, usesTokenizer: false)
        if tokenizer != yajl {
            fuzzFailure(
                "the tokenizer and yajl differ (splits \(splits.prefix(40)), limits \(limits)): "
                    + tokenizer.firstDifference(from: yajl)
            )
        }
    }
    return 0
}
