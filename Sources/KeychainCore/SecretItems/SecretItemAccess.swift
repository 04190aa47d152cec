/// Which applications may use a Secret Service item's secret without asking (issue 27, item 2): the
/// identity that created it and those the user allowed ("Always allow", `-T`), as Keychain Access's
/// "Access Control" tab shows an item's list.
///
/// Identities are the provider's caller strings (`flatpak:org.example.App`, `exe:/usr/bin/foo`, …).
/// The list is sealed with the item's metadata (``SecretItemCodec``), so that a changed list in the
/// file fails authentication like any other changed metadata. An item made before access lists has
/// none (`SecretItem.access == nil`) and gets its owner on its first use.
package struct SecretItemAccess: Sendable, Equatable {
    /// The identity that created the item (or first used it after the upgrade); empty when unknown.
    package var owner: String
    /// Other identities allowed, sorted, without duplicates or the owner.
    package private(set) var allowed: [String]
    /// Every unsandboxed application may use the item without asking (`-A`); sandboxed ones are still
    /// confined to their own items.
    package var anyApplication: Bool

    package init(owner: String, allowed: [String] = [], anyApplication: Bool = false) {
        self.owner = owner
        self.allowed = []
        self.anyApplication = anyApplication
        for identity in allowed { allow(identity) }
    }

    /// Whether `identity` is the owner or on the list.
    package func permits(_ identity: String) -> Bool { identity == owner || allowed.contains(identity) }

    /// Adds `identity` to the list (no change for the owner or one already there).
    package mutating func allow(_ identity: String) {
        guard !identity.isEmpty, identity != owner, !allowed.contains(identity) else { return }
        allowed.append(identity)
        allowed.sort()
    }

    /// Removes `identity` from the list (the owner too, who then asks like anyone else).
    /// - Returns: whether it was there.
    @discardableResult
    package mutating func revoke(_ identity: String) -> Bool {
        var removed = false
        if identity == owner {
            owner = ""
            removed = true
        }
        if let index = allowed.firstIndex(of: identity) {
            allowed.remove(at: index)
            removed = true
        }
        return removed
    }
}

/// Whether a keychain's Secret Service items ask before an application not on an item's access list
/// uses it (issue 27, item 2). Stored in the keychain's `meta` table as `ss_access_policy`.
package enum SecretAccessPolicy: String, Sendable, CaseIterable {
    /// Ask (Deny / Allow once / Always allow): the default for keychains made since access lists,
    /// as on macOS.
    case confirm
    /// Never ask unsandboxed applications (gnome-keyring's behaviour): the default for keychains made
    /// before access lists. Sandboxed applications stay confined either way.
    case open
}
