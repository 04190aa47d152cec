internal import KeychainCore
internal import KeychainToolSupport

/// `security dump-keychain [-ad] [keychain...]`: prints every generic and internet password's
/// attribute block (Apple's `do_keychain_dump`); `-d` adds `data:` and the secret after each.
///
/// Freedesktop Secret Service items in the keychain follow, by label and attribute names; their
/// secrets only with `-d` (``dumpSecretServiceItems(_:path:_:)``): one section per ``RowKind`` that holds
/// items, in its order.
///
/// `-a` (access control lists) is accepted and prints nothing more: there are no ACLs here.
/// Exit 0, or the low 8 bits of the `OSStatus` when a keychain cannot be read.
struct DumpKeychain: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "dump-keychain", synopsis: "[-h] [-ad] [keychain...]",
        options: [
            OptionSpec("a", "Dump access control list of items (none exist on Linux)"),
            OptionSpec("d", "Dump (decrypted) data of items"),
        ],
        summary: "Dump the contents of one or more keychains.")

    let showData: Bool
    let keychains: [String]

    init(_ options: ParsedOptions) throws(CommandFailure) {
        showData = options.has("d")
        keychains = try KeychainOperand.list(options, command: Self.spec.name)
    }

    func run(_ context: SecurityContext) throws(CommandFailure) {
        var withheld = 0
        defer {
            if withheld > 0 {
                context.io.error.line(
                    "security: the data of \(withheld) access-controlled item(s) was left out: they need authentication"
                        + " that could not be given here")
            }
        }
        for target in context.targets(keychains) {
            do {
                let gateway = try context.gateway(target)
                // One authorizer per keychain asks at most once for each kind of proof (issue 16); the
                // gateway withholds the data of an item whose proof is not given.
                var authorizer = AccessAuthorizer(
                    keystore: gateway.keystore, context: nil, ui: .allow,
                    reason: "security wants to dump protected keychain items.")
                let path = target.location.databasePath
                // Every kind of row the keychain holds, so that a new kind does not compile until it is listed.
                for kind in RowKind.allCases {
                    switch kind {
                    case .secItem:
                        withheld += try dumpPasswords(gateway, path: path, &authorizer, context)
                    case .secretService:
                        try dumpSecretServiceItems(gateway.keystore, path: path, context)
                    case .sync:
                        // The journal and conflict copies are not items: `security sync conflicts` lists copies.
                        break
                    }
                }
            } catch {
                throw .keychain("SecKeychainSearchCopyNext", error)
            }
        }
    }
}

extension DumpKeychain {
    /// The generic and internet passwords (SecItem rows), through the gateway's releasing search with `-d`.
    /// - Returns: how many items' data was withheld (they need a proof that could not be given).
    func dumpPasswords(
        _ gateway: ItemGateway, path: String, _ authorizer: inout AccessAuthorizer, _ context: SecurityContext
    ) throws(KeychainFailure) -> Int {
        var withheld = 0
        for itemClass in [ItemClass.genericPassword, .internetPassword] {
            let query = ItemQuery(itemClass: itemClass, scope: gateway.callerScope, synchronizable: .any)
            let items: [StoredItem]
            do {
                if showData {
                    items = try gateway.search(
                        query, projection: [.attributes], release: &authorizer, refusal: .withholdsSecret)
                } else {
                    items = try gateway.search(query, projection: [.attributes])
                }
            } catch  where error.reason == .orphanedItem {
                // Every item of this class is a ThisDeviceOnly item of another installation:
                // nothing to show; the other class and keychains still are.
                continue
            }
            for item in items {
                context.io.output.write(ItemPrinter.attributes(of: item, keychainPath: path))
                if showData {
                    context.io.output.line("data:")
                    if item.needsAuthentication && item.secret == nil {
                        withheld += 1
                    } else {
                        item.secret?.withUnsafeBytes { context.io.output.write(AppleFormat.buffer($0)) }
                    }
                    context.io.output.line("")
                }
            }
        }
        return withheld
    }

    /// Freedesktop Secret Service items (issue 17): a block each with the label and the attribute
    /// names (values can name accounts, so they are left out), then with `-d` the content type and
    /// the secret. Their class `"ssvc"` is this project's: macOS has no such items.
    func dumpSecretServiceItems(_ store: Keystore, path: String, _ context: SecurityContext) throws(KeychainFailure) {
        for item in try store.secretItems(matching: [:]) {
            var text = "keychain: " + AppleFormat.buffer(Array(path.utf8)) + "\n"
            text += "class: \"ssvc\"\nattributes:\n"
            text += "    \"labl\"<blob>=" + AppleFormat.buffer(Array(item.label.utf8)) + "\n"
            text += "    \"item\"<uint32>=\(item.number)\n"
            for name in item.attributes.keys.sorted() {
                text += "    \"attr\"<name>=" + AppleFormat.buffer(Array(name.utf8)) + "\n"
            }
            context.io.output.write(text)
            if showData {
                let secret = try store.secretItemSecret(item.number)
                context.io.output.line("content type: " + AppleFormat.buffer(Array(secret.contentType.utf8)))
                context.io.output.line("data:")
                secret.value.withUnsafeBytes { context.io.output.write(AppleFormat.buffer($0)) }
                context.io.output.line("")
            }
        }
    }
}

/// `security error <code...>`: prints `Error: 0x%08X %d <message>` for each code, decimal or hex
/// (`strtoul` with base 0), as Apple's `display_error_code.c` does, and, like it, exits 1.
struct ErrorCommand: SecuritySubcommand {
    static let spec = CommandSpec(
        name: "error", synopsis: "<error code(s)...>",
        options: [],
        trailer: [
            "Display an error string for the given security-related error code.",
            "The error can be in decimal or hex, e.g. 1234 or 0x1234. Multiple errors can be separated by spaces.",
        ],
        summary: "Display a descriptive message for the given error code(s).", takesRawOperands: true)

    let codes: [Int32]

    init(_ options: ParsedOptions) throws(CommandFailure) {
        codes = options.operands.map(Self.parse)
    }

    /// `strtoul(text, NULL, 0)` truncated to 32 bits: optional sign, `0x` hex, leading `0` octal, else decimal.
    static func parse(_ text: String) -> Int32 {
        var rest = Substring(text.drop(while: { $0 == " " || $0 == "\t" }))
        var negative = false
        if rest.first == "-" || rest.first == "+" {
            negative = rest.first == "-"
            rest = rest.dropFirst()
        }
        var radix: UInt64 = 10
        if rest.lowercased().hasPrefix("0x") {
            radix = 16
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix("0") {
            radix = 8
        }
        var value: UInt64 = 0
        for character in rest {
            guard let digit = character.hexDigitValue, UInt64(digit) < radix else { break }
            value = value &* radix &+ UInt64(digit)
        }
        let magnitude = UInt32(truncatingIfNeeded: value)
        return Int32(bitPattern: negative ? 0 &- magnitude : magnitude)
    }

    /// - Throws: always ``CommandFailure/exit(_:)`` with 1, after printing, as Apple's tool exits 1.
    func run(_ context: SecurityContext) throws(CommandFailure) {
        for code in codes {
            var hex = String(UInt32(bitPattern: code), radix: 16, uppercase: true)
            hex = String(repeating: "0", count: max(0, 8 - hex.count)) + hex
            context.io.output.line("Error: 0x\(hex) \(code) \(KeychainStatus(code).message)")
        }
        throw .exit(1)
    }
}
