internal import KeychainCore
internal import KeychainCrypto
internal import KeychainToolSupport

/// What `find-certificate` and `find-identity` search: the certificates (or identities) of the
/// keychains given, or of the search list, that match `-c`, `-e` and `-Z`.
enum CertificateSearch {
    /// The matches in `targets`, each with the keychain it is in; or the failure to report.
    static func run(
        _ targets: [SecurityContext.Target], identities: Bool, name: String?, email: String?, hash: String?,
        _ context: SecurityContext
    ) -> Result<[(CertificateItems.Found, SecurityContext.Target, ItemGateway)], KeychainFailure> {
        var matches: [(CertificateItems.Found, SecurityContext.Target, ItemGateway)] = []
        var lastFailure = KeychainFailure(.itemNotFound)
        for target in targets {
            do {
                let gateway = try context.gateway(target)
                let found = try CertificateItems.all(in: gateway, identities: identities)
                for item in found where CertificateItems.matches(item, name: name, email: email, hash: hash) {
                    matches.append((item, target, gateway))
                }
            } catch  where error.status == .noSuchKeychain && targets.count > 1 {
                continue
            } catch {
                lastFailure = error
            }
        }
        return matches.isEmpty ? .failure(lastFailure) : .success(matches)
    }
}

/// `security find-certificate [-h] [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]`:
/// prints the first matching certificate (every one with `-a`) as macOS does: with `-Z` its
/// `SHA-256 hash:` and `SHA-1 hash:` lines, then its attribute block (class `0x80001000`), with `-m`
/// its `email addresses:`, with `-p` its PEM (then no attribute block, as macOS prints either).
/// Not found: `security: SecKeychainSearchCopyNext: The specified item could not be found in the
/// keychain.`, exit 44.
struct FindCertificate: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "find-certificate", synopsis: "[-h] [-a] [-c name] [-e emailAddress] [-m] [-p] [-Z] [keychain...]",
        options: [
            OptionSpec("a", "Find all matching certificates, not just the first one"),
            OptionSpec("c", value: "name", "Match on \"name\" when searching (optional)"),
            OptionSpec("e", value: "emailAddress", "Match on \"emailAddress\" when searching (optional)"),
            OptionSpec("m", "Show the email addresses in the certificate"),
            OptionSpec("p", "Output certificate in pem format"),
            OptionSpec("Z", "Print SHA-256 (and SHA-1) hash of the certificate"),
        ],
        trailer: FindPassword.trailer, summary: "Find a certificate item.")

    let options: ParsedOptions

    init(_ options: ParsedOptions) throws(CommandFailure) {
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let targets = context.targets(options.operands)
        switch CertificateSearch.run(
            targets, identities: false, name: options.value("c"), email: options.value("e"), hash: nil, context)
        {
        case .failure(let failure):
            throw CommandFailure.keychain("SecKeychainSearchCopyNext", failure)
        case .success(let matches):
            for (found, target, _) in options.has("a") ? matches : [matches[0]] {
                if options.has("Z") {
                    context.io.output.line("SHA-256 hash: " + CertificateItems.hex(found, .sha256))
                    context.io.output.line("SHA-1 hash: " + CertificateItems.hex(found, .sha1))
                }
                if options.has("p") {
                    context.io.output.write((try? found.certificate.pem) ?? "")
                } else {
                    context.io.output.write(
                        CertificateItems.attributes(found, keychainPath: target.location.databasePath))
                }
                if options.has("m") {
                    context.io.output.line(
                        "email addresses: " + found.certificate.emailAddresses.joined(separator: ", "))
                }
            }
            return
        }
    }
}

/// `security find-identity [-h] [-p policy] [-s string] [-v] [keychain...]`: lists the identities
/// (certificates with their private key) as macOS does: `  1) <SHA-1> "<common name>"` lines and
/// `     N identities found`; with `-v` only the "valid" section. This tool evaluates no trust
/// policy (there is no `SecTrust`): every identity whose certificate parses is listed as valid, and
/// `-p` is accepted and ignored; `-s` keeps identities whose name or email contains the string.
struct FindIdentity: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "find-identity", synopsis: "[-h] [-p policy] [-s string] [-v] [keychain...]",
        options: [
            OptionSpec("p", value: "policy", "Specify policy to evaluate (accepted; no trust evaluation here)"),
            OptionSpec("s", value: "string", "Specify optional policy-specific string (e.g. email address)"),
            OptionSpec("v", "Show valid identities only (default is to show all identities)"),
        ],
        trailer: FindPassword.trailer, summary: "Find an identity (certificate + private key).")

    let options: ParsedOptions

    init(_ options: ParsedOptions) throws(CommandFailure) {
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let targets = context.targets(options.operands)
        var identities: [CertificateItems.Found] = []
        switch CertificateSearch.run(targets, identities: true, name: nil, email: nil, hash: nil, context) {
        case .failure(let failure) where failure.status != .itemNotFound:
            throw CommandFailure.keychain("SecItemCopyMatching", failure)
        case .failure: break
        case .success(let matches):
            identities = matches.map(\.0).filter { found in
                guard let string = options.value("s") else { return true }
                return CertificateItems.matches(found, name: string, email: nil, hash: nil)
                    || CertificateItems.matches(found, name: nil, email: string, hash: nil)
            }
        }
        func section(_ title: String, _ noun: String) {
            context.io.output.line("  \(title)")
            for (index, found) in identities.enumerated() {
                let name = found.certificate.commonName ?? found.certificate.subjectSummary ?? ""
                context.io.output.line("  \(index + 1)) \(CertificateItems.hex(found, .sha1)) \"\(name)\"")
            }
            context.io.output.line("     \(identities.count) \(noun) found")
        }
        if !options.has("v") {
            section("Matching identities", "identities")
            context.io.output.line("")
        }
        section("Valid identities only", "valid identities")
        return
    }
}

/// `security delete-certificate [-h] [-c name] [-Z hash] [-t] [keychain...]` and
/// `delete-identity`: delete the certificate (or identity: certificate and private key) that `-c`
/// or `-Z` names. As macOS: one of them is required (usage error otherwise); a name that matches
/// several certificates is refused (`security: <name> is ambiguous…`, exit 1) so that `-Z` picks one;
/// not found exits 44. `-t` (also delete user trust settings) is accepted: there are none here.
enum DeleteCertificateCommand {
    static func options(_ noun: String) -> [OptionSpec] {
        [
            OptionSpec("c", value: "name", "Specify \(noun) to delete by its common name"),
            OptionSpec("Z", value: "hash", "Specify \(noun) to delete by its SHA-256 (or SHA-1) hash value"),
            OptionSpec("t", "Also delete user trust settings for this \(noun) certificate"),
        ]
    }

    static func validate(_ options: ParsedOptions) throws(CommandFailure) {
        guard options.value("c") != nil || options.value("Z") != nil else { throw .usage(nil) }
    }

    static func run(_ options: ParsedOptions, identity: Bool, _ context: SecurityContext) throws(CommandFailure) {
        let targets = context.targets(options.operands)
        let name = options.value("c")
        let hash = options.value("Z")
        switch CertificateSearch.run(targets, identities: identity, name: name, email: nil, hash: hash, context) {
        case .failure(let failure):
            throw CommandFailure.keychain("Unable to delete \(identity ? "identity" : "certificate")", failure)
        case .success(let matches):
            if hash == nil && matches.count > 1 {
                throw CommandFailure.message(
                    "\(name ?? "") is ambiguous, please find the hash of the one you want to delete", status: 1)
            }
            let (found, _, gateway) = matches[0]
            do {
                try CertificateItems.delete(found, identity: identity, in: gateway)
            } catch {
                throw CommandFailure.keychain("Unable to delete \(identity ? "identity" : "certificate")", error)
            }
            return
        }
    }
}

struct DeleteCertificate: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "delete-certificate", synopsis: "[-h] [-c name] [-Z hash] [-t] [keychain...]",
        options: DeleteCertificateCommand.options("certificate"), trailer: FindPassword.trailer,
        summary: "Delete a certificate from a keychain.")

    let options: ParsedOptions

    init(_ options: ParsedOptions) throws(CommandFailure) {
        try DeleteCertificateCommand.validate(options)
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        try DeleteCertificateCommand.run(options, identity: false, context)
    }
}

struct DeleteIdentity: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "delete-identity", synopsis: "[-h] [-c name] [-Z hash] [-t] [keychain...]",
        options: DeleteCertificateCommand.options("identity"), trailer: FindPassword.trailer,
        summary: "Delete an identity (certificate + private key) from a keychain.")

    let options: ParsedOptions

    init(_ options: ParsedOptions) throws(CommandFailure) {
        try DeleteCertificateCommand.validate(options)
        _ = try KeychainOperand.list(options, command: Self.spec.name)
        self.options = options
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        try DeleteCertificateCommand.run(options, identity: true, context)
    }
}
