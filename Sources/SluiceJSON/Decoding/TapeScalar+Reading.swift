// A scalar read straight off the tape, for the decoder's fast paths; the encoder uses the cases
// alone (Shared/TapeScalar.swift).

extension TapeScalar {
    /// Reads the value as `T`, which must be the type this case was made from.
    @inline(__always)
    func read<T>(from value: JSONTape.Value, as type: T.Type) throws(JSONError) -> T {
        // `_identityCast` checks the types are the same and reinterprets; no dynamic cast.
        switch self {
        case .string: return _identityCast(try value.string(), to: T.self)
        case .int: return _identityCast(try value.integer(as: Int.self), to: T.self)
        case .double: return _identityCast(try value.double(), to: T.self)
        case .bool: return _identityCast(try value.bool(), to: T.self)
        case .int64: return _identityCast(try value.integer(as: Int64.self), to: T.self)
        case .float: return _identityCast(try TapeDecoder.decodeFloat(value), to: T.self)
        case .int32: return _identityCast(try value.integer(as: Int32.self), to: T.self)
        case .uint64: return _identityCast(try value.integer(as: UInt64.self), to: T.self)
        case .uint: return _identityCast(try value.integer(as: UInt.self), to: T.self)
        case .int16: return _identityCast(try value.integer(as: Int16.self), to: T.self)
        case .int8: return _identityCast(try value.integer(as: Int8.self), to: T.self)
        case .uint32: return _identityCast(try value.integer(as: UInt32.self), to: T.self)
        case .uint16: return _identityCast(try value.integer(as: UInt16.self), to: T.self)
        case .uint8: return _identityCast(try value.integer(as: UInt8.self), to: T.self)
        case .decimal: return _identityCast(try value.decimalAsFoundationReads(), to: T.self)
        }
    }
}
