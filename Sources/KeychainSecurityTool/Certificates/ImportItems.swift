internal import KeychainCore
internal import KeychainCrypto
internal import KeychainItems
internal import KeychainToolSupport

/// `security import inputfile [-k keychain] [-t type] [-f format] [-P passphrase] [options...]`:
/// imports certificates (PEM or DER) and identities (PKCS #12) into a keychain, as macOS's
/// `security import` does, through `KeychainItems` and the keychain's gateway (so the items get
/// Apple's derived attributes, exactly as `SecPKCS12Import` and `SecItemAdd` store them). Prints `N identities imported.` / `N certificates imported.` (macOS's
/// wording, singular for one).
///
/// The format is taken from `-f` (`pkcs12`, `pemseq`, `openssl`, `x509`/`raw` for DER) or from the
/// contents: PEM certificates, else a DER certificate, else PKCS #12. A PKCS #12 file's passphrase is
/// `-P` (an empty one when not given). `-t`, `-w`, `-A` and `-T` are accepted and change
/// nothing (there are no ACLs or wrapped-key formats here); `-x` (non-extractable private keys) is
/// not offered, so it is an illegal option rather than silently ignored.
/// - Errors: an unreadable file prints `security: Error reading infile <file>: <strerror>` (`No such file or
///   directory`, `Permission denied`, `Is a directory`) and exits 1;
///   contents in no known format exit with errSecUnknownFormat's low 8 bits; a wrong passphrase is
///   errSecAuthFailed; an item already in the keychain is errSecDuplicateItem (nothing of that file
///   after it is imported).
struct ImportItems: SecuritySubcommand {
    static let spec: CommandSpec = {
        var spec = CommandSpec(
            name: "import", synopsis: "inputfile [-k keychain] [-t type] [-f format] [-w] [-P passphrase] [options...]",
            options: [
                OptionSpec("k", value: "keychain", "Target keychain to import into"),
                OptionSpec("t", value: "type", "Type = pub|priv|session|cert|agg"),
                OptionSpec("f", value: "format", "Format = openssl|bsafe|raw|pkcs7|pkcs8|pkcs12|netscape|x509|pemseq"),
                OptionSpec("w", "Specify that private keys are wrapped and must be unwrapped on import"),
                OptionSpec("P", value: "passphrase", "Specify the unwrapping passphrase immediately"),
                OptionSpec("A", "Allow any application to access the imported key without warning (insecure)"),
                OptionSpec("T", value: "appPath", "Specify an application which may access the imported key"),
            ],
            summary: "Import items into a keychain.")
        spec.takesLeadingOperand = true
        return spec
    }()

    let options: ParsedOptions
    let file: String

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard options.operands.count == 1 else { throw .usage(nil) }
        self.options = options
        self.file = options.operands[0]
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let data: [UInt8]
        switch FileSystem.readContents(file) {
        case .success(let bytes): data = bytes
        case .failure(let error):
            // macOS's `security import` prints the failure's strerror (`Permission denied`, `Is a directory`).
            throw CommandFailure.message("security: Error reading infile \(file): \(error.message)", status: 1)
        }
        let gateway: ItemGateway
        do {
            gateway = try context.gateway(context.target(options.value("k")))
        } catch {
            throw CommandFailure.keychain("SecKeychainItemImport", error)
        }
        let format = options.value("f")
        var certificates: [Certificate] = []
        if format == nil || ["pemseq", "openssl", "x509", "raw"].contains(format!) {
            if let pem = try? Certificate.certificates(pem: data), !pem.isEmpty {
                certificates = pem
            } else if let der = try? Certificate(der: data) {
                certificates = [der]
            }
        }
        if !certificates.isEmpty {
            for certificate in certificates {
                do {
                    _ = try gateway.add(try CertificateItem(certificate).newItem())
                } catch {
                    throw CommandFailure.keychain("SecKeychainItemImport", error)
                }
            }
            context.io.output.line(Self.count(certificates.count, "certificate"))
            return
        }
        guard format == nil || format == "pkcs12" else {
            throw CommandFailure.keychain("SecKeychainItemImport", osStatus: Self.unknownFormat)
        }
        let contents: [PKCS12.Contents]
        do {
            contents = try PKCS12.parseAll(data, passphrase: options.value("P") ?? "")
        } catch .authFailed where options.value("P") == nil {
            // Nothing was asked: say that the file needs its passphrase rather than that it was wrong.
            throw CommandFailure.keychain(
                "SecKeychainItemImport",
                KeychainFailure(
                    .authFailed, "this PKCS #12 file is protected by a passphrase: give it with -P", reason: .advice))
        } catch {
            // Not PKCS #12 either: macOS's "Unknown format in import".
            let reported =
                error.osStatus == CryptoError.decode("").osStatus && format == nil ? Self.unknownFormat : error.osStatus
            throw CommandFailure.keychain("SecKeychainItemImport", osStatus: reported)
        }
        var identities = 0
        do throws(KeychainFailure) {
            for item in contents {
                var given: [String: AttributeValue] = [:]
                if let label = item.label { given[AttributeName.label.rawValue] = .string(label) }
                _ = try gateway.addIdentity(CertificateItem(item.certificate), KeyItem(item.privateKey), given: given)
                identities += 1
                // The rest of the chain: certificates, skipped when already present.
                for certificate in item.chain.dropFirst() {
                    _ = try? gateway.add(try CertificateItem(certificate).newItem())
                }
            }
        } catch {
            throw CommandFailure.keychain("SecKeychainItemImport", error)
        }
        context.io.output.line(Self.count(identities, "identity", plural: "identities"))
    }

    /// `errSecUnknownFormat` (SecBase.h).
    static let unknownFormat: Int32 = -25257

    static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s") imported."
    }
}
