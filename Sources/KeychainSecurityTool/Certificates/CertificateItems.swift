internal import KeychainCore
internal import KeychainCrypto
internal import KeychainItems
internal import KeychainToolSupport

/// What the certificate and identity commands share: the items of one keychain through its gateway
/// as the tool's identity, with the attributes and identity join of `KeychainItems` (what
/// `SecItemAdd`/`SecItemCopyMatching`/`SecItemDelete` use too), the `-c`/`-e`/`-Z` matching, and printing.
enum CertificateItems {
    /// One certificate found: the certificate, its item's persistent reference, and its label; for an
    /// identity also its private key item's persistent reference, and the key when it was read.
    struct Found {
        let certificate: Certificate
        let persistentRef: [UInt8]
        let label: String?
        var keyRef: [UInt8]? = nil
        var key: KeyItem? = nil
    }

    /// The prompt shown when a protected item's data is needed (as SecItemCopyMatching asks).
    static let reason = "security wants to use a protected keychain item."

    /// Every certificate (`identities` false) or every identity's certificate (`identities` true) in
    /// the gateway's keychain, in the order stored. Access-controlled items are released only after
    /// the user's proof, as `SecItemCopyMatching` releases them.
    /// - Parameters:
    ///   - gateway: the keychain, as the tool's identity.
    ///   - identities: list identities rather than certificates.
    ///   - readingKeys: for identities, read the private keys too (export).
    /// - Returns: the items; `[]` for none.
    /// - Throws: the engine's failures (a locked keychain: `.interactionNotAllowed`).
    static func all(in gateway: ItemGateway, identities: Bool, readingKeys: Bool = false) throws(KeychainFailure)
        -> [Found]
    {
        let query = ItemQuery(itemClass: .certificate, scope: gateway.callerScope, synchronizable: .any)
        var authorizer = AccessAuthorizer(keystore: gateway.keystore, context: nil, ui: .allow, reason: reason)
        guard identities else {
            return try gateway.search(query, projection: [.attributes], release: &authorizer).compactMap { item in
                guard let parsed = item.secret.flatMap({ CertificateItem(secret: $0) }) else { return nil }
                return Found(
                    certificate: parsed.certificate, persistentRef: item.persistentRef, label: label(item.attributes))
            }
        }
        var joined: [IdentityItem] = []
        let released = Set(
            try gateway.search(query, projection: [.attributes], release: &authorizer) {
                (certificates, reads) throws(KeychainFailure) -> [StoredItem] in
                joined = try gateway.identities(of: certificates, reads: readingKeys ? reads : nil)
                return joined.map(\.record)
            }.map(\.persistentRef))
        return joined.compactMap { identity in
            guard released.contains(identity.certificate.persistentRef), let parsed = identity.certificateItem else {
                return nil
            }
            return Found(
                certificate: parsed.certificate, persistentRef: identity.certificate.persistentRef,
                label: label(identity.record.attributes), keyRef: identity.key.persistentRef, key: identity.keyItem)
        }
    }

    private static func label(_ attributes: [String: AttributeValue]) -> String? {
        if case .string(let label)? = attributes[.label] { return label }
        return nil
    }

    /// Whether `found` matches `-c name` (contained in the common name or label, as macOS matches a
    /// certificate's name), `-e email` (one of its addresses, in any case) and `-Z hash` (its SHA-1
    /// or SHA-256 fingerprint in hex, any case).
    static func matches(_ found: Found, name: String?, email: String?, hash: String?) -> Bool {
        if let name {
            let names = [found.certificate.commonName, found.label, found.certificate.subjectSummary].compactMap { $0 }
            guard names.contains(where: { $0.contains(name) }) else { return false }
        }
        if let email, !found.certificate.emailAddresses.contains(where: { $0.lowercased() == email.lowercased() }) {
            return false
        }
        if let hash {
            let wanted = hash.uppercased()
            guard wanted == hex(found, .sha1) || wanted == hex(found, .sha256) else { return false }
        }
        return true
    }

    /// The fingerprint in upper-case hex (`security -Z`'s format).
    static func hex(_ found: Found, _ hash: HashFunction) -> String {
        ((try? found.certificate.fingerprint(hash)) ?? []).map { hexByte($0) }.joined()
    }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// A 32-bit value as eight upper-case hex digits (`%08X`).
    static func hex32(_ value: Int) -> String {
        let word = UInt32(truncatingIfNeeded: value)
        return (0..<4).reversed().map { hexByte(UInt8(truncatingIfNeeded: word >> (8 * UInt32($0)))) }.joined()
    }

    /// macOS's attribute block of a certificate item (`print_keychain_item_attributes`, class
    /// `0x80001000`): the keychain, then `alis` (first email, else the common name), `cenc`, `ctyp`,
    /// `hpky` (public key hash), `issu`, `labl`, `skid`, `snbr` and `subj`.
    static func attributes(_ found: Found, keychainPath: String) -> String {
        let certificate = found.certificate
        func blob(_ bytes: [UInt8]?) -> String { bytes.map { "0x" + $0.map { hexByte($0) }.joined() } ?? "<NULL>" }
        let alias = certificate.emailAddresses.first ?? certificate.commonName
        var lines = [
            "keychain: \"\(keychainPath)\"", "version: 512", "class: 0x80001000 ", "attributes:",
            "    \"alis\"<blob>=" + (alias.map { "\"\($0)\"" } ?? "<NULL>"),
            "    \"cenc\"<uint32>=0x00000003 ",
            "    \"ctyp\"<uint32>=0x" + hex32(certificate.version + 1) + " ",
            "    \"hpky\"<blob>=" + blob(try? certificate.publicKeyHash),
            "    \"issu\"<blob>=" + blob(try? certificate.issuerSequence),
            "    \"labl\"<blob>=" + ((found.label ?? certificate.commonName).map { "\"\($0)\"" } ?? "<NULL>"),
            "    \"skid\"<blob>=" + blob(certificate.subjectKeyIdentifier),
            "    \"snbr\"<blob>=" + blob(try? certificate.serialNumber),
            "    \"subj\"<blob>=" + blob(try? certificate.subjectSequence),
        ]
        lines.append("")
        return lines.joined(separator: "\n")
    }

    /// Deletes the certificate `found` is, or for `identity` the identity: its certificate and private
    /// key, in one transaction.
    /// - Throws: `.itemNotFound` when another process deleted it first; the engine's failures.
    static func delete(_ found: Found, identity: Bool, in gateway: ItemGateway) throws(KeychainFailure) {
        var references: [(ItemClass, [UInt8])] = [(.certificate, found.persistentRef)]
        if identity, let keyRef = found.keyRef { references.append((.key, keyRef)) }
        guard try gateway.delete(references: references) > 0 else { throw KeychainFailure(.itemNotFound) }
    }
}
