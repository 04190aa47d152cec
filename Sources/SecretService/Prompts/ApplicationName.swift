internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// The name a user knows an application by (`Seahorse`), for the access question (tracker issue 24,
/// as macOS names the app in "<app> wants to use your confidential information…").
///
/// It comes from the application's desktop entry (``DesktopEntry``), searched as the XDG Base
/// Directory and Desktop Entry specifications say: `$XDG_DATA_HOME/applications` (default
/// `~/.local/share`), then each `$XDG_DATA_DIRS` entry's `applications` (default `/usr/local/share`,
/// `/usr/share`), the first file of a desktop id winning (so a `Hidden=true` copy hides it):
/// - `flatpak:<app id>`: the file `<app id>.desktop` (also in Flatpak's export folders,
///   `~/.local/share/flatpak/exports/share` and `/var/lib/flatpak/exports/share`);
/// - `exe:<path>`: the entry whose `Exec=` or `TryExec=` program is that executable (an absolute path,
///   or a bare name found on `$PATH`, both with symbolic links resolved: `Exec=python3` matches
///   `/usr/bin/python3.11`);
/// - an interpreter running a script: the entry whose program is the script, else the interpreter's.
///
/// `Name[lang_COUNTRY]`, then `Name[lang]` for the language of `$LC_ALL`, `$LC_MESSAGES` or `$LANG`
/// (the first set), then `Name`. Without an entry: the script's or executable's file name, the
/// Flatpak app id, the Snap's name. A name is at most 80 characters, control characters replaced by
/// spaces.
///
/// - Important: a desktop file is the user's (anyone running as the user can write one), so the name
///   is a convenience: the question keeps the identity on its second line (``AccessConfirmation/text``).
struct ApplicationName {
    /// The variables read: `XDG_DATA_HOME`, `XDG_DATA_DIRS`, `HOME`, `PATH`, `LC_ALL`, `LC_MESSAGES`, `LANG`.
    let environment: [String: String]

    init(environment: [String: String] = ProcessEnvironment.current()) {
        self.environment = environment
    }

    /// The longest name shown, in characters.
    static let maximumLength = 80

    /// The name of `identity`'s application (see the type's description).
    func name(of identity: CallerIdentity) -> String {
        let found: String?
        let fallback: String
        switch identity.kind {
        case .flatpak(let appID):
            found = entry(id: appID + ".desktop", extraDirectories: flatpakDirectories)
                .flatMap { $0.name(locale: locale) }
            fallback = appID
        case .snap(let name):
            found = nil
            fallback = name
        case .executable(let path, _):
            // A script caller is named by its script only: an entry that runs the interpreter (`Exec=python3`)
            // would name every script.
            let matched =
                identity.script.map { entry(running: Self.realPath($0) ?? $0, script: true) }
                ?? entry(running: path, script: false)
            found = matched.flatMap { $0.name(locale: locale) }
            fallback = Self.fileName(identity.script ?? path)
        case .unidentified:
            found = nil
            fallback = identity.string
        }
        return Self.clean(found ?? fallback) ?? fallback
    }

    // MARK: - Private

    /// `applications` folders in search order.
    private var applicationDirectories: [String] {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.local/share" }
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return ([dataHome].compactMap { $0 } + dataDirs).map { $0 + "/applications" }
    }

    private var flatpakDirectories: [String] {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        return [home.map { $0 + "/.local/share/flatpak/exports/share/applications" }].compactMap { $0 }
            + ["/var/lib/flatpak/exports/share/applications"]
    }

    private var locale: String? {
        for key in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[key], !value.isEmpty { return value }
        }
        return nil
    }

    /// The first file named `id` in the search path, unless it is hidden.
    private func entry(id: String, extraDirectories: [String] = []) -> DesktopEntry? {
        for directory in applicationDirectories + extraDirectories {
            guard let contents = Self.read(directory + "/" + id) else { continue }
            guard let entry = DesktopEntry(contents: contents) else { continue }
            return entry.hidden ? nil : entry
        }
        return nil
    }

    /// The first entry (by desktop id, in search order) whose `Exec=` or `TryExec=` program is `path`
    /// (`script`: also `Exec=`'s second word, the script an interpreter runs).
    private func entry(running path: String, script: Bool) -> DesktopEntry? {
        var seen: Set<String> = []
        for directory in applicationDirectories {
            for (id, file) in Self.desktopFiles(in: directory) where seen.insert(id).inserted {
                guard let contents = Self.read(file), let entry = DesktopEntry(contents: contents), !entry.hidden
                else { continue }
                let programs = entry.execWords.prefix(script ? 2 : 1) + [entry.tryExec].compactMap { $0 }
                if programs.contains(where: { resolve($0) == path }) { return entry }
            }
        }
        return nil
    }

    /// An `Exec=` program as a resolved path: an absolute one as is, a bare name looked up on `$PATH`.
    private func resolve(_ program: String) -> String? {
        if program.hasPrefix("/") { return Self.realPath(program) ?? program }
        guard !program.contains("/") else { return nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = directory + "/" + program
            if access(candidate, X_OK) == 0 { return Self.realPath(candidate) ?? candidate }
        }
        return nil
    }

    /// `(desktop id, path)` of the `.desktop` files under `directory`, sorted; the id of
    /// `applications/kde/foo.desktop` is `kde-foo.desktop` (the specification's rule). At most 3 levels.
    private static func desktopFiles(in directory: String, prefix: String = "", depth: Int = 0) -> [(String, String)] {
        guard depth < 3, let names = FileSystem.entries(directory) else { return [] }
        var files: [(String, String)] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory + "/" + name
            if name.hasSuffix(".desktop") {
                files.append((prefix + name, path))
            } else {
                var info = stat()
                if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                    files += desktopFiles(in: path, prefix: prefix + name + "-", depth: depth + 1)
                }
            }
        }
        return files
    }

    /// A desktop file's text; `nil` when it cannot be read or is over 64 KiB (not a desktop file).
    private static func read(_ path: String) -> String? {
        guard let data = FileSystem.contents(path), data.count <= 65536 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// `name` with control characters as spaces, trimmed, at most ``maximumLength`` characters; `nil` if empty.
    private static func clean(_ name: String) -> String? {
        let flat = String(name.map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? " " : $0 })
        let trimmed = flat.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        guard !trimmed.isEmpty else { return nil }
        return trimmed.count > maximumLength ? String(trimmed.prefix(maximumLength - 1)) + "…" : trimmed
    }
}
