// The element reader behind StreamingJSONDecoder.forEachElement: the elements of the array at a
// path, one at a time. Where the path is the root and the document is an array, the elements
// streamed must equal the array decoded whole; at any path, no crash, leak or hang.

import Foundation
import FuzzSupport
import SluiceJSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzElements(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var random = InputRandom(bytes)
    let paths: [JSONPath] = ["", "data", "data.0", "a.b", "statuses", "/", "/~1"]
    let path = paths[Int(random.next() % UInt64(paths.count))]
    let decoder = StreamingJSONDecoder()
    decoder.limits = fuzzLimits(&random)
    decoder.parallelism = .workers(1)
    let data = Data(bytes)
    var streamed: [JSONValue] = []
    let outcome: Result<Void, any Error> = Result {
        try decoder.forEachElement(of: JSONValue.self, at: path, in: data) { streamed.append($0) }
    }
    guard path.steps.isEmpty, case .success = outcome else { return 0 }
    guard case .array(let whole)? = try? decoder.decode(JSONValue.self, from: data) else {
        fuzzFailure("elements streamed from a root that does not decode as an array")
    }
    if whole != streamed {
        fuzzFailure("\(streamed.count) elements streamed, \(whole.count) decoded whole, and they differ")
    }
    return 0
}
