internal import CGIO
internal import COpenSSL
internal import KeychainCore
internal import KeychainDBus

/// The keyring file that libsecret's file backend keeps inside a sandbox
/// (`~/.var/app/<app id>/data/keyrings/default.keyring` for a Flatpak), keyed by the app's portal
/// master secret, so that ``PortalMigration`` can write host items where the sandboxed app reads them.
///
/// The format (libsecret `secret-file-collection.c`, `secret-file-item.c`, since 0.20; the same in
/// 0.20.5 and 0.21): the 16 bytes `GnomeKeyring\n\r\0\n`, the version bytes 1 and 0, then a GVariant
/// `(uayutua(a{say}ay))` in little-endian order: the salt's length, the salt (32 random bytes), the
/// PBKDF2 iteration count (100,000), the modification time (seconds since the epoch), a usage count and
/// the items. The key is PBKDF2-HMAC-SHA256 of the master secret over the salt, 16 bytes; it is both the
/// AES-128-CBC key and the HMAC-SHA256 key. Each item is its attributes with every value replaced by
/// HMAC-SHA256(key, value) (`a{say}`, names sorted), and a blob: AES-128-CBC (PKCS #7 padding) of the
/// GVariant `(a{ss}sttay)` (attributes, label, created, modified, secret), then the 16-byte IV, then
/// HMAC-SHA256(key, ciphertext ‖ IV). Every primitive is OpenSSL's (`PKCS5_PBKDF2_HMAC`, `EVP_Q_mac`,
/// AES-128-CBC through ``AES128CBC``).
///
/// Not `Sendable`: it holds the derived key and GLib values; one caller uses it.
final class PortalKeyringFile {
    static let header: [UInt8] = Array("GnomeKeyring\n\r".utf8) + [0, UInt8(ascii: "\n")]
    static let version: [UInt8] = [1, 0]
    static let saltBytes = 32
    static let iterations: UInt32 = 100_000
    static let keyBytes = 16
    static let macBytes = 32

    let salt: [UInt8]
    let iterationCount: UInt32
    let key: SecureBytes
    private(set) var usageCount: UInt32
    /// The items, each a `(a{say}ay)` value this object holds a reference to.
    private(set) var items: [OpaquePointer]

    /// Why a keyring file cannot be used.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The file is not a libsecret keyring file of version 1.0, or it is damaged.
        case invalidFormat(String)
        /// The file's items were written with another master secret.
        case wrongSecret
        /// OpenSSL failed.
        case crypto(String)

        var description: String {
            switch self {
            case .invalidFormat(let detail): "not a libsecret keyring file (\(detail))"
            case .wrongSecret:
                "its items were written with another master secret (the app used another portal backend); "
                    + "move the file away to start a new one"
            case .crypto(let step): "\(step) failed"
            }
        }
    }

    /// An empty keyring with a new salt, keyed by `masterSecret`.
    init(masterSecret: SecureBytes) throws(Failure) {
        salt = Sodium.randomBytes(Self.saltBytes)
        iterationCount = Self.iterations
        key = try Self.deriveKey(masterSecret, salt: salt, iterations: Self.iterations)
        usageCount = 0
        items = []
    }

    /// The keyring in `contents` (a file's bytes), keyed by `masterSecret`.
    /// - Throws: ``Failure/invalidFormat(_:)`` for anything but a version 1.0 file whose values parse;
    ///   ``Failure/wrongSecret`` when an item's MAC does not verify under the derived key.
    init(contents: [UInt8], masterSecret: SecureBytes) throws(Failure) {
        let prefix = Self.header.count + Self.version.count
        guard contents.count > prefix, contents.starts(with: Self.header) else { throw .invalidFormat("header") }
        guard Array(contents[Self.header.count..<prefix]) == Self.version else { throw .invalidFormat("version") }
        let body = Array(contents[prefix...])
        let value = body.withUnsafeBytes { bytes in
            g_variant_ref_sink(
                g_variant_new_from_data(
                    cgio_variant_type("(uayutua(a{say}ay))"), bytes.baseAddress, gsize(bytes.count), 0, nil, nil))!
        }
        defer { g_variant_unref(value) }
        // Untrusted data: GLib answers a malformed value with its type's default, so normal form is checked.
        guard g_variant_is_normal_form(value) != 0 else { throw .invalidFormat("body") }
        let saltLength = Variant.withChild(value, 0) { g_variant_get_uint32($0) }
        let salt = Variant.withChild(value, 1) { Variant.withBytes($0) { Array($0) } }
        let iterations = Variant.withChild(value, 2) { g_variant_get_uint32($0) }
        guard saltLength == salt.count, !salt.isEmpty, iterations > 0, iterations <= 10_000_000 else {
            throw .invalidFormat("salt or iteration count")
        }
        self.salt = salt
        iterationCount = iterations
        usageCount = Variant.withChild(value, 4) { g_variant_get_uint32($0) }
        key = try Self.deriveKey(masterSecret, salt: salt, iterations: iterations)
        let list = g_variant_get_child_value(value, 5)!
        defer { g_variant_unref(list) }
        items = (0..<Variant.childCount(list)).map { g_variant_get_child_value(list, gsize($0))! }
        for item in items {
            let verified = try Variant.withChild(item, 1) { blob throws(Failure) in
                try Variant.withBytes(blob) { bytes throws(Failure) in
                    guard bytes.count >= AES128CBC.ivBytes + Self.macBytes else { throw .invalidFormat("an item") }
                    let signed = UnsafeRawBufferPointer(rebasing: bytes.prefix(bytes.count - Self.macBytes))
                    let expected = SecureBytes(copying: try mac(signed))
                    return expected.constantTimeEquals(bytes.suffix(Self.macBytes))
                }
            }
            guard verified else { throw .wrongSecret }
        }
    }

    deinit { items.forEach { g_variant_unref($0) } }

    /// Adds an item, replacing any whose attributes are exactly `attributes` (as libsecret's
    /// `secret_file_collection_replace` does).
    func replace(
        attributes: [String: String], label: String, secret: SecureBytes, created: UInt64, modified: UInt64
    ) throws(Failure) {
        let hashed = try hashedAttributes(attributes)
        defer { g_variant_unref(hashed) }
        for (index, item) in items.enumerated().reversed() {
            let same = Variant.withChild(item, 0) {
                g_variant_equal(UnsafeRawPointer($0), UnsafeRawPointer(hashed)) != 0
            }
            if same {
                g_variant_unref(item)
                items.remove(at: index)
            }
        }
        let blob = try encrypt(
            attributes: attributes, label: label, secret: secret, created: created, modified: modified)
        let item = g_variant_ref_sink(Variant.tuple([g_variant_ref(hashed)!, Variant.bytes(blob)]))!
        items.append(item)
        usageCount &+= 1
    }

    /// The file's bytes, with `modified` (seconds since the epoch) as its modification time.
    func serialized(modified: UInt64) -> [UInt8] {
        let list = Variant.array("(a{say}ay)", items.map { g_variant_ref($0)! })
        let value = g_variant_ref_sink(
            Variant.tuple([
                Variant.uint32(UInt32(salt.count)), Variant.bytes(salt), Variant.uint32(iterationCount),
                Variant.uint64(modified), Variant.uint32(usageCount), list,
            ]))!
        defer { g_variant_unref(value) }
        var body = [UInt8](repeating: 0, count: Int(g_variant_get_size(value)))
        body.withUnsafeMutableBytes { g_variant_store(value, $0.baseAddress) }
        return Self.header + Self.version + body
    }

    // MARK: - Crypto (OpenSSL)

    static func deriveKey(_ password: SecureBytes, salt: [UInt8], iterations: UInt32) throws(Failure) -> SecureBytes {
        var ok = false
        let key = SecureBytes(count: keyBytes) { out in
            ok = password.withUnsafeBytes { secret in
                libcrypto.PKCS5_PBKDF2_HMAC(
                    secret.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(secret.count), salt,
                    Int32(salt.count), Int32(iterations), libcrypto.EVP_sha256(), Int32(keyBytes),
                    out.baseAddress?.assumingMemoryBound(to: UInt8.self)) == 1
            }
        }
        guard ok else { throw .crypto("PKCS5_PBKDF2_HMAC") }
        return key
    }

    /// HMAC-SHA256 of `data` under the derived key.
    func mac(_ data: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.macBytes)
        var length = 0
        let empty: [UInt8] = [0]
        let ok = key.withUnsafeBytes { keyBytes in
            empty.withUnsafeBytes { placeholder in
                libcrypto.EVP_Q_mac(
                    nil, "HMAC", nil, "SHA256", nil, keyBytes.baseAddress, keyBytes.count,
                    data.isEmpty
                        ? placeholder.baseAddress?.assumingMemoryBound(to: UInt8.self)
                        : data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, &out, out.count, &length)
                    != nil
            }
        }
        guard ok, length == Self.macBytes else { throw .crypto("EVP_Q_mac") }
        return out
    }

    /// HMAC-SHA256 of `bytes` under the derived key.
    func mac(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(Failure) in try mac(buffer) } }
        return try result.get()
    }

    /// `a{say}`: each attribute's name and the MAC of its value, names in byte order.
    private func hashedAttributes(_ attributes: [String: String]) throws(Failure) -> OpaquePointer {
        var entries: [OpaquePointer] = []
        for name in attributes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let value = Array(attributes[name]!.utf8)
            let digest = try mac(value)
            entries.append(Variant.dictEntry(Variant.string(name), Variant.bytes(digest)))
        }
        return g_variant_ref_sink(Variant.array("{say}", entries))!
    }

    /// The item's blob: ciphertext ‖ IV ‖ MAC. The plaintext is serialized straight into zeroising
    /// memory (the secret's `ay` points at the caller's buffer; GLib copies nothing of it).
    private func encrypt(
        attributes: [String: String], label: String, secret: SecureBytes, created: UInt64, modified: UInt64
    ) throws(Failure) -> [UInt8] {
        let plaintext = secret.withUnsafeBytes { bytes -> SecureBytes in
            let secretValue = g_variant_new_from_data(
                cgio_variant_type("ay"), bytes.baseAddress, gsize(bytes.count), 1, nil, nil)!
            let value = g_variant_ref_sink(
                Variant.tuple([
                    Variant.stringMap(attributes), Variant.string(label), Variant.uint64(created),
                    Variant.uint64(modified), secretValue,
                ]))!
            defer { g_variant_unref(value) }
            return SecureBytes(count: Int(g_variant_get_size(value))) { g_variant_store(value, $0.baseAddress) }
        }
        let iv = AES128CBC.randomIV()
        let ciphertext: [UInt8]
        do {
            ciphertext = try plaintext.withUnsafeBytes { bytes throws(SessionCryptoError) in
                try AES128CBC.encrypt(bytes, key: key, iv: iv)
            }
        } catch {
            throw .crypto("AES-128-CBC")
        }
        let signed = ciphertext + iv
        return signed + (try mac(signed))
    }
}
