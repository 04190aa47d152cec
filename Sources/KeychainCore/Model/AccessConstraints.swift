/// The constraints of an access-controlled item: Apple's `SecAccessControlCreateFlags` bits
/// (SecAccessControl.h), kept with the item as its sealed `accc` attribute.
///
/// How Linux satisfies each (docs/ARCHITECTURE.md, "Access control"): the device-passcode kinds
/// (`devicePasscode`, `userPresence`) by the keychain password; the biometric kinds never, as on an
/// Apple device with no enrolled biometry; `applicationPassword` by the password an app supplies
/// through its authentication context. Several constraints combine with `and` (the default, as in
/// SecAccessControl.c: k = n) or `or` (k = 1).
package struct AccessConstraints: Sendable, Hashable {
    /// Apple's flag bits, unchanged.
    package let rawValue: UInt64
    /// With `applicationPassword`: a random salt and the keyed BLAKE2b of the application password
    /// under it (the verifier). Sealed with the item like every attribute, so a fast hash suffices.
    package let passwordVerifier: [UInt8]?

    package init(rawValue: UInt64, passwordVerifier: [UInt8]? = nil) {
        self.rawValue = rawValue
        self.passwordVerifier = passwordVerifier
    }

    /// Constraints whose application password (if they need one) is `password`.
    package init(rawValue: UInt64, applicationPassword password: SecureBytes?) {
        self.rawValue = rawValue
        if rawValue & Self.applicationPassword != 0, let password {
            let salt = Sodium.randomBytes(Self.saltBytes)
            passwordVerifier = salt + Self.verifier(password, salt: salt)
        } else {
            passwordVerifier = nil
        }
    }

    // MARK: - Encoding (the sealed `accc` attribute)

    /// `0x01 ‖ flags (8 bytes, big-endian) ‖ [salt (16) ‖ verifier (32)]`.
    package var encoded: [UInt8] {
        var bytes: [UInt8] = [1]
        withUnsafeBytes(of: rawValue.bigEndian) { bytes.append(contentsOf: $0) }
        if let passwordVerifier { bytes += passwordVerifier }
        return bytes
    }

    /// Decodes ``encoded``; `nil` for anything else.
    package init?(encoded bytes: [UInt8]) {
        guard bytes.count == 9 || bytes.count == 9 + Self.saltBytes + 32, bytes[0] == 1 else { return nil }
        rawValue = bytes[1..<9].reduce(0) { $0 << 8 | UInt64($1) }
        passwordVerifier = bytes.count > 9 ? Array(bytes[9...]) : nil
    }

    private static let saltBytes = 16

    private static func verifier(_ password: SecureBytes, salt: [UInt8]) -> [UInt8] {
        let key = SecureBytes(copying: salt + [UInt8](repeating: 0, count: 16))
        return password.withUnsafeBytes { Sodium.keyedHash($0, key: key, length: 32) }
    }

    /// Whether `password` is the item's application password (constant-time comparison).
    package func verifies(applicationPassword password: SecureBytes) -> Bool {
        guard let passwordVerifier, passwordVerifier.count == Self.saltBytes + 32 else { return false }
        let salt = Array(passwordVerifier.prefix(Self.saltBytes))
        let expected = SecureBytes(copying: passwordVerifier.suffix(32))
        return expected.constantTimeEquals(Self.verifier(password, salt: salt))
    }

    package static let userPresence: UInt64 = 1 << 0
    package static let biometryAny: UInt64 = 1 << 1
    package static let biometryCurrentSet: UInt64 = 1 << 3
    package static let devicePasscode: UInt64 = 1 << 4
    package static let watch: UInt64 = 1 << 5
    package static let or: UInt64 = 1 << 14
    package static let and: UInt64 = 1 << 15
    package static let privateKeyUsage: UInt64 = 1 << 30
    package static let applicationPassword: UInt64 = 1 << 31

    /// Evidence gathered for one use of an item.
    package struct Evidence: Sendable {
        /// The keychain password was verified (now, or within the context's reuse window).
        package var devicePasscode = false
        /// The app supplied an application password.
        package var applicationPassword: SecureBytes?
        package init(devicePasscode: Bool = false, applicationPassword: SecureBytes? = nil) {
            self.devicePasscode = devicePasscode
            self.applicationPassword = applicationPassword
        }
    }

    /// Whether reading the item's secret needs any authentication.
    package var requiresAuthentication: Bool { !userConstraints.isEmpty || needsApplicationPassword }

    /// Whether one of the constraints the keychain password can satisfy is present (so asking for
    /// the password can help).
    package var acceptsDevicePasscode: Bool {
        rawValue & (Self.userPresence | Self.devicePasscode) != 0
    }

    package var needsApplicationPassword: Bool { rawValue & Self.applicationPassword != 0 }

    /// The user constraints present, in SecAccessControl.c's order.
    package var userConstraints: [UInt64] {
        [Self.userPresence, Self.devicePasscode, Self.biometryAny, Self.biometryCurrentSet, Self.watch]
            .filter { rawValue & $0 != 0 }
    }

    /// Whether `evidence` satisfies the constraints.
    ///
    /// `userPresence` is "biometry or passcode" (SecAccessControl.h), so the password satisfies it;
    /// biometric and watch constraints are never satisfied (no enrolled biometry, no paired watch).
    package func isSatisfied(by evidence: Evidence) -> Bool {
        if needsApplicationPassword {
            guard let password = evidence.applicationPassword, verifies(applicationPassword: password) else {
                return false
            }
        }
        let results = userConstraints.map { constraint in
            switch constraint {
            case Self.userPresence, Self.devicePasscode: evidence.devicePasscode
            default: false
            }
        }
        if results.isEmpty { return true }
        return rawValue & Self.or != 0 ? results.contains(true) : !results.contains(false)
    }
}

extension StoredItem {
    /// The item's access-control constraints, decoded from its sealed `accc` attribute; `nil` for an
    /// item without access control (or whose attributes were not read).
    package var constraints: AccessConstraints? {
        guard case .data(let bytes)? = attributes[.accessControl] else { return nil }
        return AccessConstraints(encoded: Array(bytes))
    }

    /// Whether using the item's secret needs the user (its constraints require authentication).
    package var needsAuthentication: Bool { constraints?.requiresAuthentication ?? false }
}
