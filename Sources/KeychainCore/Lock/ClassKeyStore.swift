internal import Synchronization

/// Where the class keys of an unlocked keychain are kept between calls.
///
/// The kernel user keyring when it is available (shared by all the user's processes);
/// otherwise this process's memory, so an unlock lasts for the unlocking process only.
package enum ClassKeyStore {
    /// Where unlocks are kept on this machine.
    package enum Scope: Sendable, Equatable {
        /// The kernel user keyring: every process of the user sees the unlock.
        case userSession
        /// This process only (the kernel keyring is unavailable).
        case thisProcess
    }

    package static var scope: Scope { KernelKeyring.isAvailable ? .userSession : .thisProcess }

    private static let processKeys = Mutex<[String: (key: SecureBytes, expires: UInt64?, epoch: Int64)]>([:])
    /// Numbers the in-process stores, so that ``epoch(keyringID:entry:)`` changes across a withdrawal.
    private static let processEpochs = Atomic<Int64>(0)

    static func description(keyringID: [UInt8], entry: Int64) -> String {
        "swkc:" + Sodium.hex(keyringID) + ":\(entry)"
    }

    /// Makes `key` available; `timeout` seconds (0 = until the session ends).
    /// - Returns: where it was kept: `.thisProcess` when the kernel keyring is unavailable or
    ///   refused the key (its quota is full, for instance), so that callers can say so.
    @discardableResult
    static func store(_ key: SecureBytes, keyringID: [UInt8], entry: Int64, timeout: UInt32) -> Scope {
        let name = description(keyringID: keyringID, entry: entry)
        if scope == .userSession, KernelKeyring.store(key, description: name, timeout: timeout) { return .userSession }
        let expiry = timeout > 0 ? Monotonic.seconds() + UInt64(timeout) : nil
        processKeys.withLock { keys in
            // A refresh of a live key keeps its epoch; a key stored again after a withdrawal gets a new one.
            let live = keys[name].flatMap { stored in stored.expires.map { Monotonic.seconds() < $0 } ?? true } ?? false
            let epoch = live ? keys[name]!.epoch : (1 << 32) + processEpochs.add(1, ordering: .relaxed).newValue
            keys[name] = (key, expiry, epoch)
        }
        return .thisProcess
    }

    /// The key, or `nil` when locked or expired.
    static func load(keyringID: [UInt8], entry: Int64) -> SecureBytes? {
        let name = description(keyringID: keyringID, entry: entry)
        if scope == .userSession, let key = KernelKeyring.load(description: name, count: Sodium.keyBytes) {
            return key
        }
        return processKeys.withLock { keys -> SecureBytes? in
            guard let stored = keys[name] else { return nil }
            if let expires = stored.expires, Monotonic.seconds() >= expires {
                keys[name] = nil
                return nil
            }
            return stored.key
        }
    }

    /// A number that stays the same while the key stays available and changes once it has been
    /// withdrawn (locked, expired) and stored again; `nil` while it is unavailable. No key bytes are read.
    ///
    /// Kernel keys give their serial number; in-process keys a counter above 2³² (kernel serials are
    /// below 2³¹), so the two never collide.
    static func epoch(keyringID: [UInt8], entry: Int64) -> Int64? {
        let name = description(keyringID: keyringID, entry: entry)
        if scope == .userSession, let serial = KernelKeyring.serial(description: name) { return serial }
        return processKeys.withLock { keys -> Int64? in
            guard let stored = keys[name] else { return nil }
            if let expires = stored.expires, Monotonic.seconds() >= expires {
                keys[name] = nil
                return nil
            }
            return stored.epoch
        }
    }

    /// Withdraws the key at once.
    static func remove(keyringID: [UInt8], entry: Int64) {
        let name = description(keyringID: keyringID, entry: entry)
        if scope == .userSession { KernelKeyring.remove(description: name) }
        _ = processKeys.withLock { $0.removeValue(forKey: name) }
    }
}

