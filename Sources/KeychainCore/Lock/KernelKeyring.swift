internal import CKeyring
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#endif

/// The Linux kernel's per-user keyring (`keyrings(7)`, `@u`): where unlocked class keys live, so that
/// every process of the user sees the same lock state.
///
/// Keys are `user` keys described `swkc:<keychain id>:<entry>`, readable by the owning user
/// (permissions possessor-all, user view/read/search), with the kernel's native timeout for
/// auto-lock. The user keyring lasts until the user's last process ends or the machine restarts,
/// which is the lifetime Apple gives AfterFirstUnlock class keys.
package enum KernelKeyring {
    private static let userKeyring: Int32 = -4  // KEY_SPEC_USER_KEYRING
    private static let setTimeout: Int32 = 15  // KEYCTL_SET_TIMEOUT
    private static let setPermissions: Int32 = 5  // KEYCTL_SETPERM
    private static let invalidate: Int32 = 21  // KEYCTL_INVALIDATE
    /// Possessor: all; user: view, read, search.
    private static let permissions: Int = 0x3f0b_0000

    /// Whether the kernel keyring can be used by this process (seccomp or old kernels may forbid it).
    package static let isAvailable: Bool = {
        let probe = "swkc:probe:\(getpid())"
        let id = "1".withCString { payload in ckeyring_add_key("user", probe, payload, 1, userKeyring) }
        guard id > 0 else { return false }
        _ = ckeyring_keyctl2(invalidate, id, 0)
        return true
    }()

    /// Stores `key` under `description`, replacing an earlier one, expiring after `timeout` seconds (0 = never).
    /// - Returns: `false` when the kernel refused.
    package static func store(_ key: SecureBytes, description: String, timeout: UInt32) -> Bool {
        let id = key.withUnsafeBytes { bytes in
            ckeyring_add_key("user", description, bytes.baseAddress, bytes.count, userKeyring)
        }
        guard id > 0 else { return false }
        _ = ckeyring_keyctl2(setPermissions, id, permissions)
        if timeout > 0 { _ = ckeyring_keyctl2(setTimeout, id, Int(timeout)) }
        return true
    }

    /// Reads the key stored under `description`, or `nil` when it is absent, expired or revoked.
    package static func load(description: String, count: Int) -> SecureBytes? {
        let id = ckeyring_search(userKeyring, "user", description)
        guard id > 0 else { return nil }
        var length = -1
        let key = SecureBytes(count: count) { buffer in
            length = ckeyring_read(id, buffer.baseAddress, buffer.count)
        }
        return length == count ? key : nil
    }

    /// The serial number of the key stored under `description`, or `nil` when it is absent, expired or
    /// revoked. Replacing a key's payload keeps its serial; withdrawing it and storing it again gives a
    /// new one (the kernel picks serials at random among live keys).
    package static func serial(description: String) -> Int64? {
        let id = ckeyring_search(userKeyring, "user", description)
        return id > 0 ? Int64(id) : nil
    }

    /// Withdraws the key stored under `description` at once (`KEYCTL_INVALIDATE`).
    package static func remove(description: String) {
        let id = ckeyring_search(userKeyring, "user", description)
        if id > 0 { _ = ckeyring_keyctl2(invalidate, id, 0) }
    }
}
