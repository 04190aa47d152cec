/// Which access entries an item's attributes hold: its access control (`accc`) and its list of
/// trusted applications. Sealed with the item key (``ItemKey/wrapped(accessEntries:classKey:associatedData:)``,
/// schema version 3), so that a read of the secret opens the attributes only when one of them is there
/// to be checked: most items have neither, and their reads open two boxes (the item key and the secret)
/// instead of three (tracker issue 29, item 2).
///
/// The flags are authenticated with the item key under its class key and the row's associated data, so
/// a file edited without the class key cannot clear them; every write of an item's attributes writes
/// them again (``ItemRow/seal(_:attributes:secret:persistentRef:protection:sync:classKey:codec:)`` and
/// ``StoreSession/reseal(_:itemKey:attributes:secret:)``). An unknown bit counts as an entry present.
struct AccessEntryFlags: OptionSet, Sendable, Equatable {
    let rawValue: UInt8

    init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The attributes hold `accc` (``AttributeName/accessControl``).
    static let accessControl = AccessEntryFlags(rawValue: 1)
    /// The attributes hold a trusted-application list (``AttributeName/trustedApplications``).
    static let trustedApplications = AccessEntryFlags(rawValue: 2)

    /// The entries `attributes` hold.
    init(_ attributes: [String: AttributeValue]) {
        var flags = AccessEntryFlags(rawValue: 0)
        if attributes[.accessControl] != nil { flags.insert(.accessControl) }
        if attributes[.trustedApplications] != nil { flags.insert(.trustedApplications) }
        self = flags
    }
}
