internal import KeychainCore

/// What the provider does when a caller wants an item's secret (issue 27, items 2 and 3).
///
/// - A sandboxed caller (Flatpak, Snap) uses without asking only items whose list names it (it
///   created them, or the user chose "Always Allow"); it does not see the others in searches, and
///   reading one by its path asks. It never becomes the owner of an item without a list.
/// - An unsandboxed caller becomes the owner of an item without a list (an item made before access
///   lists, on its first use after the upgrade), uses items whose list names it or allows any
///   application, and otherwise asks when the keychain's policy is `confirm`; `open` never asks.
/// - A caller that could not be identified never becomes an owner, and asks under `confirm`.
enum AccessRule {
    enum Verdict: Equatable {
        /// Use without asking.
        case allow
        /// Use without asking, and record the caller as the item's owner first.
        case adopt
        /// Ask the user (Deny / Allow once / Always allow).
        case ask
    }

    /// - Parameter policy: the keychain's policy, read only when the verdict depends on it.
    static func verdict(
        _ access: SecretItemAccess?, policy: () -> SecretAccessPolicy, caller: CallerIdentity
    ) -> Verdict {
        let identity = caller.string
        if caller.isSandboxed { return access?.permits(identity) == true ? .allow : .ask }
        guard let access else {
            if case .unidentified = caller.kind { return policy() == .open ? .allow : .ask }
            return .adopt
        }
        if access.permits(identity) || access.anyApplication || policy() == .open { return .allow }
        return .ask
    }

    /// Whether a search or a collection's `Items` lists the item for `caller`: every item for an
    /// unsandboxed caller; for a sandboxed one only items whose list names it (item 3).
    static func lists(_ access: SecretItemAccess?, to caller: CallerIdentity) -> Bool {
        !caller.isSandboxed || access?.permits(caller.string) == true
    }
}
