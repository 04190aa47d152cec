/// What reading one attribute out of sealed attributes found, without decoding the others
/// (``ItemRecordFormat/value(number:in:)``, ``ItemCodec/accessControl(_:)``).
///
/// Three outcomes, named rather than nested in optionals: a well-formed record with the
/// attribute, a well-formed record without it, and bytes that are not a well-formed record.
enum AttributeLookup: Equatable {
    /// The record holds the attribute with this value.
    case present(AttributeValue)
    /// The record is well-formed and does not hold the attribute.
    case absent
    /// The bytes are not a well-formed record (framing, numbers, types or lengths do not check).
    case malformed

    /// `present(value)` for a value, `absent` for `nil`.
    init(_ value: AttributeValue?) {
        self = value.map(Self.present) ?? .absent
    }
}
