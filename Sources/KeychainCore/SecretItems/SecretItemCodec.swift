/// Seals Secret Service items into rows and opens them (issue 17; `docs/ARCHITECTURE.md`,
/// "Secret Service items in keychain files").
///
/// Three keys are derived from the keychain's index key (device slot, so available while the
/// keychain is locked, as the digest index is), each with keyed BLAKE2b and its own context:
/// - the **metadata key** seals label, attributes and dates (XChaCha20-Poly1305), so that they stay
///   readable while locked, as the Secret Service requires;
/// - the **digest key** makes the 16-byte digest of each (name, value) pair (`ss_index`) and the
///   32-byte digest of the whole attribute set (`ss_items.attribute_set`);
/// - the **tag key** makes each row's integrity tag.
///
/// The secret and its content type are sealed by a random item key, which the WhenUnlocked class key
/// wraps: unreadable while the keychain is locked. Associated data binds every ciphertext to the
/// keychain id, the item number and its part, and the metadata also to the attribute-set digest, so
/// moving a ciphertext to another row or editing the set column fails authentication (`errSecDecode`).
struct SecretItemCodec {
    let keychainID: [UInt8]
    let metadataKey: SecureBytes
    let digestKey: SecureBytes
    let tagKey: SecureBytes

    /// The byte that starts an access list after the attributes in sealed metadata.
    static let accessListMarker: UInt8 = 0xA1

    init(keychainID: [UInt8], indexKey: IndexKey) {
        self.keychainID = keychainID
        metadataKey = Sodium.combine(indexKey.bytes, indexKey.bytes, context: "swkc.ss.metadata.v1")
        digestKey = Sodium.combine(indexKey.bytes, indexKey.bytes, context: "swkc.ss.digest.v1")
        tagKey = Sodium.combine(indexKey.bytes, indexKey.bytes, context: "swkc.ss.row.v1")
    }

    // MARK: - Digests

    /// 16-byte keyed digest of one attribute pair: `u32 length ‖ name ‖ value`.
    func pairDigest(_ name: String, _ value: String) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(4 + name.utf8.count + value.utf8.count)
        Self.appendLength(name.utf8.count, to: &message)
        message.append(contentsOf: name.utf8)
        message.append(contentsOf: value.utf8)
        return Sodium.keyedHash(message, key: digestKey, length: 16)
    }

    /// 32-byte keyed digest of a whole attribute set (pairs sorted by name, each length-prefixed).
    func setDigest(_ attributes: [String: String]) -> [UInt8] {
        var message: [UInt8] = Array("set".utf8)
        for name in attributes.keys.sorted() {
            Self.appendString(name, to: &message)
            Self.appendString(attributes[name]!, to: &message)
        }
        return Sodium.keyedHash(message, key: digestKey, length: 32)
    }

    // MARK: - Sealing

    /// The associated data of one of an item's three ciphertexts (``AssociatedData``, domain
    /// `.secretService`): the item number, and for the metadata (part `.attributes`) also the
    /// attribute-set digest, so that editing the `attribute_set` column fails authentication.
    func associatedData(_ part: SealedPart, number: Int64, attributeSet: [UInt8]) -> [UInt8] {
        AssociatedData.bytes(
            .secretService, part, keychainID: keychainID,
            part == .attributes ? [.number(number), .digest(attributeSet)] : [.number(number)])
    }

    func sealMetadata(_ item: SecretItem, attributeSet: [UInt8]) -> [UInt8] {
        let ad = associatedData(.attributes, number: item.number, attributeSet: attributeSet)
        return Sodium.seal(Self.encodeMetadata(item), key: metadataKey, associatedData: ad)
    }

    /// - Throws: `.decode` when the box does not authenticate or its content is malformed.
    func openMetadata(_ box: [UInt8], number: Int64, attributeSet: [UInt8]) throws(KeychainFailure) -> SecretItem {
        let ad = associatedData(.attributes, number: number, attributeSet: attributeSet)
        guard let plain = Sodium.open(box, key: metadataKey, associatedData: ad) else {
            throw KeychainFailure(.decode, "a Secret Service item's metadata does not authenticate")
        }
        guard let item = Self.decodeMetadata(plain, number: number) else {
            throw KeychainFailure(.decode, "a Secret Service item's metadata is malformed")
        }
        return item
    }

    /// Seals `contentType` and the secret under `itemKey` (``encodeSecret(_:)``).
    func sealSecret(_ secret: SecretItemSecret, itemKey: ItemKey, number: Int64) -> [UInt8] {
        let ad = associatedData(.secret, number: number, attributeSet: [])
        return Sodium.seal(Self.encodeSecret(secret), key: itemKey.bytes, associatedData: ad)
    }

    /// - Throws: `.decode` when the box does not authenticate.
    func openSecret(_ box: [UInt8], itemKey: ItemKey, number: Int64) throws(KeychainFailure) -> SecretItemSecret {
        let ad = associatedData(.secret, number: number, attributeSet: [])
        guard let plain = Sodium.openSecret(box, key: itemKey.bytes, associatedData: ad) else {
            throw KeychainFailure(.decode, "a Secret Service item's secret does not authenticate")
        }
        guard let secret = Self.decodeSecret(plain) else {
            throw KeychainFailure(.decode, "a Secret Service item's secret is malformed")
        }
        return secret
    }

    // MARK: - Plaintexts (also what a sync payload carries; docs/SYNC.md, "Secret Service items")

    /// The metadata's plaintext: `1 ‖ created (u64) ‖ modified (u64) ‖ label ‖ count (u32) ‖ (name,
    /// value) × count, sorted by name ‖ [0xA1 ‖ any application (u8) ‖ owner ‖ count (u32) ‖ allowed ×
    /// count]`, each string a u32 length and UTF-8; all integers big-endian.
    static func encodeMetadata(_ item: SecretItem) -> [UInt8] {
        var plain: [UInt8] = [1]
        withUnsafeBytes(of: item.created.bigEndian) { plain.append(contentsOf: $0) }
        withUnsafeBytes(of: item.modified.bigEndian) { plain.append(contentsOf: $0) }
        appendString(item.label, to: &plain)
        appendLength(item.attributes.count, to: &plain)
        for name in item.attributes.keys.sorted() {
            appendString(name, to: &plain)
            appendString(item.attributes[name]!, to: &plain)
        }
        if let access = item.access {
            // The access list (issue 27): after the attributes, so that metadata sealed before it
            // (nothing follows the attributes) opens as an item without a list.
            plain.append(accessListMarker)
            plain.append(access.anyApplication ? 1 : 0)
            appendString(access.owner, to: &plain)
            appendLength(access.allowed.count, to: &plain)
            for identity in access.allowed { appendString(identity, to: &plain) }
        }
        return plain
    }

    /// The item of ``encodeMetadata(_:)``'s plaintext, numbered `number`, or `nil` when it is malformed
    /// (every length checked against what remains; nothing may follow).
    static func decodeMetadata(_ plain: [UInt8], number: Int64) -> SecretItem? {
        guard plain.first == 1 else { return nil }
        return plain.withUnsafeBytes { buffer -> SecretItem? in
            var reader = ByteReader(buffer, offset: 1)
            guard let created = reader.bigEndian(UInt64.self), let modified = reader.bigEndian(UInt64.self),
                let label = reader.lengthPrefixedString(), let count = reader.bigEndian(UInt32.self)
            else { return nil }
            var attributes: [String: String] = [:]
            // Sized once (each growth rehashes); a count beyond what the bytes can hold fails below.
            attributes.reserveCapacity(Int(min(count, 256)))
            for _ in 0..<count {
                guard let name = reader.lengthPrefixedString(), let value = reader.lengthPrefixedString() else {
                    return nil
                }
                attributes[name] = value
            }
            var access: SecretItemAccess?
            if let marker = reader.byte() {
                guard marker == accessListMarker, let flags = reader.byte(), flags <= 1,
                    let owner = reader.lengthPrefixedString(), let count = reader.bigEndian(UInt32.self)
                else { return nil }
                var allowed: [String] = []
                for _ in 0..<count {
                    guard let identity = reader.lengthPrefixedString() else { return nil }
                    allowed.append(identity)
                }
                access = SecretItemAccess(owner: owner, allowed: allowed, anyApplication: flags == 1)
            }
            return SecretItem(
                number: number, label: label, attributes: attributes, created: created, modified: modified,
                access: access)
        }
    }

    /// The secret's plaintext: `content type length (u16 BE, at most 255) ‖ content type ‖ secret`.
    static func encodeSecret(_ secret: SecretItemSecret) -> SecureBytes {
        var header: [UInt8] = [0, 0]
        header.append(contentsOf: secret.contentType.utf8.prefix(255))
        header[1] = UInt8(header.count - 2)
        let value = secret.value
        return SecureBytes(count: header.count + value.count) { out in
            header.withUnsafeBytes { out.copyMemory(from: $0) }
            value.withUnsafeBytes { bytes in
                if bytes.count > 0 {
                    (out.baseAddress! + header.count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                }
            }
        }
    }

    /// The secret of ``encodeSecret(_:)``'s plaintext, or `nil` when its length field runs past the end.
    static func decodeSecret(_ plain: SecureBytes) -> SecretItemSecret? {
        guard plain.count >= 2 else { return nil }
        return plain.withUnsafeBytes { (bytes) -> SecretItemSecret? in
            let length = Int(bytes[0]) << 8 | Int(bytes[1])
            guard 2 + length <= bytes.count else { return nil }
            let contentType = String(decoding: bytes[2..<(2 + length)], as: UTF8.self)
            let value = SecureBytes(count: bytes.count - 2 - length) { out in
                out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(2 + length)...]))
            }
            return SecretItemSecret(value: value, contentType: contentType)
        }
    }

    /// 32-byte keyed tag of a row as stored (every column but the tag): the shared row tag (``RowTag``)
    /// under the tag key, with the number and serial as fixed integers.
    func rowTag(
        number: Int64, serial: Int64, attributeSet: [UInt8], metadata: [UInt8], wrappedKey: [UInt8], secret: [UInt8]
    )
        -> [UInt8]
    {
        RowTag.tag(
            label: Self.rowLabel, key: tagKey, integers: [number, serial],
            columns: [.blob(attributeSet), .blob(metadata), .blob(wrappedKey), .blob(secret)])
    }

    static let rowLabel: [UInt8] = Array("swkc.ss.row.v1".utf8)

    // MARK: - Encoding

    static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: length).bigEndian) { bytes.append(contentsOf: $0) }
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        appendLength(string.utf8.count, to: &bytes)
        bytes.append(contentsOf: string.utf8)
    }
}
