package import KeychainCore

/// Access lists of keychain items and each keychain's policy (issue 27, item 2).
extension KeychainSecretStore {
    /// The keychain's ``SecretAccessPolicy``, re-read from its file when another connection has
    /// committed since (the `security` tool may change it); the memory collection's default otherwise. A keychain that
    /// cannot say is treated as ``SecretAccessPolicy/confirm``.
    package func accessPolicy(of collection: CollectionID) -> SecretAccessPolicy {
        guard let keychain = keychains[collection] else { return memory.accessPolicy(of: collection) }
        let version = (try? keychain.keystore.externalDataVersion()) ?? -1
        if let known = accessPolicies[collection], known.version == version, version >= 0 { return known.policy }
        let policy = (try? keychain.keystore.secretAccessPolicy()) ?? .confirm
        let stored = (try? keychain.keystore.hasSecretAccessPolicy()) ?? true
        accessPolicies[collection] = (version, policy, stored)
        if policy == .open && !stored { noteOpenPolicy(collection) }
        return policy
    }

    package func setAccess(_ access: SecretItemAccess?, of item: ItemID, in collection: CollectionID)
        throws(SecretStoreError)
    {
        try refuseIfDamaged(collection)
        guard let keychain = keychains[collection] else {
            try memory.setAccess(access, of: item, in: collection)
            return
        }
        guard let number = Self.number(item) else { throw .noSuchObject }
        do { try keychain.keystore.setSecretItemAccess(number, access) } catch { throw observe(error, keychain) }
        syncItems(keychain, own: number)
    }

    /// Logs once per keychain that it keeps today's behaviour and how to switch (issue 27: keychains
    /// made before access lists stay `open`).
    private func noteOpenPolicy(_ collection: CollectionID) {
        guard !notedOpenPolicy.contains(collection) else { return }
        notedOpenPolicy.insert(collection)
        SecretServiceDaemon.printError(
            "keychain-secret-service: keychain \(collection.rawValue) lets every application read its items "
                + "(made before access lists); to be asked, run: security set-keychain-settings --access-policy "
                + "confirm \(collection.rawValue)")
    }
}
