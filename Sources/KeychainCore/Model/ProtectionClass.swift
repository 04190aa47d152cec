/// A data protection class: the `kSecAttrAccessible…` values, with Apple's raw strings.
///
/// Each maps to one class key in the keybag (Apple Platform Security, "Keychain data protection").
package enum ProtectionClass: String, Sendable, CaseIterable, Codable {
    /// `kSecAttrAccessibleWhenUnlocked` (`"ak"`), the default for new items.
    case whenUnlocked = "ak"
    /// `kSecAttrAccessibleAfterFirstUnlock` (`"ck"`).
    case afterFirstUnlock = "ck"
    /// `kSecAttrAccessibleAlways` (`"dk"`, deprecated by Apple, kept for compatibility).
    case always = "dk"
    /// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` (`"aku"`).
    case whenUnlockedThisDeviceOnly = "aku"
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (`"cku"`).
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// `kSecAttrAccessibleAlwaysThisDeviceOnly` (`"dku"`).
    case alwaysThisDeviceOnly = "dku"
    /// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` (`"akpu"`).
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// The one parser of a stored or requested `kSecAttrAccessible` (`pdmn`) attribute.
    /// - Parameter attribute: the attribute value; only a ``AttributeValue/string(_:)`` with one of
    ///   Apple's raw values is a protection class.
    /// - Returns: `nil` for anything else.
    package init?(attribute: AttributeValue?) {
        guard case .string(let raw)? = attribute, let value = ProtectionClass(rawValue: raw) else { return nil }
        self = value
    }

    /// The class as the `pdmn` attribute stores it.
    package var attribute: AttributeValue { .string(rawValue) }

    /// Stable small integer stored in the database and bound into associated data.
    package var code: Int64 {
        switch self {
        case .whenUnlocked: 1
        case .afterFirstUnlock: 2
        case .always: 3
        case .whenUnlockedThisDeviceOnly: 4
        case .afterFirstUnlockThisDeviceOnly: 5
        case .alwaysThisDeviceOnly: 6
        case .whenPasscodeSetThisDeviceOnly: 7
        }
    }

    package init?(code: Int64) {
        guard let match = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = match
    }

    /// `false` for the `…ThisDeviceOnly` classes, which never leave this installation.
    package var isMigratable: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock, .always: true
        default: false
        }
    }

    /// How long the class key stays available once unlocked.
    package enum Availability: Sendable { case whenUnlocked, afterFirstUnlock, always }

    package var availability: Availability {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: .whenUnlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .afterFirstUnlock
        case .always, .alwaysThisDeviceOnly: .always
        }
    }
}
