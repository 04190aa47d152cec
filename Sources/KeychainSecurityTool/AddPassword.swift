internal import KeychainCore
internal import KeychainToolSupport

/// What both add commands share (Apple's `keychain_add.c`): where the password comes from, the
/// add, and `-U`'s update.
enum AddPassword {
    /// The trailer of both add commands' help, as macOS prints it, plus one line on ACLs here.
    static let trailer = [
        "",
        "By default, the application which creates an item is trusted to access its data without warning.",
        "You can remove this default access by explicitly specifying an empty app pathname: -T \"\"",
        "If no keychain is specified, the password is added to the default keychain.",
        "Use of the -p or -w options is insecure. Specify -w as the last option to be prompted.",
        "On Linux, an item added without -T has no list (any application), as -A; -T paths that are not",
        "on the list are asked about when they read the item (Deny, Allow, Always Allow).",
    ]

    static let passwordOptions: [OptionSpec] = [
        OptionSpec("w", value: "password", "Specify password to be added", promptsWhenValueMissing: true),
        OptionSpec("X", value: "hex", "Specify password data to be added as a hexadecimal string"),
        OptionSpec("A", "Allow any application to access this item without warning (insecure, not recommended!)"),
        OptionSpec(
            "T", value: "appPath", "Specify an application which may access this item (multiple -T options are allowed)"
        ),
        OptionSpec("U", "Update item if it already exists (if omitted, the item cannot already exist)"),
        OptionSpec(
            nil, long: "access-group", value: "group",
            "Add the item to this access group (default: the unsigned tools' group)"),
        OptionSpec(
            nil, long: "synchronizable",
            "Make the item synchronizable (kSecAttrSynchronizable): it syncs to the keychain's other devices"),
    ]

    /// `--synchronizable`: the item is stored with `kSecAttrSynchronizable` true (a distinct item from a
    /// non-synchronizable one with the same account and service, as on Apple platforms; issue 26).
    static func synchronizable(_ options: ParsedOptions, _ attributes: inout [String: AttributeValue]) {
        if options.has("synchronizable") { attributes[.synchronizable] = .bool(true) }
    }

    /// `-T appPath` (repeatable) and `-A`: the item's trusted-application list (``TrustedApplications``,
    /// the record entry `tapp`), as macOS sets the item's ACL. Each `-T path` trusts the program at that
    /// path by the Secret Service's rule (``CallerIdentity/program(atPath:)``); a path where no program
    /// is (scripts for macOS pass `-T /usr/bin/codesign`) is trusted as `exe:<absolute path>`, made absolute
    /// and normalised against the working directory (``FileSystem/absolutePath(_:currentDirectory:)``); `-T ""`
    /// adds none, so `-T ""` alone trusts no application. `-A`, or neither option, stores no list: any
    /// application reads the item, as before.
    /// - Throws: `.usage` (exit 2) when both `-A` and `-T` are given.
    static func trustedApplications(_ options: ParsedOptions, _ attributes: inout [String: AttributeValue])
        throws(CommandFailure)
    {
        guard let paths = options.values["T"], !paths.isEmpty else { return }
        if options.has("A") { throw .usage("security: -A and -T cannot be used together") }
        var list = TrustedApplications([])
        for path in paths where !path.isEmpty {
            let identity =
                CallerIdentity.program(atPath: path)
                ?? CallerIdentity(kind: .executable(path: FileSystem.absolutePath(path), sha256: nil))
            list.add(identity.string)
        }
        attributes[.trustedApplications] = .data(list.encoded)
    }

    /// Where the new item's password comes from.
    enum Source {
        /// No `-w`: an empty password (macOS), or, with `-U`, the existing password is kept.
        case none
        /// `-w value` (or `-p value` for generic passwords): kept for compatibility; visible in `ps`.
        case argument(String)
        /// `-X hex`.
        case hex(String)
        /// `-w` as the last argument: a no-echo prompt on a terminal, else standard input.
        case prompt
    }

    static func source(_ options: ParsedOptions, passwordKeys: [String]) -> Source {
        if let hex = options.value("X") { return .hex(hex) }
        for key in passwordKeys { if let value = options.value(key) { return .argument(value) } }
        for key in passwordKeys where options.prompts.contains(key) { return .prompt }
        return .none
    }

    /// Obtains the password. On a terminal it asks twice, as macOS does (`password data for new
    /// item: `, `retype password for new item: `, three tries, `passwords don't match`); from a pipe
    /// it reads all of standard input and strips one trailing newline.
    /// - Returns: the secret (`nil` for ``Source/none``).
    /// - Throws: `.message` (exit 2) for `-X` that is not hexadecimal; `.exit(1)` when the prompt
    ///   gave up (it said why); `.keychain` for standard input over 1 MiB (`errSecDataTooLarge`) or
    ///   empty (a cancelled prompt, `errSecUserCanceled`).
    static func obtain(_ source: Source, _ context: SecurityContext, operation: String) throws(CommandFailure)
        -> SecureBytes?
    {
        switch source {
        case .none:
            return nil
        case .argument(let text):
            return SecureBytes(copying: Array(text.utf8))
        case .hex(let text):
            guard let bytes = decodeHex(text) else {
                throw .message(
                    "security: the -X value is not hexadecimal (an even number of digits 0-9, a-f)", status: 2)
            }
            return SecureBytes(copying: bytes)
        case .prompt:
            let input = PasswordInput(context)
            if input.isInteractive {
                let secret = input.readNew(
                    given: nil, prompt: "password data for new item: ", retype: "retype password for new item: ")
                guard let secret else { throw .exit(1) }
                return secret
            }
            var reader = LineReader(context.io.input)
            guard var bytes = reader.rest(limit: ItemGateway.maximumSecretBytes + 1) else {
                throw .keychain(operation, .dataTooLarge)
            }
            // Nothing at all on standard input (not even a newline) is a cancelled prompt, as in
            // the keychain-management commands: `failing | security add-… -U -w` must not store "".
            if bytes.isEmpty { throw .keychain(operation, .userCanceled) }
            if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
            let secret = SecureBytes(copying: bytes)
            bytes.wipe()
            return secret
        }
    }

    /// Adds the item through the gateway, into the `--access-group` named or the tools' default
    /// group; with `update`, an existing item with the same primary key is updated in place instead
    /// (``ItemGateway/upsert(_:group:)``: one write transaction, never delete then add).
    static func store(
        _ itemClass: ItemClass, attributes: [String: AttributeValue],
        secret: SecureBytes?, update: Bool, target: SecurityContext.Target, context: SecurityContext,
        operation: String
    ) throws(CommandFailure) {
        do {
            let gateway = try context.gateway(target)
            let item = NewItem(itemClass, attributes: attributes, secret: secret)
            if update {
                _ = try gateway.upsert(item)
            } else {
                _ = try gateway.add(item)
            }
        } catch {
            throw .keychain(operation, error)
        }
    }

    private static func decodeHex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// `security add-generic-password`: adds a generic password (`-a` account and `-s` service required).
///
/// Flags as macOS defines them: `-c` creator, `-C` type, `-D` kind, `-G` generic attribute,
/// `-j` comment, `-l` label (default: the service), `-w`/`-p` password (last with no value: prompt,
/// or read standard input when it is not a terminal), `-X` hex password, `-U` update an existing
/// item, `-A`/`-T` (the trusted-application list, ``AddPassword/trustedApplications(_:_:)``); `--access-group` and `--synchronizable` (ours); then at
/// most one keychain.
/// Exit 0; 2 for a usage error (the usage alone when `-a` or `-s` is missing, as on macOS: it marks
/// them required; a line saying why before it for a wrong option or keychain operand,
/// ``KeychainOperand/single(_:command:)``, where macOS prints the usage alone); 45 (`errSecDuplicateItem`) when the item exists and `-U` is absent,
/// with `security: SecKeychainItemCreateFromContent (<default>): The specified item already exists
/// in the keychain.`
struct AddGenericPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "add-generic-password",
        synopsis: "[-h] [-a account] [-s service] [-w password] [options...] [-A|-T appPath] [keychain]",
        options: [
            OptionSpec("a", value: "account", "Specify account name (required)"),
            OptionSpec("c", value: "creator", "Specify item creator (optional four-character code)"),
            OptionSpec("C", value: "type", "Specify item type (optional four-character code)"),
            OptionSpec("D", value: "kind", "Specify kind (default is \"application password\")"),
            OptionSpec("G", value: "value", "Specify generic attribute (optional)"),
            OptionSpec("j", value: "comment", "Specify comment string (optional)"),
            OptionSpec("l", value: "label", "Specify label (if omitted, service name is used as default label)"),
            OptionSpec("s", value: "service", "Specify service name (required)"),
            OptionSpec(
                "p", value: "password", "Specify password to be added (legacy option, equivalent to -w)",
                promptsWhenValueMissing: true),
        ] + AddPassword.passwordOptions,
        trailer: AddPassword.trailer, summary: "Add a generic password item.")

    let attributes: [String: AttributeValue]
    let source: AddPassword.Source
    let update: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let account = options.value("a"), let service = options.value("s") else { throw .usage(nil) }
        let keychain = try KeychainOperand.single(options, command: Self.spec.name)
        var attributes = ItemOptions.strings(
            options, ["D": .description, "G": .generic, "j": .comment, "access-group": .accessGroup])
        attributes[.account] = .string(account)
        attributes[.service] = .string(service)
        attributes[.label] = .string(options.value("l") ?? service)
        if let creator = try ItemOptions.codeNumber(options, "c") { attributes[.creator] = creator }
        if let type = try ItemOptions.codeNumber(options, "C") { attributes[.type] = type }
        AddPassword.synchronizable(options, &attributes)
        try AddPassword.trustedApplications(options, &attributes)
        self.attributes = attributes
        self.source = AddPassword.source(options, passwordKeys: ["w", "p"])
        self.update = options.has("U")
        self.keychain = keychain
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let target = context.target(keychain)
        let operation = "SecKeychainItemCreateFromContent (\(target.name ?? "<default>"))"
        let secret = try AddPassword.obtain(source, context, operation: operation)
        try AddPassword.store(
            .genericPassword, attributes: attributes, secret: secret,
            update: update, target: target, context: context, operation: operation)
    }
}

/// `security add-internet-password`: adds an internet password (`-a` account and `-s` server required).
///
/// Flags as macOS defines them: `-d` security domain, `-p` path, `-P` port, `-r` protocol and `-t`
/// authentication type (four-character codes; `-t` defaults to `dflt`), `-c`, `-C`, `-D`, `-j`,
/// `-l` (default: the server), `-w` password (last with no value: prompt or standard input), `-X`,
/// `-U`, `-A`/`-T` (the trusted-application list), `--access-group`, `--synchronizable`; then at most one keychain. Exit 0; 2 for a
/// usage error (as for `add-generic-password`); 45 with
/// `security: SecKeychainAddInternetPassword <NULL>: The specified item already exists in the keychain.`
struct AddInternetPassword: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "add-internet-password",
        synopsis: "[-h] [-a account] [-s server] [-w password] [options...] [-A|-T appPath] [keychain]",
        options: [
            OptionSpec("a", value: "account", "Specify account name (required)"),
            OptionSpec("c", value: "creator", "Specify item creator (optional four-character code)"),
            OptionSpec("C", value: "type", "Specify item type (optional four-character code)"),
            OptionSpec("d", value: "securityDomain", "Specify security domain string (optional)"),
            OptionSpec("D", value: "kind", "Specify kind (default is \"Internet password\")"),
            OptionSpec("j", value: "comment", "Specify comment string (optional)"),
            OptionSpec("l", value: "label", "Specify label (if omitted, server name is used as default label)"),
            OptionSpec("p", value: "path", "Specify path string (optional)"),
            OptionSpec("P", value: "port", "Specify port number (optional)"),
            OptionSpec(
                "r", value: "protocol",
                "Specify protocol (optional four-character SecProtocolType, e.g. \"http\", \"ftp \")"),
            OptionSpec("s", value: "server", "Specify server name (required)"),
            OptionSpec(
                "t", value: "authenticationType",
                "Specify authentication type (as a four-character SecAuthenticationType, default is \"dflt\")"),
        ] + AddPassword.passwordOptions,
        trailer: AddPassword.trailer, summary: "Add an internet password item.")

    let attributes: [String: AttributeValue]
    let source: AddPassword.Source
    let update: Bool
    let keychain: String?

    init(_ options: ParsedOptions) throws(CommandFailure) {
        guard let account = options.value("a"), let server = options.value("s") else { throw .usage(nil) }
        let keychain = try KeychainOperand.single(options, command: Self.spec.name)
        var attributes = ItemOptions.strings(
            options, ["d": .securityDomain, "D": .description, "j": .comment, "p": .path, "access-group": .accessGroup])
        attributes[.account] = .string(account)
        attributes[.server] = .string(server)
        attributes[.label] = .string(options.value("l") ?? server)
        attributes[.authenticationType] = .string(try ItemOptions.fourCharCode(options, "t") ?? "dflt")
        if let protocolCode = try ItemOptions.fourCharCode(options, "r") {
            attributes[.`protocol`] = .string(protocolCode)
        }
        if let port = ItemOptions.port(options) { attributes[.port] = .integer(port) }
        if let creator = try ItemOptions.codeNumber(options, "c") { attributes[.creator] = creator }
        if let type = try ItemOptions.codeNumber(options, "C") { attributes[.type] = type }
        AddPassword.synchronizable(options, &attributes)
        try AddPassword.trustedApplications(options, &attributes)
        self.attributes = attributes
        self.source = AddPassword.source(options, passwordKeys: ["w"])
        self.update = options.has("U")
        self.keychain = keychain
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        let target = context.target(keychain)
        let operation = "SecKeychainAddInternetPassword \(target.name ?? "<NULL>")"
        let secret = try AddPassword.obtain(source, context, operation: operation)
        try AddPassword.store(
            .internetPassword, attributes: attributes, secret: secret,
            update: update, target: target, context: context, operation: operation)
    }
}
