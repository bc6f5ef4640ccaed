/// A decoder configured through ``TapeDecodingOptions``: `StreamingJSONDecoder` and SluiceJSONAPI's
/// `JSONAPIDecoder`. The options one by one, under Foundation's names, are written once here for
/// both.
///
/// Each property reads the decoder's ``options`` and changes them through
/// ``updateOptions(_:)``, under the decoder's lock, so settings may be changed on one thread while
/// others decode.
public protocol TapeDecodingConfigurable: AnyObject, Sendable {
    /// All the decoding options at once.
    var options: TapeDecodingOptions { get set }
    /// Changes the options in one step under the decoder's lock.
    func updateOptions(_ change: (inout TapeDecodingOptions) -> Void)
}

extension TapeDecodingConfigurable {
    /// How member names are matched to coding keys. Default: ``JSONKeyStrategy/useDefaultKeys``.
    public var keyDecodingStrategy: JSONKeyStrategy {
        get { options.keyStrategy }
        set { updateOptions { $0.keyStrategy = newValue } }
    }

    /// How dates are read. Default: ``JSONDateDecodingStrategy/deferredToDate`` (seconds since
    /// 2001, as Foundation).
    public var dateDecodingStrategy: JSONDateDecodingStrategy {
        get { options.dateStrategy }
        set { updateOptions { $0.dateStrategy = newValue } }
    }

    /// How `Data` is read. Default: ``JSONDataDecodingStrategy/base64``.
    public var dataDecodingStrategy: JSONDataDecodingStrategy {
        get { options.dataStrategy }
        set { updateOptions { $0.dataStrategy = newValue } }
    }

    /// How strings standing for infinities and NaN are read. Default: they are refused.
    public var nonConformingFloatDecodingStrategy: JSONNonConformingFloatStrategy {
        get { options.nonConformingFloatStrategy }
        set { updateOptions { $0.nonConformingFloatStrategy = newValue } }
    }

    /// Values models read through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { options.userInfo }
        set { updateOptions { $0.userInfo = newValue } }
    }

    /// Conversions between JSON types to allow, such as numbers from strings. Default: none.
    public var conversions: JSONConversions {
        get { options.conversions }
        set { updateOptions { $0.conversions = newValue } }
    }

    /// Readers for particular types, used instead of their `Decodable` conformance.
    public var converters: JSONConverters {
        get { options.converters }
        set { updateOptions { $0.converters = newValue } }
    }

    /// Called for each member found for a coding key: `false` treats it as absent, an error
    /// rejects the payload. See ``TapeDecodingOptions/memberCheck``.
    public var memberCheck: (@Sendable (JSONMemberCheck) throws -> Bool)? {
        get { options.memberCheck }
        set { updateOptions { $0.memberCheck = newValue } }
    }

    /// Coding key names whose members are treated as absent everywhere.
    public var ignoredKeys: Set<String> {
        get { options.ignoredKeys }
        set { updateOptions { $0.ignoredKeys = newValue } }
    }
}
