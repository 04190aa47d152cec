internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Where the class keys of an unlocked keychain are kept between calls: the kernel keyring, shared
/// by all the user's processes, or this process's memory when the kernel keyring is unavailable or
/// refuses a key.
///
/// ## Footprint (tracker issue 12)
/// The kernel gives an ordinary user 200 keys and 20,000 bytes in all (`/proc/sys/kernel/keys/
/// maxkeys`, `maxbytes`), shared with every other program. Everything this project keeps there is
/// in **one keyring of its own**, described ``keyringName`` (`swift-keychain`) and linked into the
/// user keyring `@u`, so that `keyctl show @u` shows one entry for the project. An unlocked keychain
/// holds **at most two entries** in it, one per lifetime, whatever the number of protection classes:
///
/// | entry | description | payload | lifetime |
/// |---|---|---|---|
/// | WhenUnlocked | `swkc:<keyring id>:wu` | the WhenUnlocked, WhenUnlockedThisDeviceOnly and WhenPasscodeSetThisDeviceOnly class keys | until a lock, the auto-lock timeout (the kernel key's timeout, re-armed on use), or the session's end |
/// | AfterFirstUnlock | `swkc:<keyring id>:afu` | the AfterFirstUnlock and AfterFirstUnlockThisDeviceOnly class keys, then the keychain file's identity and path | until the session ends (the user keyring's lifetime) or the keychain is deleted |
///
/// The payload is `version (1) ‖ count (1) ‖ count × (entry code (1) ‖ key (32))`, followed in the
/// AfterFirstUnlock entry by the keychain file's device and inode numbers (8 bytes each, big-endian)
/// and its path (UTF-8), so that an unlock can withdraw the entries of keychains that no longer exist
/// (``sweep(unlocking:at:)``) without opening any other keychain.
///
/// Locking every keychain (`security lock-keychain -a`) is one `KEYCTL_CLEAR` of the project keyring.
package enum ClassKeyStore {
    /// Where unlocks are kept on this machine.
    package enum Scope: Sendable, Equatable {
        /// The kernel keyring: every process of the user sees the unlock.
        case userSession
        /// This process only (the kernel keyring is unavailable, or refused the key).
        case thisProcess
    }

    /// The entry that holds a class key: one per lifetime.
    package enum Lifetime: String, Sendable, CaseIterable {
        /// WhenUnlocked, WhenUnlockedThisDeviceOnly, WhenPasscodeSetThisDeviceOnly: withdrawn by a lock.
        case whenUnlocked = "wu"
        /// AfterFirstUnlock, AfterFirstUnlockThisDeviceOnly: kept until `lock-keychain -a` or a restart
        /// (the user keyring's lifetime; since Linux 5.3 it outlives the user's processes).
        case afterFirstUnlock = "afu"

        /// The lifetime of the class key of `protection`.
        init(_ protection: ProtectionClass) {
            self = protection.availability == .whenUnlocked ? .whenUnlocked : .afterFirstUnlock
        }
    }

    /// Where unlocks are kept by default on this machine: `.thisProcess` when the kernel keyring
    /// cannot be used at all.
    package static var scope: Scope { KernelKeyring.isAvailable ? .userSession : .thisProcess }

    /// The description of the project's keyring in `@u`: `$KEYCHAIN_KEYRING` when set (the test
    /// suites set it, so that they never touch the user's own), else `swift-keychain`.
    package static let keyringName: String = {
        if let name = getenv("KEYCHAIN_KEYRING").map({ String(cString: $0) }), !name.isEmpty { return name }
        return "swift-keychain"
    }()

    /// The most entries one unlocked keychain holds in the kernel keyring.
    package static let entriesPerKeychain = Lifetime.allCases.count

    static let payloadVersion: UInt8 = 1
    static let recordBytes = 1 + Sodium.keyBytes
    /// Enough for every class key of one lifetime (and less than a `SecureBytes` arena slot).
    static let keysCapacity = 2 + 3 * recordBytes

    private struct ProcessEntry {
        var keys: [ProtectionClass: ClassKey]
        var expires: UInt64?
        var epoch: Int64
    }

    private static let processEntries = Mutex<[String: ProcessEntry]>([:])
    /// Numbers the in-process entries, so that ``epoch(keyringID:entry:)`` changes across a withdrawal.
    private static let processEpochs = Atomic<Int64>(0)
    /// The project keyring's serial, once found or made; checked again whenever a search misses.
    private static let cachedKeyring = Mutex<KernelKeyring.Serial?>(nil)
    /// Why the kernel last refused to keep a key, and whose (for ``refusalDiagnosis()``).
    private static let lastRefusal = Mutex<(error: KeyringError, keyringID: [UInt8])?>(nil)
    /// Whether an unlock the kernel refuses is kept in this process (the default); see
    /// ``keepsRefusedUnlocksInProcess``.
    private static let processFallback = Atomic<Bool>(true)

    /// Whether an unlock the kernel keyring refuses (or cannot take) is kept in this process's
    /// memory, `true` by default. The Secret Service provider sets it to `false` (tracker issue 24,
    /// item 3): an unlock made there is seen by every process of the user or does not happen, so the
    /// provider never holds class keys that `security lock-keychain` cannot withdraw.
    package static var keepsRefusedUnlocksInProcess: Bool {
        get { processFallback.load(ordering: .relaxed) }
        set { processFallback.store(newValue, ordering: .relaxed) }
    }

    static func description(keyringID: [UInt8], lifetime: Lifetime) -> String {
        "swkc:" + Sodium.hex(keyringID) + ":" + lifetime.rawValue
    }

    // MARK: - Storing and loading

    /// Makes `keys` (class entry → key, all of one lifetime) available; `timeout` seconds (0 = until
    /// the session ends). A later call for the same keychain and lifetime replaces the entry.
    /// - Parameters:
    ///   - keychainPath: recorded in the AfterFirstUnlock entry, for ``sweep(unlocking:at:)``.
    ///   - kernel: `false` keeps them in this process only (and withdraws a kernel entry).
    /// - Returns: where they were kept: `.thisProcess` when the kernel keyring is unavailable or
    ///   refused them (its quota is full, for instance; ``refusalDiagnosis()`` says why). While
    ///   ``keepsRefusedUnlocksInProcess`` is `false`, `.thisProcess` means they were not kept at all.
    @discardableResult
    static func store(
        _ keys: [ProtectionClass: ClassKey], keyringID: [UInt8], lifetime: Lifetime, timeout: UInt32,
        keychainPath: String,
        kernel: Bool = true
    ) -> Scope {
        let name = description(keyringID: keyringID, lifetime: lifetime)
        if !kernel {
            remove(keyringID: keyringID, lifetime: lifetime)
        } else if KernelKeyring.isAvailable {
            switch storeInKernel(keys, name: name, lifetime: lifetime, timeout: timeout, keychainPath: keychainPath) {
            case .success:
                _ = processEntries.withLock { $0.removeValue(forKey: name) }
                return .userSession
            case .failure(let error):
                lastRefusal.withLock { $0 = (error, keyringID) }
            }
        } else {
            lastRefusal.withLock { $0 = nil }
        }
        guard keepsRefusedUnlocksInProcess else {
            _ = processEntries.withLock { $0.removeValue(forKey: name) }
            return .thisProcess
        }
        let expiry = timeout > 0 ? Monotonic.seconds() + UInt64(timeout) : nil
        processEntries.withLock { entries in
            // A refresh of a live entry keeps its epoch; one stored again after a withdrawal gets a new one.
            let epoch =
                live(entries[name]).map(\.epoch) ?? (1 << 32) + processEpochs.add(1, ordering: .relaxed).newValue
            entries[name] = ProcessEntry(keys: keys, expires: expiry, epoch: epoch)
        }
        return .thisProcess
    }

    private static func storeInKernel(
        _ keys: [ProtectionClass: ClassKey], name: String, lifetime: Lifetime, timeout: UInt32, keychainPath: String
    ) -> Result<Void, KeyringError> {
        let path = lifetime == .afterFirstUnlock ? fileRecord(keychainPath) : []
        let payload = SecureBytes(count: 2 + keys.count * recordBytes + path.count) { buffer in
            buffer[0] = payloadVersion
            buffer[1] = UInt8(keys.count)
            var offset = 2
            for (protection, key) in keys.sorted(by: { $0.key.code < $1.key.code }) {
                buffer[offset] = UInt8(protection.code)
                key.bytes.withUnsafeBytes { bytes in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[offset + 1..<offset + recordBytes]).copyMemory(
                        from: bytes)
                }
                offset += recordBytes
            }
            for (index, byte) in path.enumerated() { buffer[offset + index] = byte }
        }
        // A keyring replaced by another process at the same moment (two first unlocks of the session)
        // is found again and the key stored into the one that stays linked.
        for _ in 0..<2 {
            let keyring: KernelKeyring.Serial
            switch projectKeyring(create: true) {
            case .success(let found): keyring = found
            case .failure(let error): return .failure(error)
            }
            let stored = payload.withUnsafeBytes { KernelKeyring.store($0, description: name, in: keyring) }
            let key: KernelKeyring.Serial
            switch stored {
            case .success(let serial): key = serial
            case .failure(let error): return .failure(error)
            }
            KernelKeyring.setTimeout(key, seconds: timeout)
            // Read back: only an entry every process of the user can read counts as kept for them.
            guard KernelKeyring.isReadableByUser(key) else {
                KernelKeyring.withdraw(key, from: keyring)
                return .failure(KeyringError(code: EACCES))
            }
            if KernelKeyring.findKeyring(named: keyringName) == keyring { return .success(()) }
            cachedKeyring.withLock { $0 = nil }
        }
        return .failure(KeyringError(code: EAGAIN))
    }

    /// The class keys of one lifetime, or `nil` when they are locked or expired.
    /// - Parameter rearm: re-arms the kernel timeout to this many seconds (the auto-lock inactivity
    ///   timeout, as macOS counts it); `nil` leaves it.
    static func load(keyringID: [UInt8], lifetime: Lifetime, rearm: UInt32? = nil) -> [ProtectionClass: ClassKey]? {
        load(description: description(keyringID: keyringID, lifetime: lifetime), rearm: rearm)
    }

    /// ``load(keyringID:lifetime:rearm:)`` by the entry's ``description(keyringID:lifetime:)``, which a
    /// caller that loads often keeps (``SessionKeys``: every transaction that needs a class key).
    static func load(description name: String, rearm: UInt32? = nil) -> [ProtectionClass: ClassKey]? {
        if KernelKeyring.isAvailable, let key = kernelEntry(name) {
            if let keys = readPayload(key).flatMap(parseKeys) {
                if let rearm { KernelKeyring.setTimeout(key, seconds: rearm) }
                return keys
            }
        }
        return processEntries.withLock { entries -> [ProtectionClass: ClassKey]? in
            guard let entry = live(entries[name]) else {
                entries[name] = nil
                return nil
            }
            if let rearm, rearm > 0 { entries[name]?.expires = Monotonic.seconds() + UInt64(rearm) }
            return entry.keys
        }
    }

    /// The class key of `protection`, or `nil` when it is locked or expired.
    static func load(keyringID: [UInt8], protection: ProtectionClass) -> ClassKey? {
        load(description: description(keyringID: keyringID, lifetime: Lifetime(protection)), protection: protection)
    }

    /// The class key of `protection` from the entry named `name` (of `protection`'s lifetime), or `nil`
    /// when it is locked or expired; as ``load(description:rearm:)`` but only this key is copied out of
    /// the entry (one protected copy, not one per key the entry holds, and no dictionary of them).
    static func load(description name: String, protection: ProtectionClass, rearm: UInt32? = nil) -> ClassKey? {
        if KernelKeyring.isAvailable, let key = kernelEntry(name), let payload = readPayload(key),
            let parsed = parseKey(payload, protection)
        {
            if let rearm { KernelKeyring.setTimeout(key, seconds: rearm) }
            if case .found(let classKey) = parsed { return classKey }
            return nil
        }
        return processEntries.withLock { entries -> ClassKey? in
            guard let entry = live(entries[name]) else {
                entries[name] = nil
                return nil
            }
            if let rearm, rearm > 0 { entries[name]?.expires = Monotonic.seconds() + UInt64(rearm) }
            return entry.keys[protection]
        }
    }

    /// A number that stays the same while the class key of `protection` stays available and changes
    /// once it has been withdrawn (locked, expired) and stored again; `nil` while it is unavailable. No
    /// key bytes are read.
    ///
    /// Kernel entries give their serial number (kept when the entry is refreshed or replaced);
    /// in-process entries a counter above 2³² (kernel serials are below 2³¹), so the two never collide.
    static func epoch(keyringID: [UInt8], protection: ProtectionClass) -> Int64? {
        epoch(description: description(keyringID: keyringID, lifetime: Lifetime(protection)), protection: protection)
    }

    /// ``epoch(keyringID:protection:)`` by the entry's ``description(keyringID:lifetime:)`` (of the lifetime
    /// of `protection`), which ``SessionKeys`` keeps.
    static func epoch(description name: String, protection: ProtectionClass) -> Int64? {
        if KernelKeyring.isAvailable, let serial = kernelEntry(name) { return Int64(serial) }
        return processEntries.withLock { entries -> Int64? in
            guard let stored = live(entries[name]) else {
                entries[name] = nil
                return nil
            }
            return stored.keys[protection] == nil ? nil : stored.epoch
        }
    }

    /// Where this keychain's entry of `lifetime` is kept now: `.userSession` in the kernel keyring,
    /// `.thisProcess` in this process's memory, `nil` when it is not available.
    static func placement(keyringID: [UInt8], lifetime: Lifetime) -> Scope? {
        let name = description(keyringID: keyringID, lifetime: lifetime)
        if KernelKeyring.isAvailable, kernelEntry(name) != nil { return .userSession }
        return processEntries.withLock { live($0[name]) } == nil ? nil : .thisProcess
    }

    /// Withdraws this keychain's entry of `lifetime` at once, from the kernel and from this process.
    static func remove(keyringID: [UInt8], lifetime: Lifetime) {
        let name = description(keyringID: keyringID, lifetime: lifetime)
        if KernelKeyring.isAvailable, let (key, keyring) = kernelEntryAndKeyring(name) {
            KernelKeyring.withdraw(key, from: keyring)
        }
        _ = processEntries.withLock { $0.removeValue(forKey: name) }
    }

    // MARK: - Every keychain

    /// Locks every keychain of the user at once, as a logout does: one `KEYCTL_CLEAR` of the
    /// project keyring withdraws every entry (WhenUnlocked and AfterFirstUnlock alike), this
    /// process forgets the entries it kept itself (`security lock-keychain -a`), and the emptied
    /// project keyring is unlinked from `@u`, so that nothing of the project stays there (the next
    /// unlock makes it again; a process storing into it meanwhile finds it gone and stores again).
    package static func lockAll() {
        if KernelKeyring.isAvailable, case .success(let keyring) = projectKeyring(create: false) {
            KernelKeyring.clear(keyring)
            cachedKeyring.withLock { cached in
                KernelKeyring.unlink(keyring, from: KernelKeyring.userKeyring)
                cached = nil
            }
        }
        processEntries.withLock { $0.removeAll() }
    }

    /// Unlinks the project keyring from `@u` when it holds no entry any more, as ``lockAll()`` does
    /// (`security delete-keychain` of the last unlocked keychain), so that nothing of the project stays
    /// there. A process storing into it at that instant finds it gone on its next store and makes it again.
    package static func unlinkProjectKeyringIfEmpty() {
        guard KernelKeyring.isAvailable, case .success(let keyring) = projectKeyring(create: false),
            KernelKeyring.members(of: keyring).isEmpty
        else { return }
        cachedKeyring.withLock { cached in
            KernelKeyring.unlink(keyring, from: KernelKeyring.userKeyring)
            cached = nil
        }
    }

    /// A keychain that holds entries in the kernel keyring.
    package struct Holder: Sendable, Equatable {
        /// The keychain's keyring id, as hex (the middle of the entries' descriptions).
        package let keyringID: String
        /// The keychain file recorded in its AfterFirstUnlock entry, `nil` when it has none.
        package let path: String?
        /// How many entries it holds (1 or 2).
        package let entries: Int
    }

    /// Every keychain holding entries in the project keyring, by keyring id.
    package static func holders() -> [Holder] {
        guard KernelKeyring.isAvailable, case .success(let keyring) = projectKeyring(create: false) else { return [] }
        var counts: [String: Int] = [:]
        var paths: [String: String] = [:]
        for member in KernelKeyring.members(of: keyring) {
            guard let (id, lifetime) = parse(KernelKeyring.describe(member)) else { continue }
            counts[id, default: 0] += 1
            if lifetime == .afterFirstUnlock { paths[id] = recordedFile(member)?.path }
        }
        return counts.keys.sorted().map { Holder(keyringID: $0, path: paths[$0], entries: counts[$0]!) }
    }

    /// Withdraws the entries of keychains that no longer exist: an AfterFirstUnlock entry whose
    /// recorded file is gone, or was removed and made again (another inode), goes with its
    /// WhenUnlocked partner; a WhenUnlocked entry without an AfterFirstUnlock one (which an unlock
    /// always stores first) goes too. A file that cannot be checked (permissions) is kept: only a
    /// sure answer withdraws another keychain's unlock. Entries of the layout before tracker issue
    /// 12 (`swkc:<id>:<class>` directly in `@u`) are withdrawn as well.
    ///
    /// - Parameters:
    ///   - keyringID: the keychain being unlocked, whose file is `path`: entries recorded for the
    ///     same path or file under another keyring id belong to a keychain that was there before
    ///     (removed and made again, even when the file system gave the new file the old inode).
    package static func sweep(unlocking keyringID: [UInt8]? = nil, at path: String? = nil) {
        guard KernelKeyring.isAvailable else { return }
        for member in KernelKeyring.members(of: KernelKeyring.userKeyring) {
            guard let (type, description) = KernelKeyring.describe(member), type == "user" else { continue }
            if isLegacyDescription(description) { KernelKeyring.withdraw(member, from: KernelKeyring.userKeyring) }
        }
        guard case .success(let keyring) = projectKeyring(create: false) else { return }
        var unlocked: [String: KernelKeyring.Serial] = [:]
        var afterFirstUnlock: [String: KernelKeyring.Serial] = [:]
        for member in KernelKeyring.members(of: keyring) {
            guard let described = KernelKeyring.describe(member) else {
                // Expired (an auto-lock timeout passed) or revoked: unlink it now, before the garbage
                // collector drops the link and keeps its 4 bytes of quota.
                KernelKeyring.unlink(member, from: keyring)
                continue
            }
            guard let (id, lifetime) = parse(described) else { continue }
            switch lifetime {
            case .whenUnlocked: unlocked[id] = member
            case .afterFirstUnlock: afterFirstUnlock[id] = member
            }
        }
        let current = keyringID.map(Sodium.hex)
        let currentFile = path.map(FileSystem.identity)
        for (id, member) in afterFirstUnlock {
            guard let (identity, recordedPath) = recordedFile(member) else { continue }
            let replaced = current != nil && id != current && (recordedPath == path || identity == currentFile)
            if !replaced {
                switch FileSystem.identity(recordedPath) {
                case .missing: break
                case .file(let device, let inode) where identity != .file(device: device, inode: inode): break
                default: continue
                }
            }
            if let partner = unlocked.removeValue(forKey: id) { KernelKeyring.withdraw(partner, from: keyring) }
            KernelKeyring.withdraw(member, from: keyring)
        }
        for (id, member) in unlocked where afterFirstUnlock[id] == nil { KernelKeyring.withdraw(member, from: keyring) }
    }

    // MARK: - Diagnosis

    /// Why unlocks are kept by this process only, and what to do about it: one paragraph for the
    /// tools to print once. Names the cause (the kernel keyring is unavailable; the user's quota is
    /// full, with the figures of `/proc/key-users`; or permission was denied), says what other
    /// processes see, checked by reading the refused keychain's entries back from the kernel, which
    /// keychains hold entries, and the fix. While ``keepsRefusedUnlocksInProcess`` is `false` (the
    /// Secret Service provider), it says that the unlock did not happen.
    package static func refusalDiagnosis() -> String {
        let kept = keepsRefusedUnlocksInProcess
        guard KernelKeyring.isAvailable else {
            return "the kernel keyring is unavailable to this process (a seccomp filter or container forbids keyctl), "
                + (kept
                    ? "so unlocks last only for the process that unlocks; other programs see the keychain locked"
                    : "so the unlock was not kept: every program, this one included, sees the keychain locked")
        }
        let refusal = lastRefusal.withLock { $0 }
        var text: String
        switch refusal?.error.code {
        case EDQUOT?:
            text = "the kernel refused to keep the unlock because your key quota is full"
            if let usage = KeyQuota.current() {
                text +=
                    " (\(usage.keys)/\(usage.maxKeys) keys, \(usage.bytes)/\(usage.maxBytes) bytes in /proc/key-users)"
            }
        case EACCES?:
            text =
                "the kernel keyring denied this process permission to share the unlock (errno 13, EACCES): its session"
                + " keyring does not reach your user keyring (a `su` shell that ended, or `keyctl session`), and your"
                + " user keyring could not be linked into the process keyring instead"
        case let code:
            text = "the kernel keyring refused to keep the unlock (errno \(code ?? 0))"
        }
        text += kept ? ", so it lasts only for this process" : ", so the unlock was not kept"
        text += "; " + visibility(keyringID: refusal?.keyringID, thisProcess: kept) + "."
        let holders = holders()
        if holders.isEmpty {
            text += " This project holds no entries there: free keys other programs hold (`keyctl show @u`)."
        } else {
            let named = holders.map { $0.path ?? "keyring id \($0.keyringID)" }
            text +=
                " Keychains holding entries in the keyring \"\(keyringName)\": " + named.joined(separator: ", ")
                + ". Free them with `security lock-keychain -a`, or free keys other programs hold (`keyctl show @u`)."
        }
        return text
    }

    /// What the user's other processes see of the refused keychain, from the project keyring's
    /// members read back from the kernel: an entry of it still linked there is readable by every
    /// process that possesses `@u` (a login session's processes do), whatever its permissions.
    private static func visibility(keyringID: [UInt8]?, thisProcess: Bool) -> String {
        var readable: [Lifetime] = []
        if let keyringID, case .success(let keyring) = projectKeyring(create: false) {
            let present = Set(KernelKeyring.members(of: keyring).compactMap { KernelKeyring.describe($0)?.description })
            readable = Lifetime.allCases.filter { present.contains(description(keyringID: keyringID, lifetime: $0)) }
        }
        guard !readable.isEmpty else {
            return thisProcess
                ? "other programs still see the keychain locked (the kernel keyring holds no entry of it they can read)"
                : "every program, this one included, sees the keychain locked (the kernel keyring holds no entry of it)"
        }
        let classes = readable.map { $0 == .whenUnlocked ? "WhenUnlocked" : "AfterFirstUnlock" }.joined(
            separator: " and ")
        return
            "yet an earlier unlock left the \(classes) entry in the kernel keyring, so other programs read those items"
            + " until `security lock-keychain` locks it"
    }

    // MARK: - Private

    private static func live(_ entry: ProcessEntry?) -> ProcessEntry? {
        guard let entry else { return nil }
        if let expires = entry.expires, Monotonic.seconds() >= expires { return nil }
        return entry
    }

    /// The project keyring: found under `@u`, or made there when `create` is true.
    ///
    /// Making a keyring replaces one with the same name in `@u` (and drops what it held), so the
    /// search and the creation happen under one lock: threads of a process never make two. Two
    /// processes making it in the same microseconds are caught by ``storeInKernel``'s check.
    private static func projectKeyring(create: Bool) -> Result<KernelKeyring.Serial, KeyringError> {
        cachedKeyring.withLock { cached -> Result<KernelKeyring.Serial, KeyringError> in
            if let found = KernelKeyring.findKeyring(named: keyringName) {
                cached = found
                return .success(found)
            }
            guard create else { return .failure(KeyringError(code: ENOKEY)) }
            let made = KernelKeyring.createKeyring(named: keyringName)
            if case .success(let serial) = made { cached = serial }
            return made
        }
    }

    /// The kernel entry described `name` in the project keyring, or `nil`. Searches the cached
    /// keyring first; a miss checks whether the keyring was replaced meanwhile.
    private static func kernelEntry(_ name: String) -> KernelKeyring.Serial? {
        kernelEntryAndKeyring(name)?.key
    }

    /// ``kernelEntry(_:)`` and the keyring it was found in.
    private static func kernelEntryAndKeyring(_ name: String) -> (
        key: KernelKeyring.Serial, keyring: KernelKeyring.Serial
    )? {
        let cached = cachedKeyring.withLock { $0 }
        if let cached, let key = KernelKeyring.search(description: name, in: cached) { return (key, cached) }
        guard case .success(let current) = projectKeyring(create: false), current != cached else { return nil }
        return KernelKeyring.search(description: name, in: current).map { ($0, current) }
    }

    /// How many key records a payload holds (version, count, then the records), or `nil` when its version,
    /// count or length is wrong.
    private static func recordCount(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2, bytes[0] == payloadVersion else { return nil }
        let count = Int(bytes[1])
        guard count > 0, 2 + count * recordBytes <= bytes.count else { return nil }
        return count
    }

    /// What a payload holds for one protection class.
    private enum PayloadKey {
        case found(ClassKey)
        /// The payload parses and holds no key of that class.
        case absent
    }

    /// The key of `protection` in a payload; `nil` when the payload does not parse, as ``parseKeys(_:)``.
    private static func parseKey(_ payload: SecureBytes, _ protection: ProtectionClass) -> PayloadKey? {
        payload.withUnsafeBytes { bytes -> PayloadKey? in
            guard let count = recordCount(bytes) else { return nil }
            for index in 0..<count {
                let offset = 2 + index * recordBytes
                if bytes[offset] == UInt8(protection.code) {
                    return .found(ClassKey(SecureBytes(copying: bytes[offset + 1..<offset + recordBytes])))
                }
            }
            return .absent
        }
    }

    /// The class keys in a payload, or `nil` when it is not one of ours.
    private static func parseKeys(_ payload: SecureBytes) -> [ProtectionClass: ClassKey]? {
        payload.withUnsafeBytes { bytes -> [ProtectionClass: ClassKey]? in
            guard let count = recordCount(bytes) else { return nil }
            var keys: [ProtectionClass: ClassKey] = [:]
            for index in 0..<count {
                let offset = 2 + index * recordBytes
                if let protection = ProtectionClass(code: Int64(bytes[offset])) {
                    keys[protection] = ClassKey(SecureBytes(copying: bytes[offset + 1..<offset + recordBytes]))
                }
            }
            return keys
        }
    }

    /// A whole payload, exactly, in protected memory; `nil` when the key cannot be read. A
    /// WhenUnlocked entry takes one read; the kernel copies nothing into a buffer that is too small,
    /// so any other length (an AfterFirstUnlock entry: keys and a path) takes a second, exact one.
    private static func readPayload(_ key: KernelKeyring.Serial) -> SecureBytes? {
        var length: Int?
        let first = SecureBytes(count: keysCapacity) { buffer in length = KernelKeyring.read(key, into: buffer) }
        guard let length, length >= 2 else { return nil }
        if length == keysCapacity { return first }
        var read: Int?
        let whole = SecureBytes(count: length) { buffer in read = KernelKeyring.read(key, into: buffer) }
        return read == length ? whole : nil
    }

    /// What an AfterFirstUnlock entry records after its keys: the keychain file's device and inode
    /// numbers, then its path.
    private static func fileRecord(_ path: String) -> [UInt8] {
        var (device, inode) = (UInt64.max, UInt64.max)
        if case .file(let fileDevice, let fileInode) = FileSystem.identity(path) {
            (device, inode) = (fileDevice, fileInode)
        }
        return withUnsafeBytes(of: device.bigEndian, Array.init) + withUnsafeBytes(of: inode.bigEndian, Array.init)
            + Array(path.utf8)
    }

    /// The file an AfterFirstUnlock entry records (``fileRecord(_:)``), or `nil`.
    private static func recordedFile(_ key: KernelKeyring.Serial) -> (identity: FileSystem.Identity, path: String)? {
        guard let payload = readPayload(key) else { return nil }
        return payload.withUnsafeBytes { bytes -> (FileSystem.Identity, String)? in
            let start = 2 + Int(bytes[1]) * recordBytes
            guard start + 16 < bytes.count else { return nil }
            let number = { (offset: Int) in bytes[offset..<offset + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            let identity = FileSystem.Identity.file(device: number(start), inode: number(start + 8))
            return (identity, String(decoding: bytes[(start + 16)...], as: UTF8.self))
        }
    }

    /// `(keyring id, lifetime)` of one of our entries (`swkc:<32 hex>:wu|afu`), or `nil`.
    private static func parse(_ described: (type: String, description: String)?) -> (String, Lifetime)? {
        guard let described, described.type == "user" else { return nil }
        let parts = described.description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "swkc", let lifetime = Lifetime(rawValue: String(parts[2])) else {
            return nil
        }
        return (String(parts[1]), lifetime)
    }

    /// `swkc:<32 hex>:<class code>`: one class key per entry, directly in `@u` (before issue 12).
    private static func isLegacyDescription(_ description: String) -> Bool {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "swkc" && parts[1].count == 32 && Int(parts[2]) != nil
    }
}
