public import Foundation
internal import KeychainCore

/// An access control object: a protection class (a `kSecAttrAccessible…` value) and constraints on
/// the item's use.
///
/// Follows Apple's `SecAccessControl` (SecAccessControl.h;
/// https://developer.apple.com/documentation/security/secaccesscontrol). Create one with
/// ``SecAccessControlCreateWithFlags(_:_:_:_:)`` and pass it as `kSecAttrAccessControl`. Returned
/// attributes carry one for every item (since iOS 11.3), derived from its accessibility when the
/// item has no constraints. Two objects are equal when protection and flags are equal, as Apple's
/// `CFEqual` compares their contents.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible {
    let protection: ProtectionClass
    let flags: SecAccessControlCreateFlags

    init(protection: ProtectionClass, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags.rawValue)
    }

    /// As Apple's: `<SecAccessControlRef: …>` with the protection and constraint names, never a secret.
    public var description: String {
        "<SecAccessControlRef: \(protection.rawValue);flags=0x\(String(flags.rawValue, radix: 16))>"
    }

    /// The engine's constraints for these flags.
    func constraints(applicationPassword: SecureBytes?) -> AccessConstraints {
        AccessConstraints(rawValue: UInt64(flags.rawValue), applicationPassword: applicationPassword)
    }

    /// The sealed `accc` attribute an item keeps for these flags.
    func storedValue(applicationPassword: SecureBytes?) -> AttributeValue {
        .data(constraints(applicationPassword: applicationPassword).encoded)
    }

    /// The object returned as `kSecAttrAccessControl` for an item: its protection class and the flags
    /// of its stored constraints (none for an item added without access control).
    convenience init(item: StoredItem) {
        self.init(
            protection: item.protection,
            flags: SecAccessControlCreateFlags(rawValue: CFOptionFlags(item.constraints?.rawValue ?? 0)))
    }
}

/// Returns the type identifier of `SecAccessControl` objects.
///
/// Follows SecAccessControl.h `SecAccessControlGetTypeID`. The value is stable within a process.
public func SecAccessControlGetTypeID() -> CFTypeID {
    CFTypeID(bitPattern: ObjectIdentifier(SecAccessControl.self).hashValue)
}

/// Creates an access control object from a protection class and constraints.
///
/// Follows Apple's `SecAccessControlCreateWithFlags` (SecAccessControl.h; validation as in Apple's
/// SecAccessControl.c). On Linux the keychain password stands in for the device passcode
/// (`.devicePasscode`, `.userPresence`), and biometric and watch constraints can never be satisfied,
/// as on an Apple device with no enrolled biometry.
///
/// ```swift
/// var error: Unmanaged<CFError>?
/// guard let access = SecAccessControlCreateWithFlags(
///     kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error)
/// else { throw error!.takeRetainedValue() as Error }
/// ```
///
/// - Parameters:
///   - allocator: ignored (`kCFAllocatorDefault` or `nil`).
///   - protection: a `kSecAttrAccessible…` value (`CFString`, or a `String`).
///   - flags: the constraints; several combine with `.and` (the default) or `.or`.
///   - error: receives a retained `CFError` on failure, or may be `nil`.
/// - Returns: the object, or `nil` on failure with `error` set to domain `kCFErrorDomainOSStatus`, code
///   `errSecParam` (-50), when: `protection` is not a `kSecAttrAccessible…` value; both `.or` and `.and`
///   are set ("only one logical operation can be set"); both biometry flags are set ("only one bio
///   constraint can be set"); `.userPresence` is combined with a flag other than
///   `.applicationPassword` or `.privateKeyUsage`.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    guard let protectionClass = try? SecItemRequest.protection(protection) else {
        return CFError.report(errSecParam, "SecAccessControl: invalid protection", to: error)
    }
    if flags.contains(.or) && flags.contains(.and) {
        return CFError.report(errSecParam, "only one logical operation can be set", to: error)
    }
    if flags.contains(.biometryAny) && flags.contains(.biometryCurrentSet) {
        return CFError.report(errSecParam, "only one bio constraint can be set", to: error)
    }
    if flags.contains(.userPresence)
        && !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty
    {
        return CFError.report(
            errSecParam,
            "kSecAccessControlUserPresence can be combined only with kSecAccessControlApplicationPassword and kSecAccessControlPrivateKeyUsage",
            to: error)
    }
    return SecAccessControl(protection: protectionClass, flags: flags)
}
