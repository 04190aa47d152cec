internal import KeychainCore

/// When an item's secret can be read: Apple's `kSecAttrAccessible…` values.
///
/// Each case maps to one protection class of the keybag (Apple Platform Security, "Keychain data
/// protection"). Reading an item whose class is locked throws ``KeychainError/interactionNotAllowed``;
/// it never looks like a missing item. The `…ThisDeviceOnly` cases are bound to this installation's
/// device key and never leave it; they cannot be combined with ``Keychain/synchronizable(_:)``.
public enum Accessibility: String, Sendable, Hashable, CaseIterable, Codable {
    /// Readable while the keychain is unlocked (`kSecAttrAccessibleWhenUnlocked`, `"ak"`). The default.
    case whenUnlocked = "ak"
    /// Readable from the first unlock until the session ends (`kSecAttrAccessibleAfterFirstUnlock`,
    /// `"ck"`); use it for background work.
    case afterFirstUnlock = "ck"
    /// Always readable (`kSecAttrAccessibleAlways`, `"dk"`; deprecated by Apple, kept for compatibility).
    case always = "dk"
    /// ``whenUnlocked``, bound to this installation (`"aku"`).
    case whenUnlockedThisDeviceOnly = "aku"
    /// ``afterFirstUnlock``, bound to this installation (`"cku"`).
    case afterFirstUnlockThisDeviceOnly = "cku"
    /// ``always``, bound to this installation (`"dku"`).
    case alwaysThisDeviceOnly = "dku"
    /// Readable while unlocked, only when the keychain has a password; bound to this installation (`"akpu"`).
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// Whether the item is bound to this installation (the `…ThisDeviceOnly` cases).
    public var isThisDeviceOnly: Bool { !protectionClass.isMigratable }

    /// The `ThisDeviceOnly` twin of this value (itself when it already is one).
    public var thisDeviceOnly: Accessibility {
        switch self {
        case .whenUnlocked: .whenUnlockedThisDeviceOnly
        case .afterFirstUnlock: .afterFirstUnlockThisDeviceOnly
        case .always: .alwaysThisDeviceOnly
        default: self
        }
    }

    // MARK: - Internal

    /// The engine's protection class: the same value, typed (exhaustive, so a new case is a compile
    /// error until it is mapped).
    var protectionClass: ProtectionClass {
        switch self {
        case .whenUnlocked: .whenUnlocked
        case .afterFirstUnlock: .afterFirstUnlock
        case .always: .always
        case .whenUnlockedThisDeviceOnly: .whenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: .afterFirstUnlockThisDeviceOnly
        case .alwaysThisDeviceOnly: .alwaysThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: .whenPasscodeSetThisDeviceOnly
        }
    }

    init(_ protection: ProtectionClass) {
        switch protection {
        case .whenUnlocked: self = .whenUnlocked
        case .afterFirstUnlock: self = .afterFirstUnlock
        case .always: self = .always
        case .whenUnlockedThisDeviceOnly: self = .whenUnlockedThisDeviceOnly
        case .afterFirstUnlockThisDeviceOnly: self = .afterFirstUnlockThisDeviceOnly
        case .alwaysThisDeviceOnly: self = .alwaysThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: self = .whenPasscodeSetThisDeviceOnly
        }
    }
}
