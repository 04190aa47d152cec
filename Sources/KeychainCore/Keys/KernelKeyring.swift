internal import CKeyring

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The Linux kernel's key retention service (`keyrings(7)`): the system calls the class key store
/// (``ClassKeyStore``) is built on, and nothing else.
///
/// Every key and keyring made here gets the permissions possessor-all and user-all (no group or
/// other bits): any process of the same user may use them whether or not its session keyring
/// reaches the user keyring (`possession`), which matches the threat model (a process of the same
/// user can already read the keychain file and ptrace the unlocking process).
package enum KernelKeyring {
    /// A key's serial number.
    package typealias Serial = Int32

    /// `KEY_SPEC_USER_KEYRING`: the user keyring `@u`, kept until the user's last process ends.
    package static let userKeyring: Serial = -4
    /// `KEY_SPEC_PROCESS_KEYRING`: this process's keyring `@p`, made on first use, gone at exit.
    private static let processKeyring: Serial = -2

    private static let getKeyringID: Int32 = 0  // KEYCTL_GET_KEYRING_ID
    private static let setPermissions: Int32 = 5  // KEYCTL_SETPERM
    private static let linkKey: Int32 = 8  // KEYCTL_LINK
    private static let clearKeyring: Int32 = 7  // KEYCTL_CLEAR
    private static let unlinkKey: Int32 = 9  // KEYCTL_UNLINK
    private static let setTimeoutOperation: Int32 = 15  // KEYCTL_SET_TIMEOUT
    private static let invalidateKey: Int32 = 21  // KEYCTL_INVALIDATE
    /// Possessor: all; user: all.
    private static let permissions: Int = 0x3f3f_0000
    /// The user bits other processes of the user need to find and read a key: view, read, search.
    private static let userReadable: UInt32 = 0x000b_0000

    /// Whether this process may use the kernel keyring (seccomp filters, some containers and old
    /// kernels forbid it). Asks for the user keyring's serial, which the kernel makes on first use
    /// like every other process's would; no key of ours is created.
    package static let isAvailable: Bool = ckeyring_keyctl2(getKeyringID, Int(userKeyring), 1) > 0

    /// The keyring described `name` linked (directly or not) under `parent`, or `nil`.
    package static func findKeyring(named name: String, in parent: Serial = userKeyring) -> Serial? {
        let id = ckeyring_search(parent, "keyring", name)
        return id > 0 ? Serial(truncatingIfNeeded: id) : nil
    }

    /// Creates a keyring described `name` and links it into `parent`, replacing a link to a keyring
    /// with the same description there.
    /// - Returns: its serial, or the `errno` of the refusal.
    package static func createKeyring(named name: String, in parent: Serial = userKeyring) -> Result<
        Serial, KeyringError
    > {
        let id = ckeyring_add_key("keyring", name, nil, 0, parent)
        return permitted(id, in: parent)
    }

    /// Stores `payload` as a `user` key described `description` in `keyring`, replacing the payload
    /// of an existing key with that description (which keeps its serial number).
    /// - Returns: the key's serial, or the `errno` of the refusal (`EDQUOT`: the quota is full).
    package static func store(
        _ payload: UnsafeRawBufferPointer, description: String, in keyring: Serial
    ) -> Result<Serial, KeyringError> {
        let id = ckeyring_add_key("user", description, payload.baseAddress, payload.count, keyring)
        return permitted(id, in: keyring)
    }

    /// The `user` key described `description` in `keyring` (or a keyring under it), or `nil` when it
    /// is absent, expired or revoked.
    package static func search(description: String, in keyring: Serial) -> Serial? {
        let id = ckeyring_search(keyring, "user", description)
        return id > 0 ? Serial(truncatingIfNeeded: id) : nil
    }

    /// Reads up to `buffer.count` bytes of a key's payload into `buffer`.
    /// - Returns: the payload's whole length (which may exceed `buffer.count`), or `nil` when the key
    ///   cannot be read (gone, expired, revoked).
    package static func read(_ key: Serial, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let length = ckeyring_read(Int(key), buffer.baseAddress, buffer.count)
        return length >= 0 ? length : nil
    }

    /// A non-secret payload (a keyring's list of members), whole.
    private static func readPublic(_ key: Serial) -> [UInt8]? {
        let length = ckeyring_read(Int(key), nil, 0)
        guard length >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        let read = bytes.withUnsafeMutableBytes { ckeyring_read(Int(key), $0.baseAddress, $0.count) }
        guard read >= 0 else { return nil }
        return Array(bytes.prefix(min(read, length)))
    }

    /// The keys linked directly in `keyring`.
    package static func members(of keyring: Serial) -> [Serial] {
        guard let bytes = readPublic(keyring) else { return [] }
        return stride(from: 0, to: bytes.count - 3, by: 4).map { offset in
            bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: Serial.self) }
        }
    }

    /// A key's type and description, or `nil` when it cannot be viewed.
    package static func describe(_ key: Serial) -> (type: String, description: String)? {
        var buffer = [CChar](repeating: 0, count: 4200)
        let length = buffer.withUnsafeMutableBufferPointer { ckeyring_describe(Int(key), $0.baseAddress, $0.count) }
        guard length > 0, length <= buffer.count else { return nil }
        // "type;uid;gid;perm;description"
        let text = String(decoding: buffer.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5 else { return nil }
        return (String(fields[0]), String(fields[4]))
    }

    /// Whether every process of the user can find and read `key`: its permissions (read back from
    /// the kernel) give the user view, read and search, whatever its possessor bits.
    package static func isReadableByUser(_ key: Serial) -> Bool {
        var buffer = [CChar](repeating: 0, count: 4200)
        let length = buffer.withUnsafeMutableBufferPointer { ckeyring_describe(Int(key), $0.baseAddress, $0.count) }
        guard length > 0, length <= buffer.count else { return false }
        let text = String(decoding: buffer.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5, let bits = UInt32(fields[3], radix: 16) else { return false }
        return bits & userReadable == userReadable
    }

    /// Makes `key` expire `seconds` from now (0: never).
    @discardableResult
    package static func setTimeout(_ key: Serial, seconds: UInt32) -> Bool {
        ckeyring_keyctl2(setTimeoutOperation, Int(key), Int(seconds)) == 0
    }

    /// Withdraws `key` at once, from every keyring that links it (`KEYCTL_INVALIDATE`); the kernel
    /// frees it and its quota right away, except the 4 bytes its link took in each keyring: the
    /// garbage collector drops dead links without giving those back (seen on Linux 6.18), so a key
    /// whose keyring is known is withdrawn with ``withdraw(_:from:)`` instead.
    package static func invalidate(_ key: Serial) {
        _ = ckeyring_keyctl2(invalidateKey, Int(key), 0)
    }

    /// Unlinks `key` from `keyring` (which gives back the link's share of the quota), then
    /// invalidates it, so that no other link keeps it alive.
    package static func withdraw(_ key: Serial, from keyring: Serial) {
        unlink(key, from: keyring)
        invalidate(key)
    }

    /// Unlinks every key in `keyring` (`KEYCTL_CLEAR`): one call, which also gives back the quota of
    /// links the garbage collector dropped.
    @discardableResult
    package static func clear(_ keyring: Serial) -> Bool {
        ckeyring_keyctl2(clearKeyring, Int(keyring), 0) == 0
    }

    /// The key `id` that `add_key` returned into `keyring`, once it has ``permissions``.
    ///
    /// A new key gets the kernel's default permissions (possessor all, user view only), and only a
    /// possessor may change them. A process whose session keyring does not reach `@u` (revoked when
    /// a `su` shell ended, or replaced by `keyctl session`) possesses nothing under it (tracker issue
    /// 24, item 3): the key was written, but the user's other processes could not read it, while
    /// processes that possess `@u` could. Such a process links `@u` into its own process keyring
    /// (``gainPossession()``) and tries again. A key whose permissions still cannot be set is
    /// unlinked (the one change the keyring's user write permission allows), so that no half-visible
    /// key stays behind.
    private static func permitted(_ id: Int, in keyring: Serial) -> Result<Serial, KeyringError> {
        guard id > 0 else { return .failure(KeyringError(code: errno)) }
        var status = ckeyring_keyctl2(setPermissions, id, permissions)
        var code = errno
        if status != 0, code == EACCES, gainPossession() {
            status = ckeyring_keyctl2(setPermissions, id, permissions)
            code = errno
        }
        guard status == 0 else {
            _ = ckeyring_keyctl2(unlinkKey, id, Int(keyring))
            _ = ckeyring_keyctl2(invalidateKey, id, 0)
            return .failure(KeyringError(code: code))
        }
        return .success(Serial(truncatingIfNeeded: id))
    }

    /// Links `@u` into this process's keyring, so that this process possesses every key under it
    /// whatever became of its session keyring. The process keyring costs one key of the user's quota
    /// while the process lives; only processes that need it make it.
    /// - Returns: `false` when the kernel refused (the quota is full, for instance).
    private static func gainPossession() -> Bool {
        ckeyring_keyctl2(getKeyringID, Int(processKeyring), 1) > 0
            && ckeyring_keyctl2(linkKey, Int(userKeyring), Int(processKeyring)) == 0
    }

    /// Unlinks `key` from `keyring`.
    package static func unlink(_ key: Serial, from keyring: Serial) {
        _ = ckeyring_keyctl2(unlinkKey, Int(key), Int(keyring))
    }
}

/// Why the kernel refused a keyring call: its `errno`.
package struct KeyringError: Error, Sendable, Equatable {
    /// The `errno` value.
    package let code: Int32

    /// The user's key quota (`/proc/sys/kernel/keys/maxkeys`, `maxbytes`) is full.
    package var isQuotaFull: Bool { code == EDQUOT }
}
