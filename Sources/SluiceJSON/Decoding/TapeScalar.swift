// The scalars the tape decoder reads without a nested decoder (see the enum's comment).

import Foundation

/// The scalar types the tape decoder reads straight from the tape, with no nested decoder and no
/// coding path built.
///
/// Why an enum found by comparing metatypes rather than a generic function returning `T?`: the
/// Codable containers call the decoder from code that is not specialized for `T`, and there every
/// use of `T?` looks its type metadata up at run time (hundreds of instructions per value). The
/// metatype comparisons cost a few each and fold away wherever `T` is known.
enum TapeScalar {
    case string, int, double, bool, int64, float, int32, uint64, uint, int16, int8, uint32, uint16, uint8, decimal

    @inline(__always)
    init?(_ type: Any.Type) {
        let id = ObjectIdentifier(type)
        switch id {
        case ObjectIdentifier(String.self): self = .string
        case ObjectIdentifier(Int.self): self = .int
        case ObjectIdentifier(Double.self): self = .double
        case ObjectIdentifier(Bool.self): self = .bool
        case ObjectIdentifier(Int64.self): self = .int64
        case ObjectIdentifier(Float.self): self = .float
        case ObjectIdentifier(Int32.self): self = .int32
        case ObjectIdentifier(UInt64.self): self = .uint64
        case ObjectIdentifier(UInt.self): self = .uint
        case ObjectIdentifier(Int16.self): self = .int16
        case ObjectIdentifier(Int8.self): self = .int8
        case ObjectIdentifier(UInt32.self): self = .uint32
        case ObjectIdentifier(UInt16.self): self = .uint16
        case ObjectIdentifier(UInt8.self): self = .uint8
        case ObjectIdentifier(Decimal.self): self = .decimal
        default: return nil
        }
    }

    /// The scalar case for `Optional<S>`, for the five scalars optional elements hold most; `nil`
    /// for any other type.
    @inline(__always)
    init?(optional type: Any.Type) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String?.self): self = .string
        case ObjectIdentifier(Int?.self): self = .int
        case ObjectIdentifier(Double?.self): self = .double
        case ObjectIdentifier(Bool?.self): self = .bool
        case ObjectIdentifier(Int64?.self): self = .int64
        default: return nil
        }
    }

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
