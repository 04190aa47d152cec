package import KeychainCore
package import KeychainToolSupport

/// What a `security` subcommand runs with: its streams, the keychain it acts on, and its identity.
///
/// `security` is the user's management tool (design brief): it uses ``ApplicationIdentity/manager``,
/// so it sees every access group, and its adds go to the unsigned default group unless
/// `--access-group` names another.
package struct SecurityContext {
    /// The streams and environment.
    package let io: CommandIO
    /// The keychain used when the command names none; `nil` means the login keychain of the environment.
    package let defaultLocation: KeychainLocation?
    /// The identity the tool acts as.
    let identity = ApplicationIdentity.manager

    /// A context over `io`, using `defaultLocation` (or the login keychain) when no keychain is named.
    package init(io: CommandIO, defaultLocation: KeychainLocation? = nil) {
        self.io = io
        self.defaultLocation = defaultLocation
    }

    /// A keychain the command acts on, and the name macOS prints for it in messages.
    struct Target {
        let location: KeychainLocation
        /// The name given on the command line, or `nil` for the default keychain.
        let name: String?
        /// Whether opening creates the file when it is missing (only the login keychain, on first use).
        var createsOnFirstUse = false
    }

    /// The user's preferences (default keychain, search list) from the environment's config folder.
    var preferences: KeychainPreferences { KeychainPreferences.load(environment: io.environment) }

    /// The default keychain: ``defaultLocation`` when given, else the preferences' default, else login.
    func defaultTarget() -> Target {
        let location = defaultLocation ?? preferences.defaultLocation(environment: io.environment)
        let login = KeychainLocation.login(environment: io.environment)
        return Target(location: location, name: nil, createsOnFirstUse: defaultLocation != nil || location == login)
    }

    /// The keychains named as operands, or the default search list ("If no keychains are
    /// specified to search, the default search list is used").
    func targets(_ operands: [String]) -> [Target] {
        if operands.isEmpty {
            if defaultLocation != nil { return [defaultTarget()] }
            let login = KeychainLocation.login(environment: io.environment)
            return preferences.searchLocations(environment: io.environment).map {
                Target(location: $0, name: nil, createsOnFirstUse: $0 == login)
            }
        }
        return operands.map { Target(location: KeychainLocation.named($0, environment: io.environment), name: $0) }
    }

    /// The one keychain an add or management command acts on: the operand, or the default keychain.
    func target(_ operand: String?) -> Target {
        guard let operand else { return defaultTarget() }
        return Target(location: KeychainLocation.named(operand, environment: io.environment), name: operand)
    }

    /// Opens `target`: the login keychain is created on first use; any other must exist.
    func open(_ target: Target) throws(KeychainFailure) -> Keystore {
        try Keystore(location: target.location, create: target.createsOnFirstUse)
    }

    /// The policy gateway of the target's keychain, for the user's management identity
    /// (``ApplicationIdentity/manager``: every group is visible; new items go to the tools' group).
    /// - Throws: as ``open(_:)``.
    func gateway(_ target: Target) throws(KeychainFailure) -> ItemGateway {
        ItemGateway(keystore: try open(target), identity: identity)
    }

    /// Argon2id parameters for a new keychain password: ``KDFParameters/default``, or, in debug
    /// builds only, the cheap ``KDFParameters/testing`` when the environment has `KEYCHAIN_KDF=testing`.
    ///
    /// - Important: `KEYCHAIN_KDF=testing` exists for the test suites, which run debug builds. It
    ///   makes a password cheap to guess, so release builds (what `make install` installs) refuse it:
    ///   they warn and use the default parameters.
    var kdfParameters: KDFParameters {
        let (parameters, refused) = KDFParameters.forNewPassword(environment: io.environment)
        if refused { io.error.line("security: " + KDFParameters.refusedTestingWarning) }
        return parameters
    }

    /// The exit status for an `OSStatus`: its low 8 bits, as macOS `security` exits
    /// (-25300 → 44, -25299 → 45, -25293 → 51). A status whose low 8 bits are 0 exits 1, so a
    /// failure never looks like success.
    package static func exitStatus(_ status: KeychainStatus) -> Int32 { CommandFailure.securityExitStatus(status) }
}

/// A `security` subcommand: parsed, then validated (``init(_:)``), then run.
protocol SecuritySubcommand {
    /// Name, synopsis, options and help: used by the parser and by help.
    static var spec: CommandSpec { get }
    /// Validates parsed options.
    init(_ options: ParsedOptions) throws(CommandFailure)
    /// Runs the command.
    /// - Returns: the exit status.
    func run(_ context: SecurityContext) throws(CommandFailure)
}

/// Option values shared by the item commands.
enum ItemOptions {
    /// `parse_fourcharcode` of Apple's `keychain_utilities.c`: exactly four bytes, or exit 1 with
    /// `Error: four-character types must be exactly 4 characters long.` (and a hint for three).
    static func fourCharCode(_ options: ParsedOptions, _ key: String) throws(CommandFailure) -> String? {
        guard let text = options.value(key) else { return nil }
        guard text.utf8.count == 4 else {
            var message = "Error: four-character types must be exactly 4 characters long."
            if text.utf8.count == 3 { message += "\n(Try \"\(text) \" instead of \"\(text)\")" }
            throw .message(message, status: 1)
        }
        return text
    }

    /// The four-character code as the number macOS stores for `crtr` and `type`.
    static func codeNumber(_ options: ParsedOptions, _ key: String) throws(CommandFailure) -> AttributeValue? {
        guard let text = try fourCharCode(options, key), let code = AppleFormat.fourCharCode(text) else { return nil }
        return .integer(Int64(code))
    }

    /// `-P`: a port number read as `atoi(3)` reads it (leading digits; otherwise 0), kept to 16 bits.
    static func port(_ options: ParsedOptions) -> Int64? {
        options.value("P").map { Int64(UInt16(truncatingIfNeeded: atoi($0))) }
    }

    /// `atoi(3)`: optional blanks and sign, then leading digits; anything else gives 0. The value is
    /// capped at 2⁴⁰ so that it cannot overflow.
    static func atoi(_ text: String) -> Int64 {
        var characters = Substring(text.drop(while: { $0 == " " || $0 == "\t" }))
        var sign: Int64 = 1
        if let first = characters.first, first == "-" || first == "+" {
            if first == "-" { sign = -1 }
            characters = characters.dropFirst()
        }
        var value: Int64 = 0
        for character in characters {
            guard character.isASCII, let digit = character.wholeNumberValue else { break }
            value = min(value * 10 + Int64(digit), 1 << 40)
        }
        return sign * value
    }

    /// The string attributes given by option letters, e.g. `["a": .account]`.
    static func strings(_ options: ParsedOptions, _ mapping: [String: AttributeName]) -> [String: AttributeValue] {
        var attributes: [String: AttributeValue] = [:]
        for (letter, name) in mapping {
            if let value = options.value(letter) { attributes[name] = .string(value) }
        }
        return attributes
    }
}
