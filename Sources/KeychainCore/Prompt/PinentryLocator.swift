/// Chooses the pinentry program as GnuPG's gpg-agent does, with an override.
///
/// 1. `$KEYCHAIN_PINENTRY`: a path, or a name looked up on `$PATH` (the override; tests use it).
/// 2. `pinentry-program` in `$GNUPGHOME/gpg-agent.conf` (default `~/.gnupg/gpg-agent.conf`), as
///    gpg-agent reads it.
/// 3. `pinentry` on `$PATH`: GnuPG's default, which Debian points at the installed flavour
///    (`pinentry-gnome3`, `-qt`, `-curses`, `-tty`) through its alternatives system.
/// 4. A flavour that can be shown here: `pinentry-gnome3`, `pinentry-qt` with a display, then
///    `pinentry-curses`, `pinentry-tty` with a terminal.
package struct PinentryLocator: Sendable {
    /// The environment variable that names the pinentry program explicitly.
    package static let overrideVariable = "KEYCHAIN_PINENTRY"

    package let environment: [String: String]
    /// Whether a path names an executable file (replaced in tests).
    package let isExecutable: @Sendable (String) -> Bool
    /// Reads a text file, or `nil` (replaced in tests).
    package let readFile: @Sendable (String) -> String?

    package init(
        environment: [String: String],
        isExecutable: @escaping @Sendable (String) -> Bool = { FileSystem.isExecutable($0) },
        readFile: @escaping @Sendable (String) -> String? = { path in
            FileSystem.contents(path).map { String(decoding: $0, as: UTF8.self) }
        }
    ) {
        self.environment = environment
        self.isExecutable = isExecutable
        self.readFile = readFile
    }

    /// Where the program came from.
    package enum Source: Sendable, Equatable { case override, gpgAgentConf, defaultPinentry, flavour }

    /// The chosen program and where it came from, or `nil` when none is installed.
    /// - Parameter hasTerminal: whether a terminal is available; `hasDisplay` is read from the environment.
    package func locate(hasTerminal: Bool) -> (path: String, source: Source)? {
        if let named = environment[Self.overrideVariable], !named.isEmpty {
            return resolve(named).map { ($0, .override) }
        }
        let home = environment["HOME"] ?? ""
        let gnupgHome = environment["GNUPGHOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.gnupg"
        if let configured = readFile(gnupgHome + "/gpg-agent.conf").flatMap(Self.pinentryProgram),
            isExecutable(configured)
        {
            return (configured, .gpgAgentConf)
        }
        if let path = resolve("pinentry") { return (path, .defaultPinentry) }
        var flavours: [String] = []
        if hasDisplay { flavours += ["pinentry-gnome3", "pinentry-qt"] }
        if hasTerminal { flavours += ["pinentry-curses", "pinentry-tty"] }
        for flavour in flavours {
            if let path = resolve(flavour) { return (path, .flavour) }
        }
        return nil
    }

    /// Whether a graphical session is available (`$DISPLAY` or `$WAYLAND_DISPLAY`).
    package var hasDisplay: Bool {
        !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    /// The value of the last `pinentry-program` line of a gpg-agent.conf (gpg-agent: the last wins).
    package static func pinentryProgram(_ conf: String) -> String? {
        var found: String?
        for line in conf.split(whereSeparator: \.isNewline) {
            let trimmed = String(line).trimmingWhitespace()
            guard trimmed.hasPrefix("pinentry-program") else { continue }
            let value = String(trimmed.dropFirst("pinentry-program".count)).trimmingWhitespace()
            if !value.isEmpty { found = value }
        }
        return found
    }

    /// A path as given when it contains a slash, else the first executable of that name on `$PATH`.
    func resolve(_ name: String) -> String? {
        if name.contains("/") { return isExecutable(name) ? name : nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }
}
