// The JSON:API document engine: a document decoded as `[AnyResource]` and as `AnyResource?`, with
// a registered model, in two chunk sizes (one of them a few bytes, so every member and resource
// boundary lands at a chunk edge somewhere). Both must end the same way: the same resources or the
// same error, and never a crash.

import Foundation
import FuzzSupport
import SluiceJSON
import SluiceJSONAPI

struct Person: Resource {
    static let resourceType = "people"
    var id: String
    var name: String?
    var age: Int?
    var boss: ToOne<Person>?
    var friends: ToMany<Person>?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocument(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var random = InputRandom(bytes)
    let limits = fuzzLimits(&random)
    let small = random.int(in: 1...32)
    let data = Data(bytes)

    let many = [64 * 1024, small].map { outcome(of: [AnyResource].self, data, chunkSize: $0, limits: limits) }
    if many[0] != many[1] {
        fuzzFailure("[AnyResource] with chunks of \(small) bytes: \(many[1]) against whole: \(many[0])")
    }
    let one = [64 * 1024, small].map { outcome(of: AnyResource?.self, data, chunkSize: $0, limits: limits) }
    if one[0] != one[1] {
        fuzzFailure("AnyResource? with chunks of \(small) bytes: \(one[1]) against whole: \(one[0])")
    }
    return 0
}

/// The resources decoded (primary, then included, as their raw members) or the error's text.
private func outcome<Primary: PrimaryData>(
    of type: Primary.Type,
    _ data: Data,
    chunkSize: Int,
    limits: JSONLimits
) -> String {
    let decoder = JSONAPIDecoder(registry: [Person.self])
    decoder.chunkSize = chunkSize
    decoder.limits = limits
    decoder.parallelism = .workers(1)
    do {
        let document = try decoder.decode(type, from: data)
        let primary = document.primaryItems.map { "\($0)" }
        let included = document.included.map { "\($0.identity.map { "\($0)" } ?? "-") \(String(describing: $0.raw))" }
        return "ok: \(primary) | \(included) | \(String(describing: document.meta))"
    } catch let error as JSONAPIDecodingError {
        // The excerpt is rendered from the tokens still held, which depends on where chunks end.
        return "error: \(error.pointer) \(String(describing: error.position)) \(error.property ?? "") \(error.message)"
    } catch let error as JSONError {
        return "error: \(error.kind) \(error.position) \(error.pointer ?? "-") \(error.message)"
    } catch {
        return "error: \(error)"
    }
}
