// SecAccessControl.h's `SecAccessControlCreateFlags`, with Apple's bit values.

/// Access control constraints that dictate how a keychain item may be used.
///
/// Follows Apple's `SecAccessControlCreateFlags` (SecAccessControl.h;
/// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags). Values are
/// Apple's bits, so flags built from raw values (`SecAccessControlCreateFlags(rawValue: 1 << 4)`) mean
/// the same here.
///
/// On Linux the keychain password stands in for the device passcode, and biometry behaves as on an
/// Apple device without enrolled biometry (see ``SecAccessControlCreateWithFlags(_:_:_:_:)``).
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    public let rawValue: CFOptionFlags

    /// Creates flags from Apple's raw bits.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// Biometry or passcode (`1 << 0`). On Linux: the keychain password.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Touch ID or Face ID, any enrolled (`1 << 1`). Never satisfied on Linux: no biometry is enrolled.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Deprecated name of ``biometryAny``.
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// Touch ID or Face ID, the currently enrolled set (`1 << 3`). Never satisfied on Linux.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// Deprecated name of ``biometryCurrentSet``.
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode (`1 << 4`). On Linux: the keychain password.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired watch (`1 << 5`). Never satisfied on Linux.
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// A paired companion device (`1 << 5`, Apple's newer name for ``watch``). Never satisfied on Linux.
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// At least one constraint must be satisfied (`1 << 14`).
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// All constraints must be satisfied (`1 << 15`); the default for several constraints.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// A private key may be used for signing (`1 << 30`); no effect on password items.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An application-provided password is required (`1 << 31`), supplied through
    /// `LAContext.setCredential(_:type:)` and `kSecUseAuthenticationContext`.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
}
