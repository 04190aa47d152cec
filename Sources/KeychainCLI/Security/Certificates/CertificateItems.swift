import Foundation
internal import KeychainCore
internal import KeychainCrypto
internal import KeychainServices

/// What the certificate and identity commands share: Keychain Services calls on one keychain as the
/// tool's identity (so certificates, keys and identities get exactly the attributes and checks of
/// `SecItemAdd`/`SecItemCopyMatching`/`SecItemDelete`), the `-c`/`-e`/`-Z` matching, and printing.
enum CertificateItems {
    /// One certificate found: the certificate, its item's persistent reference, and its label.
    struct Found {
        let certificate: Certificate
        let persistentRef: Data
        let label: String?
    }

    /// Runs `body` with the SecItem functions acting on `store` as the `security` tool's identity.
    static func on<R, E: Error>(_ store: Keystore, _ context: SecurityContext, _ body: () throws(E) -> R) throws(E) -> R
    {
        let result = KeychainContext.withOverride(KeychainContext(keystore: store, identity: context.identity)) {
            Result { () throws(E) -> R in try body() }
        }
        return try result.get()
    }

    /// Every certificate (`identities` false) or every identity's certificate (`identities` true) in
    /// `store`, in the order stored.
    /// - Returns: the status of `SecItemCopyMatching` (`errSecItemNotFound` for none) and the items.
    static func all(in store: Keystore, identities: Bool, _ context: SecurityContext) -> (OSStatus, [Found]) {
        on(store, context) {
            let query: [String: Any] = [
                kSecClass as String: identities ? kSecClassIdentity : kSecClassCertificate,
                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true,
                kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true,
                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
            ]
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            guard status == errSecSuccess, let items = result as? [[String: Any]] else { return (status, []) }
            var found: [Found] = []
            for item in items {
                var certificate: SecCertificate?
                if let identity = item[kSecValueRef as String] as? SecIdentity {
                    _ = SecIdentityCopyCertificate(identity, &certificate)
                } else {
                    certificate = item[kSecValueRef as String] as? SecCertificate
                }
                guard let certificate, let ref = item[kSecValuePersistentRef as String] as? Data,
                    let parsed = try? Certificate(der: Array(SecCertificateCopyData(certificate) as Data))
                else { continue }
                found.append(
                    Found(certificate: parsed, persistentRef: ref, label: item[kSecAttrLabel as String] as? String))
            }
            return (errSecSuccess, found)
        }
    }

    /// Whether `found` matches `-c name` (contained in the common name or label, as macOS matches a
    /// certificate's name), `-e email` (one of its addresses) and `-Z hash` (its SHA-1 or SHA-256
    /// fingerprint in hex, any case).
    static func matches(_ found: Found, name: String?, email: String?, hash: String?) -> Bool {
        if let name {
            let names = [found.certificate.commonName, found.label, found.certificate.subjectSummary].compactMap { $0 }
            guard names.contains(where: { $0.contains(name) }) else { return false }
        }
        if let email,
            !found.certificate.emailAddresses.contains(where: { $0.caseInsensitiveCompare(email) == .orderedSame })
        {
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
            String(format: "    \"ctyp\"<uint32>=0x%08X ", certificate.version + 1),
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

    /// Deletes the item with persistent reference `ref` (a certificate, or for `identity` the identity:
    /// its certificate and private key).
    static func delete(_ found: Found, identity: Bool, in store: Keystore, _ context: SecurityContext) -> OSStatus {
        on(store, context) {
            guard identity else {
                return SecItemDelete([kSecValuePersistentRef as String: found.persistentRef] as CFDictionary)
            }
            let der = Data(found.certificate.der)
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else { return errSecDecode }
            let query: [String: Any] = [
                kSecClass as String: kSecClassIdentity, kSecValueRef as String: certificate,
                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
            ]
            return SecItemDelete(query as CFDictionary)
        }
    }
}

