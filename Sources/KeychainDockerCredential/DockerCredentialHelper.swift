package import KeychainCore
package import KeychainToolSupport

/// `docker-credential-keychain store|get|erase|list|version`: docker's credential-helper protocol
/// (`docker/docker-credential-helpers`, `credentials/credentials.go`) over internet passwords.
///
/// Items are stored as docker's osxkeychain helper stores them: internet passwords split from the
/// server URL (protocol `htps`, or `http` for `http://`; server; port when given; path), label
/// `Docker Credentials`, account = username. A URL without a scheme is read as `//host…` and
/// counts as https (`registryurl.Parse`). Lookups leave out the port and path when the URL has
/// none, so a credential stored with a port is found without it; protocol, a given port and a
/// given path must match.
///
/// - `store` (JSON `{"ServerURL","Username","Secret"}`, keys matched case-insensitively as Go's
///   decoder does, the last matching member counting: ``DockerCredentials``): upserts the item, then removes other items the same URL selects, which is what
///   osxkeychain's delete-then-add leaves, without a moment where no credential exists.
/// - `get` (the server URL on stdin): prints `{"ServerURL":…,"Username":…,"Secret":…}` and a newline.
/// - `erase` (the server URL on stdin): deletes what the URL selects.
/// - `list`: prints `{"<server URL>":"<username>",…}` for every `Docker Credentials` item, the URL
///   rebuilt from its attributes (`https://host[:port]/path`).
/// - `version`: prints `docker-credential-keychain (swift-keychain) <version>`.
/// - `-h`, `--help`: print ``help`` on stdout and exit 0 (docker itself never sends them).
///
/// Errors go to **stdout** with exit 1, as docker expects: `credentials not found in native
/// keychain`, `no credentials server URL`, `no credentials username`, and
/// `Usage: docker-credential-keychain <store|get|erase|list|version>`.
package enum DockerCredentialHelper {
    /// The label of every item this helper writes (`credentials.CredsLabel`).
    static let label = CredentialHelpers.dockerLabel
    /// This helper's version.
    package static let version = ProjectVersion.current
    static let notFound = CredentialHelpers.dockerNotFound
    /// The largest input read, in bytes.
    static let maximumInput = 1 << 20
    /// What `--help` and `-h` print on stdout.
    static let help = """
        Usage: docker-credential-keychain <store|get|erase|list|version>

        A docker credential helper that keeps registry credentials in the keychain as internet
        passwords. docker runs it with one action and its input on standard input:
          store    save {"ServerURL","Username","Secret"} read as JSON
          get      print the credential for the server URL read
          erase    remove the credential for the server URL read
          list     print every server URL with its username, as JSON
          version  print the helper's version
        To use it, add "credsStore": "keychain" to ~/.docker/config.json.
          -h, --help   show this help

        """

    /// Runs the helper with `arguments` (without the program name).
    /// - Parameters:
    ///   - arguments: exactly one action.
    ///   - io: the streams and environment.
    ///   - location: the keychain; `nil` means the default keychain of `io.environment`
    ///     (`security default-keychain`; the login keychain unless set).
    /// - Returns: 0, or 1 after the error message on stdout.
    package static func run(_ arguments: [String], io: CommandIO, location: KeychainLocation? = nil) -> Int32 {
        CommandFailure.exitStatus(.dockerCredential, io: io) { () throws(CommandFailure) in
            try perform(arguments, io: io, location: location)
        }
    }

    /// The helper's work, throwing how it fails.
    /// - Throws: `.message` for usage, input and URL problems; `.keychain` for engine failures.
    static func perform(_ arguments: [String], io: CommandIO, location: KeychainLocation?) throws(CommandFailure) {
        guard arguments.count == 1 else {
            throw .message("Usage: docker-credential-keychain <store|get|erase|list|version>", status: 1)
        }
        switch arguments[0] {
        case "-h", "--help":
            io.output.write(Self.help)
            return
        case "version":
            io.output.line("docker-credential-keychain (swift-keychain) \(version)")
            return
        case "store", "get", "erase", "list":
            break
        default:
            throw .message("Unknown credential action `\(arguments[0])`", status: 1)
        }
        // The input holds docker's secret on `store`: wiped once the command is done.
        var input = try readInput(io)
        defer { input.wipe() }
        let identity = try keychain { () throws(KeychainFailure) in
            try ApplicationIdentity.fromEnvironment(io.environment)
        }
        let store = try keychain { () throws(KeychainFailure) in
            try KeychainPreferences.openDefault(location, environment: io.environment)
        }
        let session = DockerKeychain(gateway: ItemGateway(keystore: store, identity: identity))
        switch arguments[0] {
        case "store": try session.store(try DockerCredentials.decode(input))
        case "get": try session.get(try serverURL(input)).withUnsafeBytes { io.output.write(bytes: $0) }
        case "erase": try session.erase(try serverURL(input))
        default: io.output.write(try session.list())
        }
    }

    /// The `main` of the executable: real streams and environment.
    package static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let io = CommandIO.standard(environment: environment)
        let status = run(Array(arguments.dropFirst()), io: io)
        io.flush()
        return status
    }

    /// Runs an engine call; its failure is reported as ``CommandFailure/keychain(_:_:exit:)``
    /// (`credentials not found in native keychain`, or Apple's message and the status).
    static func keychain<R>(_ body: () throws(KeychainFailure) -> R) throws(CommandFailure) -> R {
        do { return try body() } catch { throw .keychain("", error) }
    }

    /// Standard input with its lines joined, as docker's `bufio.Scanner` loop joins them (in place:
    /// no second copy of a secret is left behind unwiped).
    static func readInput(_ io: CommandIO) throws(CommandFailure) -> [UInt8] {
        var reader = LineReader(io.input)
        guard var bytes = reader.rest(limit: maximumInput) else {
            throw .message("the input is larger than \(maximumInput) bytes", status: 1)
        }
        bytes.removeAll { $0 == UInt8(ascii: "\n") }
        return bytes
    }

    /// The server URL read by `get` and `erase`: the input trimmed of white space.
    static func serverURL(_ input: [UInt8]) throws(CommandFailure) -> String {
        let text = String(decoding: input, as: UTF8.self)
        // Go's strings.TrimSpace: Unicode white space at both ends.
        let trimmed = String(
            text.unicodeScalars.drop(while: \.properties.isWhitespace).reversed()
                .drop(while: \.properties.isWhitespace).reversed().map(Character.init))
        guard !trimmed.isEmpty else { throw .message("no credentials server URL", status: 1) }
        return trimmed
    }
}
