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

extension KDFParameters {
    /// The environment variable that asks for ``testing`` (value `testing`).
    package static let testingVariable = "KEYCHAIN_KDF"

    /// The parameters for a new keychain password, as `environment` asks: ``default``, or, in debug
    /// builds only, ``testing`` when it has `KEYCHAIN_KDF=testing` (what the test suites set).
    ///
    /// Cheap parameters make a password cheap to guess, so release builds (what `make install`
    /// installs) never honour the variable: every tool asks here, and warns when `refusedTesting`.
    /// - Returns: the parameters, and whether `KEYCHAIN_KDF=testing` was set and refused.
    package static func forNewPassword(environment: [String: String]) -> (
        parameters: KDFParameters, refusedTesting: Bool
    ) {
        guard environment[testingVariable] == "testing" else { return (.default, false) }
        #if DEBUG
            return (.testing, false)
        #else
            return (.default, true)
        #endif
    }

    /// The warning a release build prints when it refuses `KEYCHAIN_KDF=testing`.
    package static let refusedTestingWarning =
        "warning: KEYCHAIN_KDF=testing is a test-suite setting of debug builds; this build ignores it"
        + " and uses the default Argon2id parameters"
}
