// The keyed container's member lookups, apart from its generic `Key` (see the class's comment),
// and the ignored keys and member check every keyed read applies.

import Foundation

/// The member lookups of one keyed container, apart from the container's `Key` type.
///
/// Why a separate, non-generic class: the container's methods run unspecialized (called through
/// `KeyedDecodingContainer`'s box), and there any use of `TapeKeyedContainer<Key>` itself (copying
/// it into a closure, calling its methods) looks its generic metadata up at run time: hundreds of
/// instructions per property decoded. Code here knows its own type statically. A class also lets
/// lookups, which `KeyedDecodingContainerProtocol` does not mark `mutating`, move the cursor; the
/// container is boxed on the heap by `KeyedDecodingContainer` either way.
final class KeyedLookup {
    let decoder: TapeDecoder
    /// The container's coding path, joined once for all its nested values.
    private(set) lazy var codingPath: [any CodingKey] = decoder.codingPath

    /// Members by the coding key name they stand for, only under Foundation's custom key strategy,
    /// whose closure should run once per member, not once per comparison.
    private let convertedIndex: [String: JSONTape.Value]?
    /// Where the next lookup starts: the key token after the member found last.
    ///
    /// Why: a synthesized `init(from:)` asks for keys in declaration order, and encoders write
    /// members in that order too, so searching on from the last match finds most members in one
    /// comparison, and a `Dictionary` (which asks for `allKeys` in member order) decodes in linear
    /// time without building an index. The search wraps around, so any order still finds every
    /// member.
    private var cursor: Int

    init(decoder: TapeDecoder) {
        self.decoder = decoder
        cursor = decoder.value.index + 1
        guard case .custom(let transform) = decoder.options.keyStrategy,
            let members = try? decoder.value.members()
        else {
            convertedIndex = nil
            return
        }
        var index: [String: JSONTape.Value] = [:]
        for member in members {
            let converted = transform(decoder.codingPath + [AnyCodingKey(member.key)]).stringValue
            if index[converted] == nil { index[converted] = member.value }
        }
        convertedIndex = index
    }

    /// The value of the member that stands for `key`, found by comparing bytes (or through the
    /// index), following a key path for ``JSONKeyPathCodingKey``s, and put to the member check.
    func member(for key: any CodingKey) throws -> JSONTape.Value? {
        let name = key.stringValue
        guard let value = lookUpFromCursor(name) ?? lookUpPath(key, name) else {
            return nil
        }
        if decoder.context.checksMembers { return try check(value, for: key) }
        return value
    }

    /// The member of this container's object named `name` (a coding key's string value) under the
    /// key strategy, searched from the cursor on; an exact spelling wins over others.
    private func lookUpFromCursor(_ name: String) -> JSONTape.Value? {
        let strategy = decoder.options.keyStrategy
        // Names converted by the caller's function were indexed once per object (`convertedIndex`).
        if case .custom = strategy { return convertedIndex?[name] }
        return strategy.member(forKey: name) { scan($0) }
    }

    /// The first member from the cursor on (wrapping around) whose name satisfies `matches`; moves
    /// the cursor to it. At it, not past it: asking for the same member again (`contains` then
    /// `decode`, `decodeNil` then `decode`) costs one comparison instead of a trip around the
    /// object, and the next member in declaration order costs one more comparison.
    private func scan(_ matches: (UnsafeRawBufferPointer) -> Bool) -> JSONTape.Value? {
        let object = decoder.value
        let tape = object.tape
        let first = object.index + 1
        let end = object.endIndex - 1
        let start = cursor
        var position = start
        var limit = end
        var wrapped = false
        while true {
            while position < limit {
                let valueEnd = tape.endOfValue(at: position + 1) ?? end
                if tape.withUnsafeText(of: tape[position], matches) {
                    cursor = position
                    return JSONTape.Value(tape: tape, index: position + 1, endIndex: valueEnd)
                }
                position = valueEnd
            }
            if wrapped || start == first { return nil }
            wrapped = true
            position = first
            limit = start
        }
    }

    /// The member named `name` under the key strategy in another object (a key path's steps).
    private func lookUp(_ name: String, in object: JSONTape.Value) -> JSONTape.Value? {
        if object.index == decoder.value.index { return lookUpFromCursor(name) }
        return decoder.options.keyStrategy.firstMember(of: object, forKey: name)
    }

    /// For a key path (`location.latitude`), the value at the end of the path, if every step is
    /// there. A member named with the whole dotted name is found first, by `lookUp`.
    private func lookUpPath(_ key: any CodingKey, _ name: String) -> JSONTape.Value? {
        guard let steps = Self.pathSteps(of: key, name) else { return nil }
        var value = decoder.value
        for step in steps {
            guard let next = lookUp(String(step), in: value) else {
                return nil
            }
            value = next
        }
        return value
    }

    /// The steps of a key path key, or `nil` for an ordinary key. The dynamic cast is paid only for
    /// keys with a dot in their name.
    static func pathSteps(of key: any CodingKey, _ name: String) -> [Substring]? {
        guard name.utf8.contains(UInt8(ascii: ".")), key is any JSONKeyPathCodingKey else { return nil }
        return name.components(separatedByScalar: ".")
    }

    /// Applies the ignored keys and the member check to a member found for `key`.
    func check(_ value: JSONTape.Value, for key: any CodingKey) throws -> JSONTape.Value? {
        try decoder.context.check(value, for: key, at: codingPath)
    }

    func contains(_ key: any CodingKey) -> Bool {
        // A member the check rejects with an error counts as present, so that decoding it reports
        // the error instead of a missing key.
        do { return try member(for: key) != nil || fallbackDecoder(for: key) != nil } catch { return true }
    }

    /// The decoder for the member standing for `key` (or, when updating, for its current value).
    func require(_ key: any CodingKey) throws -> TapeDecoder {
        if let value = try member(for: key) { return nested(value, key: key) }
        if let fallback = fallbackDecoder(for: key) { return fallback }
        throw missing(key)
    }

    /// `keyNotFound` for `key`, naming the step of a key path that is missing.
    func missing(_ key: any CodingKey) -> DecodingError {
        let name = key.stringValue
        if let steps = Self.pathSteps(of: key, name) {
            var value = decoder.value
            var path = codingPath
            for (offset, step) in steps.enumerated() {
                guard let next = lookUp(String(step), in: value),
                    next.kind == .objectStart
                        || offset == steps.count - 1
                else {
                    let found = lookUp(String(step), in: value)
                    let reason =
                        found.map { "is not an object but \($0.kind.nounPhrase)" } ?? "is missing from the object"
                    let step =
                        "Step \(offset + 1) of the key path \(String(reflecting: name)), "
                        + String(reflecting: String(step))
                    return DecodingError.keyNotFound(
                        key,
                        DecodingError.Context(
                            codingPath: path,
                            fault: JSONError(
                                kind: found == nil ? .missingValue : .typeMismatch,
                                message: "\(step), \(reason).",
                                position: (found ?? value).position
                            )
                        )
                    )
                }
                value = next
                path.append(AnyCodingKey(String(step)))
            }
        }
        return DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: codingPath,
                fault: decoder.fault(.missingValue, "No member \(String(reflecting: name)) in the object.")
            )
        )
    }

    @inline(__always)
    func decodeMember<T: Decodable>(_ type: T.Type, _ key: any CodingKey) throws -> T {
        guard let value = try member(for: key) else {
            guard let fallback = fallbackDecoder(for: key) else { throw missing(key) }
            return try fallback.decodeValue(type)
        }
        return try read(type, from: value, key: key)
    }

    @inline(__always)
    func decodeMemberIfPresent<T: Decodable>(_ type: T.Type, _ key: any CodingKey) throws -> T? {
        guard let value = try member(for: key) else {
            guard let fallback = fallbackDecoder(for: key) else { return nil }
            return fallback.value.isNull ? nil : try fallback.decodeValue(type)
        }
        return value.isNull ? nil : try read(type, from: value, key: key)
    }

    /// When updating a value (``StreamingJSONDecoder/update(_:from:)``), a decoder for the current
    /// value of a property the payload lacks: found in the encoded current value by coding path,
    /// and read with the options it was encoded with.
    func fallbackDecoder(for key: any CodingKey) -> TapeDecoder? {
        guard let fallback = decoder.context.fallback else { return nil }
        var value = fallback.root
        for step in codingPath + [key] {
            // Arrays in a payload replace the current ones whole: no element takes values from
            // the element that had its index.
            guard value.kind == .objectStart, let next = value[step.stringValue] else { return nil }
            value = next
        }
        return TapeDecoder(value: value, context: fallback.context, parentPath: codingPath, key: key)
    }

    /// Scalars straight from the tape; a nested decoder (and its coding path) only for the rest.
    @inline(__always)
    private func read<T: Decodable>(_ type: T.Type, from value: JSONTape.Value, key: any CodingKey) throws -> T {
        do {
            let context = decoder.context
            if !context.hasTypeHooks, let scalar = TapeScalar(T.self) {
                return try TapeDecoder.readScalar(scalar, from: value, context: context, as: T.self)
            }
        } catch {
            throw nested(value, key: key).convert(error, type: type)
        }
        return try nested(value, key: key).decodeValue(type)
    }

    /// A decoder for a member's value, under this container's path.
    func nested(_ value: JSONTape.Value, key: any CodingKey) -> TapeDecoder {
        TapeDecoder(value: value, context: decoder.context, parentPath: codingPath, key: key)
    }
}

extension TapeDecodingContext {
    /// Applies the ignored keys and the member check to a member found for `key` in the object at
    /// `codingPath`: the value, or `nil` when it is to be treated as absent. Shared by every keyed
    /// container, the JSON:API resource decoder's included.
    package func check(
        _ value: JSONTape.Value,
        for key: any CodingKey,
        at codingPath: [any CodingKey]
    ) throws -> JSONTape.Value? {
        if options.ignoredKeys.contains(key.stringValue) { return nil }
        guard let memberCheck = options.memberCheck else { return value }
        let accepted: Bool
        do {
            accepted = try memberCheck(JSONMemberCheck(codingPath: codingPath, key: key, value: value))
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription:
                        "The member for \(String(reflecting: key.stringValue)) \(value.position.phrase) was rejected: \(error)",
                    underlyingError: error
                )
            )
        }
        return accepted ? value : nil
    }
}
