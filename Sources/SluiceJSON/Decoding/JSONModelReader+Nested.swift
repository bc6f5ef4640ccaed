// A generated reader's nested values: `@JSONModel` types, arrays of them and arrays of scalars,
// read with their types known at the call.

import Foundation

extension JSONModelReader {
    // MARK: Nested models and arrays
    //
    // Overloads for the composite types models hold most: nested `@JSONModel` types, arrays of
    // them and arrays of the common scalars. Through the generic read, each such value costs a
    // type switch and a look-up of the type's kind in the decode's cache, and each element of an
    // array a nested decoder and the same again: thousands of instructions per article in the
    // JSON:API benchmark. Here the type is known at the call. Errors are those of the general
    // path, built the way it builds them (`TapeDecoder`'s shortcuts and `readDirectly`).

    /// Reads the required property `field`, a nested `@JSONModel` type.
    @inlinable
    public func decode<T: JSONModelDecodable>(_ type: T.Type = T.self, at field: Int) throws -> T {
        guard let member = member(field) else { throw missing(field) }
        return try readModel(type, from: member, field: field)
    }

    /// Reads the optional property `field`, a nested `@JSONModel` type.
    @inlinable
    public func decodeIfPresent<T: JSONModelDecodable>(_ type: T.Type = T.self, at field: Int) throws -> T? {
        guard let member = presentMember(field) else { return nil }
        return try readModel(type, from: member, field: field)
    }

    /// Reads the required property `field`, an array of a `@JSONModel` type.
    @inlinable
    public func decode<T: JSONModelDecodable>(_ type: [T].Type = [T].self, at field: Int) throws -> [T] {
        guard let member = member(field) else { throw missing(field) }
        return try readModels(T.self, from: member, field: field)
    }

    /// Reads the optional property `field`, an array of a `@JSONModel` type.
    @inlinable
    public func decodeIfPresent<T: JSONModelDecodable>(_ type: [T].Type = [T].self, at field: Int) throws -> [T]? {
        guard let member = presentMember(field) else { return nil }
        return try readModels(T.self, from: member, field: field)
    }

    /// Reads the required `[String]` property `field`.
    public func decode(_ type: [String].Type = [String].self, at field: Int) throws -> [String] {
        try scalars(at: field)
    }
    /// Reads the optional `[String]` property `field`.
    public func decodeIfPresent(_ type: [String].Type = [String].self, at field: Int) throws -> [String]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Int]` property `field`.
    public func decode(_ type: [Int].Type = [Int].self, at field: Int) throws -> [Int] { try scalars(at: field) }
    /// Reads the optional `[Int]` property `field`.
    public func decodeIfPresent(_ type: [Int].Type = [Int].self, at field: Int) throws -> [Int]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Double]` property `field`.
    public func decode(_ type: [Double].Type = [Double].self, at field: Int) throws -> [Double] {
        try scalars(at: field)
    }
    /// Reads the optional `[Double]` property `field`.
    public func decodeIfPresent(_ type: [Double].Type = [Double].self, at field: Int) throws -> [Double]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Bool]` property `field`.
    public func decode(_ type: [Bool].Type = [Bool].self, at field: Int) throws -> [Bool] { try scalars(at: field) }
    /// Reads the optional `[Bool]` property `field`.
    public func decodeIfPresent(_ type: [Bool].Type = [Bool].self, at field: Int) throws -> [Bool]? {
        try scalarsIfPresent(at: field)
    }

    /// Reads the required `[String?]` property `field`.
    public func decode(_ type: [String?].Type = [String?].self, at field: Int) throws -> [String?] {
        try scalars(at: field)
    }
    /// Reads the optional `[String?]` property `field`.
    public func decodeIfPresent(_ type: [String?].Type = [String?].self, at field: Int) throws -> [String?]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Int?]` property `field`.
    public func decode(_ type: [Int?].Type = [Int?].self, at field: Int) throws -> [Int?] {
        try scalars(at: field)
    }
    /// Reads the optional `[Int?]` property `field`.
    public func decodeIfPresent(_ type: [Int?].Type = [Int?].self, at field: Int) throws -> [Int?]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Double?]` property `field`.
    public func decode(_ type: [Double?].Type = [Double?].self, at field: Int) throws -> [Double?] {
        try scalars(at: field)
    }
    /// Reads the optional `[Double?]` property `field`.
    public func decodeIfPresent(_ type: [Double?].Type = [Double?].self, at field: Int) throws -> [Double?]? {
        try scalarsIfPresent(at: field)
    }
    /// Reads the required `[Bool?]` property `field`.
    public func decode(_ type: [Bool?].Type = [Bool?].self, at field: Int) throws -> [Bool?] {
        try scalars(at: field)
    }
    /// Reads the optional `[Bool?]` property `field`.
    public func decodeIfPresent(_ type: [Bool?].Type = [Bool?].self, at field: Int) throws -> [Bool?]? {
        try scalarsIfPresent(at: field)
    }

    /// A nested model read as `readDirectly` reads it for the general path: its errors, relative to
    /// the member, get the member's key in front. Inlinable, as ``readModels(_:from:field:)`` is:
    /// each initializer calls its nested models' readers directly.
    @inlinable
    func readModel<T: JSONModelDecodable>(_ type: T.Type, from member: JSONTape.Value, field: Int) throws -> T {
        if hasTypeHooks { return try read(type, from: member, field: field) }
        do {
            return try contextReference._withUnsafeGuaranteedRef { try T.decodeJSONModel(from: member, context: $0) }
        } catch {
            abandon()
            throw memberFailure(error, in: member, field: field, type: type)
        }
    }

    /// An array of nested models read as the general path's array shortcut reads it: a mismatch
    /// for anything but an array, then each element with its index in the path.
    ///
    /// Inlinable, so that each model's initializer gets a copy for its element type: out of line,
    /// the array was built by generic code that looked up `[T]`'s metadata in the runtime's
    /// caches and called each element's reader through its witness, for every array read.
    @inlinable
    func readModels<T: JSONModelDecodable>(
        _ type: T.Type,
        from member: JSONTape.Value,
        field: Int
    ) throws -> [T] {
        if hasTypeHooks || member.kind != .arrayStart {
            return try readModelsGenerally(type, from: member, field: field)
        }
        let unmanagedContext = contextReference
        do {
            return try member.mapElementsSpecialized { element, index in
                do {
                    return try unmanagedContext._withUnsafeGuaranteedRef {
                        try T.decodeJSONModel(from: element, context: $0)
                    }
                } catch {
                    throw memberFailure(error, in: member, field: field, element: (element, index), type: T.self)
                }
            }
        } catch {
            abandon()
            throw error
        }
    }

    /// ``readModels(_:from:field:)`` for what its inlined part leaves: converters in force (the
    /// general read), or a member that is not an array (the general path's mismatch).
    @usableFromInline
    func readModelsGenerally<T: JSONModelDecodable>(
        _ type: T.Type,
        from member: JSONTape.Value,
        field: Int
    ) throws -> [T] {
        if hasTypeHooks { return try read([T].self, from: member, field: field) }
        abandon()
        throw TapeDecoder(value: member, context: context, parentPath: [], key: members.keys[field])
            .mismatch(expected: "an array", type: [Any].self)
    }

    /// The error for the value of property `field` (`member`, or its element `element.index`)
    /// whose nested model failed with `error`, as the general path gives it: a `DecodingError`
    /// with the member's key (and the element's index) in front of its path, a tape fault worded
    /// by `TapeDecoder`.
    @usableFromInline
    func memberFailure(
        _ error: any Error,
        in member: JSONTape.Value,
        field: Int,
        element: (value: JSONTape.Value, index: Int)? = nil,
        type: Any.Type
    ) -> any Error {
        let key = members.keys[field]
        switch error {
        case let error as DecodingError:
            return error.prefixingCodingPath(element.map { [key, ElementKey($0.index)] } ?? [key])
        case let error as JSONError:
            let decoder = TapeDecoder(value: member, context: context, parentPath: [], key: key)
            guard let element else { return decoder.convert(error, type: type) }
            return decoder.elementError(error, element: element.value, index: element.index, type: type)
        default:
            return error
        }
    }

    /// An array of scalars or optional scalars: from its tokens when it is plain, else by the
    /// general read.
    @inline(__always)
    private func scalars<S: Decodable>(at field: Int) throws -> [S] {
        if let plain: [S] = tokenScalarArray(at: field) { return plain }
        guard let member = member(field) else { throw missing(field) }
        return try readScalarArray(from: member, field: field)
    }

    @inline(__always)
    private func scalarsIfPresent<S: Decodable>(at field: Int) throws -> [S]? {
        if let plain: [S] = tokenScalarArray(at: field) { return plain }
        guard let member = presentMember(field) else { return nil }
        return try readScalarArray(from: member, field: field) as [S]
    }

    /// Property `field`'s member read as an array of `String`, `Int`, `Double` or `Bool`, or of
    /// one of them optional, straight from its tokens: each element converts as the scalar
    /// properties above convert theirs. `nil` for anything else (no member, another shape, a
    /// converter in force, an element that does not convert), which the general read reads or
    /// words the error of. Why: the general read is generic code that works out the element
    /// type at run time, makes a decoder for the array and a counted value for each element,
    /// and grows the array as it goes; here the type is known where the call is specialized
    /// (the comparisons of `S` fold away), the element count is on the array's start token,
    /// and each element is one token read through the buffer.
    @inline(__always)
    private func tokenScalarArray<S>(at field: Int) -> [S]? {
        let offset = Int(slots[field])
        guard offset >= 0, !hasTypeHooks else { return nil }
        let index = objectIndex + offset
        func integer(_ token: JSONToken) -> Int? { plainInteger(token, as: Int.self) }
        func double(_ token: JSONToken) -> Double? { plainDouble(token) }
        func string(_ token: JSONToken) -> String? { token.kind == .string ? text(of: token) : nil }
        func bool(_ token: JSONToken) -> Bool? { token.kind == .true ? true : token.kind == .false ? false : nil }
        if S.self == String.self { return tokenArray(at: index, string) }
        if S.self == Int.self { return tokenArray(at: index, integer) }
        if S.self == Double.self { return tokenArray(at: index, double) }
        if S.self == Bool.self { return tokenArray(at: index, bool) }
        if S.self == String?.self { return optionalTokenArray(at: index, string) }
        if S.self == Int?.self { return optionalTokenArray(at: index, integer) }
        if S.self == Double?.self { return optionalTokenArray(at: index, double) }
        if S.self == Bool?.self { return optionalTokenArray(at: index, bool) }
        return nil
    }

    /// ``tokenElements(at:_:)`` as `[S]`, where `[E]` is `[S]` (the cast is a no-op). Methods,
    /// not functions nested in ``tokenScalarArray(at:)``: nested generic functions were left
    /// unspecialized, and each array then found its storage type in the runtime's caches.
    @inline(__always)
    private func tokenArray<S, E>(at index: Int, _ convert: (JSONToken) -> E?) -> [S]? {
        tokenElements(at: index, convert).map { unsafeBitCast($0, to: [S].self) }
    }

    /// ``tokenArray(at:_:)`` of optional elements: `null` reads as `nil` (`.some(nil)` to
    /// `tokenElements`, whose `nil` refuses an element that does not convert).
    @inline(__always)
    private func optionalTokenArray<S, E>(at index: Int, _ convert: (JSONToken) -> E?) -> [S]? {
        tokenArray(at: index) { token -> E?? in token.kind == .null ? .some(nil) : convert(token).map { .some($0) } }
    }

    /// The elements of the array that starts at tape index `index`, each converted from its one
    /// token; `nil` when it is not an array of scalars or `convert` refuses an element.
    @inline(__always)
    private func tokenElements<E>(at index: Int, _ convert: (JSONToken) -> E?) -> [E]? {
        let first = index - buffer.pointee.firstIndex
        precondition(first >= 0 && first < buffer.pointee.tokenCount, "JSONTape index out of range")
        let tokens = UnsafePointer(buffer.pointee.tokens + first)
        let start = tokens[0]
        // A closed array's start token holds its end's index and its element count: when the two
        // agree, every element is one token, a scalar.
        guard start.kind == .arrayStart, start.payload > index else { return nil }
        let count = start.payload - index - 1
        guard Int(start.length) == count else { return nil }
        precondition(
            start.payload - buffer.pointee.firstIndex < buffer.pointee.tokenCount,
            "JSONTape index out of range"
        )
        return specializedArray(count: count) { position in convert(tokens[position + 1]) }
    }

    /// An array of scalars that ``tokenScalarArray(at:)`` did not take, read as the general path
    /// reads it: its converters, its conversions, its errors.
    @inline(__always)
    private func readScalarArray<S: Decodable>(from member: JSONTape.Value, field: Int) throws -> [S] {
        if hasTypeHooks { return try read([S].self, from: member, field: field) }
        do {
            return try [S].read(
                from: TapeDecoder(value: member, context: context, parentPath: [], key: members.keys[field])
            )
        } catch {
            abandon()
            throw error
        }
    }
}
