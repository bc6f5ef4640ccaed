// The JSON:API document reader: a state machine over the parser's tokens.
//
// It finds the top-level members in whatever order they come, and inside `data` and `included`
// the resource objects, reporting each one as soon as its closing brace is on the tape. It never
// looks inside a resource (the resource decoder does that) and never copies: an action names
// token indices, and the consumer decodes from the tape and then releases the tokens before
// `releasableIndex`. That is what keeps streaming memory flat: at most one resource's tokens are
// held at a time, plus any top-level member still being read.
//
// It is a struct that returns actions rather than calling out: no I/O, no decoding, and it reads
// tokens through `DocumentTokens`, so tests drive it with fake tokens, without the C parser, and
// every state it can be in is a value a test can look at.

public import SluiceJSON

/// What the document reader needs of a token source; `JSONTape` provides it.
package protocol DocumentTokens {
    var endIndex: Int { get }
    func kind(at index: Int) -> JSONToken.Kind
    /// The index one past the value starting at `index`, or `nil` while it is still open.
    func endOfValue(at index: Int) -> Int?
    /// The top-level member a key token names.
    func member(namedBy index: Int) -> DocumentReader.Member
    /// For an end token, the index of its start token; `nil` for other tokens.
    func startOfContainer(endingAt index: Int) -> Int?
}

extension JSONTape: DocumentTokens {
    package func kind(at index: Int) -> JSONToken.Kind { self[index].kind }

    package func member(namedBy index: Int) -> DocumentReader.Member {
        withUnsafeText(of: self[index]) { DocumentReader.Member(name: $0) }
    }
}

package struct DocumentReader {
    /// The top-level members of a document ([Top Level](https://jsonapi.org/format/1.1/#document-top-level)).
    /// The validator's list of what the top level may hold is made from their names, and a test
    /// checks `init(name:)` against them. No `String` raw values: comparing cases would then
    /// compare strings.
    package enum Member: CaseIterable, Equatable, Sendable {
        case data, errors, meta, jsonapi, links, included
        /// Any other member, such as an extension's (`atomic:operations`) or a misspelling.
        case other

        /// The members the specification defines, in its order.
        static let defined = allCases.filter { $0 != .other }

        /// The member's name; empty for `other`.
        var name: String {
            switch self {
            case .data: "data"
            case .errors: "errors"
            case .meta: "meta"
            case .jsonapi: "jsonapi"
            case .links: "links"
            case .included: "included"
            case .other: ""
            }
        }

        init(name: UnsafeRawBufferPointer) {
            let equals = name.isLiteral
            switch name.count {
            case 4 where equals("data"): self = .data
            case 4 where equals("meta"): self = .meta
            case 5 where equals("links"): self = .links
            case 6 where equals("errors"): self = .errors
            case 7 where equals("jsonapi"): self = .jsonapi
            case 8 where equals("included"): self = .included
            default: self = .other
            }
        }
    }

    /// What the consumer should do next.
    package enum Action: Equatable {
        /// The tokens so far are all read; parse more input, then ask again.
        case needMoreInput
        /// `data` holds one resource object (or identifier); its value starts at `valueIndex`.
        case primaryResource(valueIndex: Int)
        /// `data` is an array starting at `valueIndex`; `primaryElement` actions follow for its elements.
        case primaryCollectionStarted(valueIndex: Int)
        /// The `position`th element of the `data` array, complete on the tape.
        case primaryElement(valueIndex: Int, position: Int)
        /// `data` is `null`, at `valueIndex`.
        case primaryNull(valueIndex: Int)
        /// `included` is an array; `includedElement` actions follow for its elements.
        case includedCollectionStarted(valueIndex: Int)
        /// The `position`th element of `included`, complete on the tape.
        case includedElement(valueIndex: Int, position: Int)
        /// A top-level member the reader skips (see `skipsOtherMembers`): its key is on the tape
        /// now, its value is released as it arrives, never held whole.
        case skippedMember(keyIndex: Int)
        /// A complete top-level member other than `data` and `included`, or one of those two with
        /// a value of the wrong shape (the consumer reports it).
        case member(Member, keyIndex: Int, valueIndex: Int)
        /// The root is not an object.
        case rootNotObject(valueIndex: Int)
        /// The root object has closed.
        case finished

        /// Whether it reports an element of `data` or `included`.
        var isElement: Bool {
            switch self {
            case .primaryElement, .includedElement: true
            default: false
            }
        }
    }

    private enum State: Equatable {
        /// Before the root value.
        case expectingRoot
        /// In the root object, before a member's key or the closing brace.
        case expectingKey
        /// After a member's key, before its value.
        case expectingValue(Member, keyIndex: Int)
        /// Inside the `data` or `included` array, before an element or the closing bracket.
        case inArray(Member, count: Int)
        /// Waiting for a value that has started to close.
        case awaitingValue(ValueKind, valueIndex: Int)
        /// Passing over the value of a skipped member: tokens go as they come, until the end token
        /// of the container that started at `valueIndex`.
        case skipping(valueIndex: Int)
        /// After the root object closed.
        case finished
    }

    private enum ValueKind: Equatable {
        case member(Member, keyIndex: Int)
        case primarySingle
        case element(Member, position: Int)
    }

    private var state = State.expectingRoot
    /// Whether members other than the specification's own (`data`, `included`, `meta`, `links`,
    /// `jsonapi`, `errors`) are skipped rather than held whole until they close: what a consumer
    /// that never reads them wants, so that an extension member of any size costs no memory.
    let skipsOtherMembers: Bool

    package init(skipsOtherMembers: Bool = false) {
        self.skipsOtherMembers = skipsOtherMembers
    }
    /// The next token to look at.
    private(set) var cursor = 0
    /// A JSON Pointer to the part of the document being read: the resource (`/data/17`,
    /// `/included/3`) or top-level member still open, `""` at the top level. Where a fault
    /// found by the parser (which knows lines and columns, not structure) is reported.
    package var pointer: String {
        switch state {
        case .expectingValue(let member, _), .awaitingValue(.member(let member, _), _):
            return Self.pointer(to: member)
        case .inArray(let member, let count):
            // The element that has not started yet, or whose first token is bad.
            return "\(Self.pointer(to: member))/\(count)"
        case .awaitingValue(.primarySingle, _):
            return "/data"
        case .awaitingValue(.element(let member, let position), _):
            return "\(Self.pointer(to: member))/\(position)"
        case .expectingRoot, .expectingKey, .skipping, .finished:
            return ""
        }
    }

    /// ``pointer``, but between elements the array's own: for a fault that is in no element (a
    /// comma after the last), where ``pointer`` names the element that has not started.
    var containerPointer: String {
        if case .inArray(let member, _) = state { return Self.pointer(to: member) }
        return pointer
    }

    private static func pointer(to member: Member) -> String {
        switch member {
        case .data: "/data"
        case .included: "/included"
        case .meta: "/meta"
        case .links: "/links"
        case .jsonapi: "/jsonapi"
        case .errors: "/errors"
        case .other: ""
        }
    }

    /// Tokens before this index have been reported and may be released.
    package var releasableIndex: Int {
        switch state {
        // A member's key stays until its value is reported: the action names both.
        case .expectingValue(_, let keyIndex), .awaitingValue(.member(_, let keyIndex), _): return keyIndex
        case .awaitingValue(_, let valueIndex): return valueIndex
        default: return cursor
        }
    }

    /// Counts `count` more elements of the array being read as reported: the elements after a
    /// stand-in for a batch another thread read (see ParallelBatches.swift in SluiceJSON).
    mutating func skipElements(_ count: Int) {
        guard case .inArray(let member, let read) = state else {
            preconditionFailure("Internal inconsistency: elements skipped outside an array")
        }
        state = .inArray(member, count: read + count)
    }

    /// Advances over the tokens available and returns the next action.
    package mutating func next(in tokens: some DocumentTokens) -> Action {
        while true {
            if case .awaitingValue(let kind, let valueIndex) = state {
                // Nothing changes until the value's end token arrives: its start token then
                // names the end, so one lookup answers.
                guard let end = tokens.endOfValue(at: valueIndex) else {
                    cursor = tokens.endIndex
                    return .needMoreInput
                }
                cursor = end
                switch kind {
                case .member(let member, let keyIndex):
                    state = .expectingKey
                    return .member(member, keyIndex: keyIndex, valueIndex: valueIndex)
                case .primarySingle:
                    state = .expectingKey
                    return .primaryResource(valueIndex: valueIndex)
                case .element(let member, let position):
                    state = .inArray(member, count: position + 1)
                    return member == .data
                        ? .primaryElement(valueIndex: valueIndex, position: position)
                        : .includedElement(valueIndex: valueIndex, position: position)
                }
            }
            if case .skipping(let valueIndex) = state {
                while cursor < tokens.endIndex {
                    let isEnd = tokens.startOfContainer(endingAt: cursor) == valueIndex
                    cursor += 1
                    if isEnd {
                        state = .expectingKey
                        break
                    }
                }
                if case .skipping = state { return .needMoreInput }
                continue
            }
            if state == .finished {
                // Nothing after this is read: let the consumer release it all (a validator goes on
                // parsing a document whose root is not an object, to the end of its syntax).
                cursor = tokens.endIndex
                return .finished
            }
            guard cursor < tokens.endIndex else { return .needMoreInput }
            let kind = tokens.kind(at: cursor)
            switch state {
            case .expectingRoot:
                guard kind == .objectStart else {
                    state = .finished
                    return .rootNotObject(valueIndex: cursor)
                }
                cursor += 1
                state = .expectingKey
            case .expectingKey:
                if kind == .objectEnd {
                    cursor += 1
                    state = .finished
                    return .finished
                }
                state = .expectingValue(tokens.member(namedBy: cursor), keyIndex: cursor)
                cursor += 1
            case .expectingValue(let member, let keyIndex):
                switch (member, kind) {
                case (.data, .arrayStart):
                    cursor += 1
                    state = .inArray(.data, count: 0)
                    return .primaryCollectionStarted(valueIndex: cursor - 1)
                case (.data, .null):
                    cursor += 1
                    state = .expectingKey
                    return .primaryNull(valueIndex: cursor - 1)
                case (.data, .objectStart):
                    state = .awaitingValue(.primarySingle, valueIndex: cursor)
                case (.included, .arrayStart):
                    cursor += 1
                    state = .inArray(.included, count: 0)
                    return .includedCollectionStarted(valueIndex: cursor - 1)
                case (.other, _) where skipsOtherMembers:
                    state = kind == .objectStart || kind == .arrayStart ? .skipping(valueIndex: cursor) : .expectingKey
                    cursor += 1
                    return .skippedMember(keyIndex: keyIndex)
                default:
                    state = .awaitingValue(.member(member, keyIndex: keyIndex), valueIndex: cursor)
                }
            case .inArray(let member, let count):
                if kind == .arrayEnd {
                    cursor += 1
                    state = .expectingKey
                } else {
                    state = .awaitingValue(.element(member, position: count), valueIndex: cursor)
                }
            case .awaitingValue, .skipping, .finished:
                preconditionFailure("Internal inconsistency: state handled above")
            }
        }
    }
}
