/// Argon2id cost parameters for the keychain password, stored in the keychain so they can be raised later.
package struct KDFParameters: Sendable, Hashable {
    /// Passes over memory (libsodium `opslimit`), at least 1.
    package var opsLimit: UInt64
    /// Memory in bytes (libsodium `memlimit`), at least 8 KiB.
    package var memLimit: Int

    package init(opsLimit: UInt64, memLimit: Int) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// The default: 2 passes over 256 MiB, about 0.5 s on the 2-core reference machine
    /// (measured with `crypto_pwhash`; see docs/ARCHITECTURE.md).
    package static let `default` = KDFParameters(opsLimit: 2, memLimit: 256 << 20)

    /// The cheapest parameters libsodium accepts; for tests only.
    package static let testing = KDFParameters(opsLimit: 1, memLimit: 8 << 10)

    /// Whether libsodium accepts these parameters.
    package var isValid: Bool { opsLimit >= 1 && memLimit >= 8 << 10 }
}
