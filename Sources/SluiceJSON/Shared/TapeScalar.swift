// The scalars the coders read and write without a nested decoder or encoder (see the enum's comment).

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
}
