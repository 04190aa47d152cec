/// The fixed header at the start of a backup file (docs/BACKUP-FORMAT.md).
///
/// ```
/// offset size
///      0    8  magic "SWKCBKUP"
///      8    2  format version, big-endian (4; 1 to 3 are still read)
///     10    2  flags (0)
///     12    4  KDF algorithm, big-endian (2: Argon2id v1.3, crypto_pwhash_ALG_ARGON2ID13)
///     16    8  Argon2id opslimit, big-endian
///     24    8  Argon2id memlimit in bytes, big-endian
///     32   16  Argon2id salt
///     48   24  crypto_secretstream_xchacha20poly1305 header
///     72   16  key check: BLAKE2b-128 keyed with the passphrase key, of "swkc.backup.key-check.v1"
///     88   16  checksum: unkeyed BLAKE2b-128 of bytes 0..<88
/// ```
/// The whole header is also the associated data of the stream's first message, so it is
/// authenticated by the passphrase key; the checksum only tells corruption from a wrong passphrase.
package struct BackupHeader: Sendable, Equatable {
    static let magic: [UInt8] = Array("SWKCBKUP".utf8)
    /// The format version this build writes: 4, which may also hold items' sync identities (message kind 7).
    package static let currentVersion: UInt16 = 4
    /// The first version with sync identities (kind 7); before it, kind 7 is refused as malformed.
    package static let syncIdentityVersion: UInt16 = 4
    /// The first version with Secret Service items and the keychain's collection label (message kinds 5 and 6),
    /// whose end message counts them; still read.
    package static let secretServiceVersion: UInt16 = 3
    /// The version before Secret Service records, still read: item attributes are item records
    /// (`docs/RECORD-FORMAT.md`), and kinds 5 and 6 are refused as malformed.
    package static let recordVersion: UInt16 = 2
    /// The version before item records, still read: item attributes are binary property lists.
    package static let legacyVersion: UInt16 = 1
    static let argon2id: UInt32 = 2
    /// Bytes in the header.
    package static let size = 104

    /// Upper bound accepted for memlimit when reading: 8 GiB, well above anything sensible,
    /// so a corrupt header cannot make restore try to allocate absurd amounts.
    static let maximumMemLimit: UInt64 = 8 << 30

    package var parameters: KDFParameters
    package var salt: [UInt8]
    var streamHeader: [UInt8]
    var keyCheck: [UInt8]
    /// The format version read from the file (``currentVersion`` for a header this build makes).
    package var version = BackupHeader.currentVersion

    /// The header's bytes, checksum included.
    func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes += Self.bigEndian(version)
        bytes += Self.bigEndian(UInt16(0))
        bytes += Self.bigEndian(Self.argon2id)
        bytes += Self.bigEndian(parameters.opsLimit)
        bytes += Self.bigEndian(UInt64(parameters.memLimit))
        bytes += salt
        bytes += streamHeader
        bytes += keyCheck
        bytes += Sodium.hash(bytes, length: 16)
        return bytes
    }

    /// Parses and checks a header.
    /// - Throws: `.decode` for a file that is not a backup, a damaged header or out-of-range
    ///   parameters; `.wrongSecVersion` for a format version this build does not read.
    static func decode(_ bytes: [UInt8]) throws(KeychainFailure) -> BackupHeader {
        guard bytes.count == size else {
            throw KeychainFailure(.decode, "the file is too short to be a keychain backup")
        }
        guard Array(bytes[0..<8]) == magic else {
            throw KeychainFailure(.decode, "the file is not a swift-keychain backup")
        }
        guard Sodium.hash(Array(bytes[0..<88]), length: 16) == Array(bytes[88..<104]) else {
            throw KeychainFailure(.decode, "the backup's header is damaged")
        }
        let version = UInt16(integer(bytes, 8, 2))
        guard (legacyVersion...currentVersion).contains(version) else {
            throw KeychainFailure(
                .wrongSecVersion,
                "the backup has format version \(version); this build reads versions \(legacyVersion) to "
                    + "\(currentVersion)")
        }
        guard integer(bytes, 10, 2) == 0, integer(bytes, 12, 4) == UInt64(argon2id) else {
            throw KeychainFailure(.decode, "the backup uses flags or a key derivation this build does not know")
        }
        let ops = integer(bytes, 16, 8)
        let mem = integer(bytes, 24, 8)
        let parameters = KDFParameters(opsLimit: ops, memLimit: Int(clamping: mem))
        guard parameters.isValid, ops <= Sodium.passwordHashOpsLimitMax,
            mem <= min(maximumMemLimit, Sodium.passwordHashMemLimitMax)
        else { throw KeychainFailure(.decode, "the backup's key derivation parameters are out of range") }
        return BackupHeader(
            parameters: parameters, salt: Array(bytes[32..<48]), streamHeader: Array(bytes[48..<72]),
            keyCheck: Array(bytes[72..<88]), version: version)
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }

    static func integer(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64 {
        bytes[offset..<(offset + count)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

/// A backup file whose passphrase was checked (``Keystore/unlockBackup(at:passphrase:)``): its header
/// and the keys derived from the passphrase, for ``Keystore/restore(_:policy:)``.
package struct UnlockedBackup: Sendable {
    let path: String
    let header: BackupHeader
    let headerBytes: [UInt8]
    let keys: BackupKeys
}

/// The keys of one backup, derived from the passphrase and the header's salt.
struct BackupKeys: Sendable {
    /// Key of the secretstream.
    let streamKey: SecureBytes
    /// The header's key check value (stored in the clear; it reveals nothing the first message does not).
    let keyCheck: [UInt8]

    /// Runs Argon2id (slow on purpose; never inside a transaction).
    /// - Throws: `.allocate` when libsodium cannot get the memory the parameters ask for.
    static func derive(passphrase: SecureBytes, salt: [UInt8], parameters: KDFParameters) throws(KeychainFailure)
        -> BackupKeys
    {
        guard
            let root = Sodium.passwordHash(
                passphrase, salt: salt, opsLimit: parameters.opsLimit, memLimit: parameters.memLimit)
        else { throw KeychainFailure(.allocate, "Argon2id could not run with the backup's parameters") }
        let empty = SecureBytes(count: 0) { _ in }
        return BackupKeys(
            streamKey: Sodium.combine(root, empty, context: "swkc.backup.stream.v1"),
            keyCheck: Sodium.keyedHash(Array("swkc.backup.key-check.v1".utf8), key: root, length: 16))
    }

    /// The key that seals ThisDeviceOnly records: the device key combined with this backup's salt.
    static func deviceBindingKey(deviceKey: SecureBytes, salt: [UInt8]) -> SecureBytes {
        Sodium.combine(deviceKey, SecureBytes(copying: salt), context: "swkc.backup.device.v1")
    }

    /// A 16-byte value that tells, inside the stream, whether the restoring installation is the one that made the backup.
    static func deviceCheck(_ bindingKey: SecureBytes) -> [UInt8] {
        Sodium.keyedHash(Array("swkc.backup.device-check.v1".utf8), key: bindingKey, length: 16)
    }
}
