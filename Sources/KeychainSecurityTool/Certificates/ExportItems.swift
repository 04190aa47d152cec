internal import KeychainCore
internal import KeychainCrypto
internal import KeychainItems
internal import KeychainToolSupport

/// `security export [-k keychain] [-t type] [-f format] [-p] [-P passphrase] [-o outfile]`: writes a
/// keychain's certificates, public keys or identity, with macOS's option names.
///
/// - `-t certs` (the default) writes every certificate, `-t pubKeys` every public key (X.509
///   `SubjectPublicKeyInfo`), as PEM (`-f pemseq`, or `openssl`/`x509` with `-p`); one item may also be
///   written as DER (`-f x509` for a certificate, `-f openssl` for a public key, without `-p`).
/// - `-t identities` writes the keychain's identity as PKCS #12 (`-f pkcs12`, the default for it)
///   encrypted with `-P passphrase`, which is required: private keys leave the keychain only that
///   way. One identity per file (a keychain with several is refused, exit 1). Keys stored with
///   `kSecAttrIsExtractable` `false` are refused with errSecInteractionNotAllowed's status.
/// - `-t privKeys`, `allKeys`, `all` and the other formats are refused (usage error).
///
/// The output goes to `-o outfile` (created with mode 0600, never replacing a file: exit 1) or stdout
/// (PEM only). Nothing found exits 44 (errSecItemNotFound).
struct ExportItems: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "export", synopsis: "[-k keychain] [-t type] [-f format] [-p] [-P passphrase] [-o outfile]",
        options: [
            OptionSpec("k", value: "keychain", "Keychain to export items from"),
            OptionSpec("t", value: "type", "Type = certs|pubKeys|identities (certs by default)"),
            OptionSpec("f", value: "format", "Format = openssl|x509|pkcs12|pemseq"),
            OptionSpec("p", "PEM encode the output"),
            OptionSpec(
                "P", value: "passphrase", "Specify the wrapping passphrase immediately (required for identities)"),
            OptionSpec("o", value: "outfile", "Write the output data to outfile (default: stdout)"),
        ],
        summary: "Export items from a keychain.")

    enum Kind: String { case certs, pubKeys, identities }

    let options: ParsedOptions
    let kind: Kind

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard options.operands.isEmpty else { throw .usage(nil) }
        guard let kind = Kind(rawValue: options.value("t") ?? "certs") else {
            throw .usage("security: export: -t must be certs, pubKeys or identities")
        }
        if kind == .identities {
            guard options.value("f") ?? "pkcs12" == "pkcs12" else {
                throw .usage("security: export: identities are exported as pkcs12 only")
            }
            guard let passphrase = options.value("P"), !passphrase.isEmpty else {
                throw .usage("security: export: a passphrase (-P) is required to export private keys")
            }
            guard options.value("o") != nil else { throw .usage("security: export: -o is required for pkcs12") }
        } else if let format = options.value("f"), !["pemseq", "openssl", "x509"].contains(format) {
            throw .usage("security: export: \(kind.rawValue) are exported as pemseq, openssl or x509")
        }
        self.options = options
        self.kind = kind
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let target = context.target(options.value("k"))
        let output: Result<[UInt8], KeychainFailure>
        do {
            let gateway = try context.gateway(target)
            switch kind {
            case .certs:
                let certificates = try CertificateItems.all(in: gateway, identities: false).map(\.certificate.der)
                output = encode(certificates, "CERTIFICATE", der: options.value("f") == "x509")
            case .pubKeys:
                output = encode(try Self.publicKeys(gateway), "PUBLIC KEY", der: options.value("f") == "openssl")
            case .identities:
                output = pkcs12(try CertificateItems.all(in: gateway, identities: true, readingKeys: true))
            }
        } catch {
            output = .failure(error)
        }
        switch output {
        case .failure(let failure): throw CommandFailure.keychain("SecKeychainItemExport", failure)
        case .success(let bytes):
            guard let file = options.value("o") else {
                context.io.output.write(bytes: bytes)
                return
            }
            let created: Bool
            do {
                created = try bytes.withUnsafeBytes { buffer in try FileSystem.createExclusive(file, bytes: buffer) }
            } catch let failure as KeychainFailure {
                throw CommandFailure.keychain("SecKeychainItemExport", failure)
            } catch {
                throw CommandFailure.keychain("SecKeychainItemExport", KeychainFailure(.io, "cannot write \(file)"))
            }
            guard created else {
                throw CommandFailure.message("security: export: \(file) exists; it was not replaced", status: 1)
            }
            return
        }
    }

    /// The `SubjectPublicKeyInfo` of every public key item that makes a key, in the order stored.
    /// - Throws: the engine's failures.
    static func publicKeys(_ gateway: ItemGateway) throws(KeychainFailure) -> [[UInt8]] {
        let query = ItemQuery(
            itemClass: .key, filters: [AttributeName.keyClass.rawValue: .integer(0)],
            scope: gateway.callerScope, synchronizable: .any)
        var authorizer = AccessAuthorizer(
            keystore: gateway.keystore, context: nil, ui: .allow, reason: CertificateItems.reason)
        let items = try gateway.search(query, projection: [.attributes], release: &authorizer)
        return items.compactMap { item in
            guard let key = item.secret.flatMap({ KeyItem(attributes: item.attributes, secret: $0) }) else {
                return nil
            }
            return try? key.key.subjectPublicKeyInfo
        }
    }

    /// DER items as PEM blocks (`label`), or the one item's DER when `der` and not `-p`.
    func encode(_ items: [[UInt8]], _ label: String, der: Bool) -> Result<[UInt8], KeychainFailure> {
        guard !items.isEmpty else { return .failure(KeychainFailure(.itemNotFound)) }
        if der && !options.has("p") {
            guard items.count == 1 else {
                return .failure(KeychainFailure(.param, "\(items.count) items: DER holds one; use -f pemseq"))
            }
            return .success(items[0])
        }
        var text = ""
        for item in items {
            text += "-----BEGIN \(label)-----\n"
            let base64 = Sodium.base64(item)
            var index = base64.startIndex
            while index < base64.endIndex {
                let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
                text += base64[index..<end] + "\n"
                index = end
            }
            text += "-----END \(label)-----\n"
        }
        return .success(Array(text.utf8))
    }

    /// The keychain's one identity (of `identities`) as a PKCS #12 file under `-P`.
    func pkcs12(_ identities: [CertificateItems.Found]) -> Result<[UInt8], KeychainFailure> {
        guard let identity = identities.first else { return .failure(KeychainFailure(.itemNotFound)) }
        guard identities.count == 1 else {
            return .failure(
                KeychainFailure(
                    .param,
                    "the keychain holds \(identities.count) identities, and export writes one per PKCS #12 file here:"
                        + " export from a keychain that holds only the one you want", reason: .advice))
        }
        guard let key = identity.key else {
            return .failure(KeychainFailure(.decode, "the identity's private key item does not make a key"))
        }
        guard key.isExtractable else {
            return .failure(KeychainFailure(.interactionNotAllowed, "the identity's private key is not extractable"))
        }
        do {
            return .success(
                try PKCS12.create(
                    privateKey: key.key, certificate: identity.certificate, passphrase: options.value("P") ?? ""))
        } catch {
            return .failure(KeychainFailure(.param, "the identity cannot be written as PKCS #12"))
        }
    }
}
