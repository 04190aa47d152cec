package import KeychainCore
package import KeychainCrypto
internal import KeychainTPM

/// A `kSecAttrTokenIDSecureEnclave` key on Linux: a P-256 key pair made and used inside the TPM 2.0
/// (``KeychainTPM/TPMKey``), whose private part exists outside the TPM only as the blob the TPM wrapped
/// with its owner-hierarchy primary, so it works on this machine's TPM alone and can never be exported.
///
/// The blob (marshalled `TPM2B_PUBLIC` then `TPM2B_PRIVATE`) is what a permanent key's item stores as
/// its secret, with `tkid` = `com.apple.setoken`; the public key is read from the blob without the TPM.
/// The TPM is the engine's (``KeychainCore/DeviceKey/configuredTCTI``: `KEYCHAIN_TCTI`, else
/// `/dev/tpmrm0`), looked up at each use, so a key made under one TCTI string works under another
/// naming the same TPM.
package struct EnclaveKey: HardwarePrivateKey {
    /// `kSecAttrTokenIDSecureEnclave`'s value, as the `tkid` attribute stores it.
    package static let tokenID = "com.apple.setoken"

    /// The TCTI of this task's enclave keys instead of the engine's: the tests' own swtpm, set for the
    /// test alone (the environment variable is the process's, and tests run in parallel).
    @TaskLocal package static var tctiOverride: String?

    /// The key's TPM blob.
    package let blob: [UInt8]
    /// The user constraints of its `kSecAttrAccessControl` (`.userPresence`, `.devicePasscode`, …) that
    /// each use must satisfy, as the Secure Enclave checks a key's access control at each operation;
    /// `nil` when it has none. The application password is not among them.
    package let constraints: AccessConstraints?

    /// A key with its blob and the constraints of its access control.
    init(blob: [UInt8], constraints: AccessConstraints?) {
        self.blob = blob
        let user = constraints.map { AccessConstraints(rawValue: $0.rawValue & ~AccessConstraints.applicationPassword) }
        self.constraints = user?.requiresAuthentication == true ? user : nil
    }

    /// Makes a new key in the TPM.
    /// - Parameter constraints: its access control's constraints, asked for at each use.
    /// - Returns: the private key (its public half in OpenSSL, its private operations in the TPM).
    /// - Throws: `CryptoError.unsupported` (errSecUnimplemented, as an Apple device without a Secure
    ///   Enclave) when there is no TPM or it does not answer, with the reason; `.token` when it refuses.
    package static func generate(constraints: AccessConstraints?) throws(CryptoError) -> CryptoKey {
        let tcti = try Self.tcti(forCreating: true)
        let made: (blob: [UInt8], publicKey: [UInt8])
        do { made = try TPMKey.generate(tcti: tcti) } catch let failure {
            if case .unreachable(let message) = failure {
                throw .unsupported("Secure Enclave keys are not available on this device: \(message)")
            }
            throw Self.cryptoError(failure)
        }
        return try CryptoKey(hardware: EnclaveKey(blob: made.blob, constraints: constraints), publicKey: made.publicKey)
    }

    /// The key a stored blob makes, with its item's access-control constraints, or `nil` when the blob
    /// is not one (damaged).
    package static func key(blob: [UInt8], constraints: AccessConstraints?) -> CryptoKey? {
        guard let point = TPMKey.publicKey(ofBlob: blob) else { return nil }
        return try? CryptoKey(hardware: EnclaveKey(blob: blob, constraints: constraints), publicKey: point)
    }

    package func signDigest(_ digest: [UInt8]) throws(CryptoError) -> [UInt8] {
        let tcti = try Self.tcti(forCreating: false)
        try authorizeUse()
        do { return try TPMKey.sign(digest: digest, blob: blob, tcti: tcti) } catch let failure {
            throw Self.cryptoError(failure)
        }
    }

    package func sharedSecret(peer: [UInt8]) throws(CryptoError) -> SensitiveBytes {
        let tcti = try Self.tcti(forCreating: false)
        try authorizeUse()
        do {
            return try TPMKey.sharedSecret(peer: peer, blob: blob, tcti: tcti) { SensitiveBytes(copying: $0) }
        } catch let failure {
            throw Self.cryptoError(failure)
        }
    }

    // MARK: - Private

    /// Asks the user (the keychain password, in the prompter) when the key's access control requires it,
    /// before every operation; the keychain is the task's or the process's default (``KeychainContext``).
    private func authorizeUse() throws(CryptoError) {
        guard let constraints else { return }
        do {
            var authorizer = AccessAuthorizer(
                keystore: try KeychainContext.current().keystore, context: nil, ui: .allow,
                reason: "An app wants to use a private key kept by this computer's TPM.")
            _ = try authorizer.authorize(constraints)
        } catch let failure {
            throw .denied(
                status: failure.status.rawValue, failure.detail ?? "the key's access control is not satisfied")
        }
    }

    /// The TPM to use, or why there is none.
    private static func tcti(forCreating: Bool) throws(CryptoError) -> String {
        if let tcti = tctiOverride ?? DeviceKey.configuredTCTI { return tcti }
        let reason = "no TPM 2.0 (no /dev/tpmrm0, and KEYCHAIN_TCTI names none)"
        if forCreating { throw .unsupported("Secure Enclave keys are not available on this device: \(reason)") }
        throw .token("the key lives in a TPM, and there is \(reason)")
    }

    private static func cryptoError(_ failure: TPMSealing.Failure) -> CryptoError {
        switch failure {
        case .unreachable(let message), .foreign(let message), .policy(let message), .failed(let message):
            .token(message)
        }
    }
}
