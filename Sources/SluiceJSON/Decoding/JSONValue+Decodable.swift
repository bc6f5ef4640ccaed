// JSONValue read by decoders: from a Sluice decoder straight off the tape (numbers keep their
// text), from any other through Codable's containers.

extension JSONValue: Decodable {
    /// Decodes any JSON value. With Sluice's decoders numbers keep their text; with others they go
    /// through `Int` or `Double`.
    public init(from decoder: any Decoder) throws {
        if let tapeDecoder = decoder as? TapeDecoder {
            self = try tapeDecoder.value.jsonValue()
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
        } else if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var members: [(String, JSONValue)] = []
            for key in object.allKeys {
                members.append((key.stringValue, try object.decode(JSONValue.self, forKey: key)))
            }
            self = .object(JSONObject(members))
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int.self) {
                self = .number(String(value))
            } else if let value = try? single.decode(Double.self) {
                self = .number(String(value))
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    /// This value decoded as `T`, the way `decoder` would decode it from its JSON text: a typed
    /// view of a `meta` object, say.
    ///
    /// ```swift
    /// struct Page: Decodable { var total: Int }
    /// let total = try meta.decode(Page.self).total
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, using decoder: StreamingJSONDecoder = .init()) throws -> T {
        var bytes: [UInt8] = []
        write(into: &bytes)
        return try decoder.decode(T.self, from: bytes)
    }
}
