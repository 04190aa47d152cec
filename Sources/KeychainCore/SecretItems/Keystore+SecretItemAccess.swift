/// Access lists of Secret Service items and the keychain's access policy (issue 27, item 2;
/// `docs/SECURITY.md`, "Which application asks").
extension Keystore {
    /// Replaces an item's access list (`nil` removes it: the next user becomes the owner).
    /// - Throws: `.itemNotFound`; `.interactionNotAllowed` while locked; `.decode` for metadata that
    ///   does not authenticate; `.io`, `.diskFull`.
    package func setSecretItemAccess(_ number: Int64, _ access: SecretItemAccess?) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in try s.setSecretItemAccess(number, access) }
    }

    /// The keychain's access policy: ``SecretAccessPolicy/confirm`` for keychains made since access
    /// lists, ``SecretAccessPolicy/open`` for older ones until the user switches. Works while locked.
    /// - Throws: `.invalidKeychain` when the metadata cannot be read.
    package func secretAccessPolicy() throws(KeychainFailure) -> SecretAccessPolicy {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) in try s.secretAccessPolicy() }
    }

    /// Whether the keychain stores a policy (it was made since access lists, or the user chose one).
    /// - Throws: `.invalidKeychain` when the metadata cannot be read.
    package func hasSecretAccessPolicy() throws(KeychainFailure) -> Bool {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) -> Bool in
            try Meta.blob(s.database, SecretItemSchema.accessPolicyMeta) != nil
        }
    }

    /// Sets the keychain's access policy (`security set-keychain-settings --access-policy`). Works while
    /// locked: the policy is not secret, and it is not sealed (see `docs/SECURITY.md`).
    /// - Throws: the engine's write errors (`.io`, `.diskFull`, `.invalidKeychain`).
    package func setSecretAccessPolicy(_ policy: SecretAccessPolicy) throws(KeychainFailure) {
        try write { (s: borrowing StoreSession) throws(KeychainFailure) in
            try Meta.set(s.database, SecretItemSchema.accessPolicyMeta, Array(policy.rawValue.utf8))
        }
    }
}
