import Foundation
import Synchronization
import Testing

@testable import SluiceJSON

/// `onUndecodableValue`: a streaming reader passes over what fails to decode, tells the caller
/// where and why, and goes on; what is not JSON still ends the stream.
@Suite("Passing over values that fail to decode")
struct SkippedValueTests {
    struct Event: Decodable, Equatable {
        let id: Int
        let name: String
    }

    @Test("JSON Lines: a line of the wrong shape is passed over with its line; the rest are read")
    func lines() async throws {
        let text = """
            {"id": 1, "name": "a"}
            {"id": "two", "name": "b"}
            {"id": 3, "name": "c"}
            {"id": 4}
            {"id": 5, "name": "e"}

            """
        let skipped = Mutex<[JSONSkippedValue]>([])
        let decoder = StreamingJSONDecoder()
        decoder.onUndecodableValue = { value in skipped.withLock { $0.append(value) } }
        var events: [Event] = []
        for try await event in decoder.values(of: Event.self, from: [Array(text.utf8)].chunkStream) {
            events.append(event)
        }
        #expect(events.map(\.id) == [1, 3, 5])
        let faults = skipped.withLock { $0 }
        #expect(faults.map(\.index) == [1, 3])
        #expect(faults.map(\.position.line) == [2, 4])
        #expect(faults[0].value?["id"]?.stringValue == "two")
        guard case .typeMismatch = faults[0].error, case .keyNotFound = faults[1].error else {
            Issue.record("\(faults)")
            return
        }
        // Without a handler the first failure ends the stream, as before.
        await #expect(throws: DecodingError.self) {
            for try await _ in StreamingJSONDecoder().values(of: Event.self, from: [Array(text.utf8)].chunkStream) {}
        }
    }

    @Test("array elements, on one thread and on several: the same elements read, the same passed over")
    func elements() throws {
        let elements = (0..<3000).map { index in
            index % 7 == 3 ? #"{"id": \#(index), "name": null}"# : #"{"id": \#(index), "name": "n\#(index)"}"#
        }
        let data = Data(#"{"events": [\#(elements.joined(separator: ",\n"))]}"#.utf8)
        for threads in [Parallelism.workers(1), .workers(4)] {
            let skipped = Mutex<[JSONSkippedValue]>([])
            let decoder = StreamingJSONDecoder()
            decoder.parallelism = threads
            decoder.batchBytes = 4096
            decoder.onUndecodableValue = { value in skipped.withLock { $0.append(value) } }
            var read: [Int] = []
            try decoder.forEachElement(of: Event.self, at: "events", in: data) { read.append($0.id) }
            #expect(read == (0..<3000).filter { $0 % 7 != 3 })
            let faults = skipped.withLock { $0 }
            #expect(faults.map(\.index) == (0..<3000).filter { $0 % 7 == 3 })
            #expect(faults.first?.position.line == 4)
            #expect(faults.first?.error.localizedDescription.isEmpty == false)
        }
    }

    @Test("JSON Lines: a line that is not JSON is passed over too, with its line and the parser's error")
    func malformedLine() async throws {
        let text = "{\"id\": 1, \"name\": \"a\"}\n{\"id\": 2, \"name\": \n{\"id\": 3, \"name\": \"c\"}\n"
        let skipped = Mutex<[JSONSkippedValue]>([])
        let decoder = StreamingJSONDecoder()
        decoder.onUndecodableValue = { value in skipped.withLock { $0.append(value) } }
        var read: [Int] = []
        for try await event in decoder.values(of: Event.self, from: [Array(text.utf8)].chunkStream) {
            read.append(event.id)
        }
        #expect(read == [1, 3])
        let faults = skipped.withLock { $0 }
        #expect(faults.count == 1)
        #expect(faults.first?.position.line == 2)
        #expect(faults.first?.value == nil)
        guard case .dataCorrupted = faults.first?.error else {
            Issue.record("\(faults)")
            return
        }
    }

    @Test("an array's syntax fault still ends the stream")
    func syntaxStillFails() async throws {
        let decoder = StreamingJSONDecoder()
        decoder.onUndecodableValue = { _ in }
        var read = 0
        await #expect(throws: DecodingError.self) {
            for try await _ in decoder.elements(
                of: Event.self,
                at: "events",
                from: [Array("{\"events\": [{\"id\": 1, \"name\": \"a\"}, {\"id\": 2,, \"name\": \"b\"}]}".utf8)]
                    .chunkStream
            ) {
                read += 1
            }
        }
        #expect(read == 1)
    }
}

extension Array where Element: Sendable {
    /// The elements as an asynchronous sequence of chunks.
    var chunkStream: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
