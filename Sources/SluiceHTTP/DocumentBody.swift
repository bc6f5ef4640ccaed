public import HTTPTypes

/// A response body checked by the client, read chunk by chunk; see
/// ``JSONAPIClient/documentBody(at:options:)``. Failures while reading are ``JSONAPIClientError``s.
public struct DocumentBody: AsyncSequence {
    public typealias Element = [UInt8]
    let exchange: Exchange

    /// The status.
    public var status: Int { exchange.response.head.status.code }
    /// The response's header fields.
    public var headers: HTTPFields { exchange.response.head.headerFields }
    /// Bytes read so far.
    public var bytesRead: Int { exchange.body.bytesRead }

    public func makeAsyncIterator() -> Iterator { Iterator(reader: exchange.body) }

    /// Reads the next chunk.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: BodyReader
        public mutating func next() async throws -> [UInt8]? { try await reader.next() }
    }
}

// A body is read once, by one task at a time (its iterator is the only reader), which is what
// handing it to another task needs: an import reads it on a task of its own.
extension DocumentBody: @unchecked Sendable {}
