// The JSON:API validator, as a response and as the two kinds of request. Beyond never crashing:
// every violation must point at a value that exists (its JSON Pointer resolves in the document)
// and at a position inside the input.

import Foundation
import FuzzSupport
import SluiceJSON
import SluiceJSONAPI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValidator(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    var random = InputRandom(bytes)
    var validator = JSONAPIValidator()
    switch random.next() % 3 {
    case 0: validator.request = .resource
    case 1: validator.request = .relationship
    default: break
    }
    validator.strictMembers = random.next() % 2 == 0
    validator.limits = fuzzLimits(&random)
    let violations: [JSONAPIViolation]
    do {
        violations = try validator.validate(bytes)
    } catch {
        return 0
    }
    // Well-formed JSON within the limits: every pointer must name a value in it.
    guard let document = try? StreamingJSONDecoder().decode(JSONValue.self, from: bytes) else {
        fuzzFailure("the validator accepted bytes the decoder rejects")
    }
    for violation in violations {
        if !resolves(violation.pointer, in: document) {
            fuzzFailure("the pointer of \(violation) names no value in the document")
        }
        if violation.position.byteOffset < 0 || violation.position.byteOffset >= max(count, 1) {
            fuzzFailure("the position of \(violation) is outside the input (\(count) bytes)")
        }
    }
    return 0
}
