/// A coding key for any member name or index.
public struct AnyCodingKey: CodingKey, Hashable, Sendable {
    public var stringValue: String
    public var intValue: Int?

    public init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    public init(stringValue: String) {
        self.init(stringValue)
    }

    public init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
