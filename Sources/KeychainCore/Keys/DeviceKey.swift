internal import KeychainTPM

/// The installation's device key: 32 random bytes in a 0600 file outside the keychain folder.
///
/// It plays the role of Apple's hardware UID: every class key is wrapped under a key derived
/// from it, so a copy of the keychain file alone reveals nothing, and `…ThisDeviceOnly` items
/// never restore onto another installation. It never goes into a backup.
package enum DeviceKey {
    /// Loads the device key, creating it (atomically, mode 0600) when the file does not exist: sealed by
    /// the TPM when one answers at ``configuredTCTI``, else a plain 32-byte file.
    /// - Throws: ``KeychainFailure`` `.io` when the folder or file cannot be created or read,
    ///   `.decode` when the file is shorter than 32 bytes, `.invalidKeychain` when the file is
    ///   not private to the user, what ``load(path:)`` throws for a sealed key.
    package static func loadOrCreate(path: String) throws(KeychainFailure) -> SecureBytes {
        if let existing = try load(path: path) { return existing }
        try FileSystem.makePrivateDirectory(holding: path)
        if let tcti = configuredTCTI, TPMSealing.isReachable(tcti: tcti) {
            if let fresh = try createSealed(path: path, tcti: tcti) { return fresh }
            guard let theirs = try load(path: path) else {
                throw KeychainFailure(.io, "device key vanished at \(path)")
            }
            return theirs
        }
        let fresh = SecureBytes.random(count: Sodium.keyBytes)
        let created = try fresh.withUnsafeBytes { bytes throws(KeychainFailure) in
            try FileSystem.createExclusive(path, bytes: bytes)
        }
        if created { return fresh }
        // Another process created it first: use theirs.
        guard let theirs = try load(path: path) else { throw KeychainFailure(.io, "device key vanished at \(path)") }
        return theirs
    }

    /// Loads the device key, or returns `nil` when the file does not exist. A sealed key (`DeviceKey+TPM`)
    /// is unsealed by the TPM at ``configuredTCTI``.
    /// - Throws: `.invalidKeychain` when the file is not private to the user; `.decode` (with advice)
    ///   when it is neither 32 bytes nor a sealed key; `.notAvailable` (with advice) when a sealed key does
    ///   not unseal (another machine's TPM, a cleared or absent one, PCR 7 changed); `.io` when it cannot be read.
    package static func load(path: String) throws(KeychainFailure) -> SecureBytes? {
        guard FileSystem.exists(path) else { return nil }
        try FileSystem.checkPrivateFolder(of: path)
        try FileSystem.checkPrivate(path)
        let damaged = KeychainFailure(
            .decode,
            "the device key \(path) is damaged (it must hold exactly \(Sodium.keyBytes) bytes): restore it from a backup of that folder; a keychain with a password can instead be adopted with a new one once the damaged file is moved aside",
            reason: .advice)
        guard let size = FileSystem.size(path), size == Sodium.keyBytes || size > sealedMagic.count,
            size < 4096
        else { throw damaged }
        if size != Sodium.keyBytes {
            guard let contents = try FileSystem.readSecret(path, expectedCount: size) else { return nil }
            guard contents.withUnsafeBytes({ Array($0.prefix(sealedMagic.count)) == sealedMagic }) else {
                throw damaged
            }
            return try unsealedKey(contents, path: path, tcti: configuredTCTI)
        }
        do {
            return try FileSystem.readSecret(path, expectedCount: Sodium.keyBytes)
        } catch  where error.status == .decode {
            throw damaged
        }
    }
}
