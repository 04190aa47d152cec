package import KeychainCore

/// The public half of the recovery key: the Argon2id salt and cost (the backup's ``KDFParameters``) that
/// turn the recovery passphrase into a seed, and the Ed25519 and X25519 public keys of that seed's subkeys.
///
/// A device joining with the passphrase re-derives the keys, checks they match (which authenticates the
/// trust list to it), opens the sync key sealed to the recovery key, and signs the trust list that adds it.
package struct SyncRecoveryKeys: Sendable, Equatable {
    package let salt: [UInt8]
    package let parameters: KDFParameters
    package let signingKey: [UInt8]
    package let boxKey: [UInt8]

    package init(salt: [UInt8], parameters: KDFParameters, signingKey: [UInt8], boxKey: [UInt8]) {
        self.salt = salt
        self.parameters = parameters
        self.signingKey = signingKey
        self.boxKey = boxKey
    }

    /// The secret seeds of a passphrase: `(signing seed, box secret)`, or nil when Argon2id fails.
    package static func derive(
        passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters
    ) -> (signing: SecureBytes, box: SecureBytes)? {
        guard
            let root = Sodium.passwordHash(
                passphrase, salt: salt, opsLimit: parameters.opsLimit, memLimit: parameters.memLimit)
        else { return nil }
        return (
            SyncCrypto.subkey(root, context: "swkc sync recovery sign"),
            SyncCrypto.subkey(root, context: "swkc sync recovery box")
        )
    }

    /// New recovery keys for `passphrase` with a fresh salt.
    package static func make(passphrase: SecureBytes, parameters: KDFParameters) -> (
        SyncRecoveryKeys, signing: SecureBytes, box: SecureBytes
    )? {
        let salt = Sodium.randomBytes(Sodium.passwordSaltBytes)
        guard let seeds = derive(passphrase: passphrase, salt: salt, parameters: parameters) else { return nil }
        let keys = SyncRecoveryKeys(
            salt: salt, parameters: parameters, signingKey: SyncCrypto.signingPublicKey(seed: seeds.signing),
            boxKey: SyncCrypto.boxPublicKey(secret: seeds.box))
        return (keys, seeds.signing, seeds.box)
    }

    /// `salt (16) ‖ opslimit (u64) ‖ memlimit (u64) ‖ signing key (32) ‖ box key (32)`.
    package func encode(into writer: inout SyncByteWriter) {
        writer.append(salt)
        writer.append(parameters.opsLimit)
        writer.append(UInt64(parameters.memLimit))
        writer.append(signingKey)
        writer.append(boxKey)
    }

    package init(from reader: inout SyncByteReader) throws(SyncFormatError) {
        salt = try reader.take(Sodium.passwordSaltBytes)
        let ops = try reader.integer(UInt64.self)
        let memory = try reader.integer(UInt64.self)
        // At most 4 GiB of memory: a hostile remote must not make a joiner allocate without bound.
        guard ops >= 1, ops <= 64, memory >= 8 << 10, memory <= 4 << 30 else {
            throw .malformed("trust list", "recovery key cost out of range")
        }
        parameters = KDFParameters(opsLimit: ops, memLimit: Int(memory))
        signingKey = try reader.take(32)
        boxKey = try reader.take(32)
    }
}
