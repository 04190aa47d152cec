internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Works out a process's ``CallerIdentity`` from its `/proc` entry (issue 27, item 1), in this order:
/// a Flatpak sandbox (`/proc/<pid>/root/.flatpak-info`, `[Application] name=`), a Snap (AppArmor label
/// `snap.<name>.<app>`, from the bus daemon's `LinuxSecurityLabel` or `/proc/<pid>/attr/current`), else
/// the executable (`/proc/<pid>/exe`), with its SHA-256 when the user can write the file or its folder,
/// and for an interpreter the script its command line names. The systemd unit comes from
/// `/proc/<pid>/cgroup` (cgroup v2 line `0::`).
///
/// The Snap name is taken from the AppArmor label only, never from the cgroup: any process of the
/// user can start a `snap.foo.bar-….scope` unit of its own with `systemd-run --user`, but only snapd's
/// policy puts a process under a `snap.…` profile.
enum ProcessIdentifier {
    /// Interpreters whose script path is added as a hint (names compared without trailing version
    /// digits and dots: `python3.11` is `python`).
    static let interpreters: Set<String> = [
        "python", "node", "nodejs", "sh", "bash", "dash", "zsh", "ksh", "fish", "perl", "ruby", "lua", "luajit",
        "php", "tclsh", "wish", "osascript", "gjs", "deno", "bun", "java", "guile", "Rscript",
    ]

    /// - Parameters:
    ///   - process: the process, held by a pidfd.
    ///   - securityLabel: the bus daemon's `LinuxSecurityLabel`, when it gave one.
    ///   - digests: the cache of program digests.
    /// - Returns: the identity; `.unidentified` with the unit when the executable cannot be read.
    /// - Throws: ``CallerLookupError/processGone(_:)`` when the process exits or its pid is reused
    ///   before the reading is done (checked after the last read); ``CallerLookupError/malformedSandbox(_:)``
    ///   when a `/.flatpak-info` exists but names no valid app id.
    static func identify(
        _ process: ProcessHandle, securityLabel: String?, digests: ExecutableDigest
    ) throws(CallerLookupError) -> CallerIdentity {
        let unit = process.contents("cgroup").flatMap(systemdUnit)
        var identity: CallerIdentity
        if let info = process.contents("root/.flatpak-info") {
            guard let appID = flatpakAppID(info) else {
                throw .malformedSandbox("/.flatpak-info names no valid application id")
            }
            identity = CallerIdentity(kind: .flatpak(appID: appID), unit: unit)
        } else if let name = snapName(securityLabel ?? process.contents("attr/current").map(string)) {
            identity = CallerIdentity(kind: .snap(name: name), unit: unit)
        } else if let exe = process.link("exe") {
            identity = executable(exe, process: process, digests: digests, unit: unit)
        } else {
            identity = CallerIdentity(kind: .unidentified, unit: unit)
        }
        try process.verify()
        return identity
    }

    // MARK: - Parts

    /// `app-gnome-foo-1234.scope` or `foo.service` from a `/proc/<pid>/cgroup` file: the last
    /// `.service` or `.scope` component of the cgroup v2 path (`user@1000.service` only if nothing
    /// more specific follows).
    static func systemdUnit(_ cgroup: [UInt8]) -> String? {
        for line in string(cgroup).split(separator: "\n") where line.hasPrefix("0::") {
            let components = line.dropFirst(3).split(separator: "/")
            return components.last { $0.hasSuffix(".service") || $0.hasSuffix(".scope") }.map(String.init)
        }
        return nil
    }

    /// The `name` key of the `[Application]` group of a `.flatpak-info` key file, if it is a valid
    /// Flatpak application id (D-Bus name rules: 255 bytes at most, at least two dot-separated
    /// elements of `[A-Za-z0-9_-]`, none starting with a digit).
    static func flatpakAppID(_ info: [UInt8]) -> String? {
        var group = ""
        for raw in string(info).split(separator: "\n") {
            let line = String(raw).trimmingSpaces
            if line.hasPrefix("[") && line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
            } else if group == "Application", line.hasPrefix("name=") {
                let id = String(line.dropFirst(5)).trimmingSpaces
                return isValidAppID(id) ? id : nil
            }
        }
        return nil
    }

    static func isValidAppID(_ id: String) -> Bool {
        let elements = id.split(separator: ".", omittingEmptySubsequences: false)
        guard id.utf8.count <= 255, elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.utf8.first, !(48...57).contains(first) else { return false }
            return element.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 95
                    || byte == 45
            }
        }
    }

    /// `<name>` of an AppArmor label `snap.<name>.<app>` or `snap.<name>.hook.<hook>`, with or without
    /// a trailing ` (enforce)`; `nil` for any other label.
    static func snapName(_ label: String?) -> String? {
        guard let label else { return nil }
        let profile = label.trimmingSpaces.split(separator: " ").first.map(String.init) ?? ""
        let parts = profile.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "snap", !parts[1].isEmpty else { return nil }
        return String(parts[1])
    }

    /// The `exe:` identity of a program at `link` (the target of `/proc/<pid>/exe`), by KeychainCore's
    /// rule (``CallerIdentity/executable(link:digests:openFile:script:unit:)``), with the script hint.
    static func executable(
        _ link: String, process: ProcessHandle, digests: ExecutableDigest, unit: String?
    ) -> CallerIdentity {
        let path = link.hasSuffix(" (deleted)") ? String(link.dropLast(" (deleted)".count)) : link
        let script = isInterpreter(path) ? scriptHint(process) : nil
        return CallerIdentity.executable(
            link: link, digests: digests, openFile: { process.openFile("exe") }, script: script, unit: unit)
    }

    static func isInterpreter(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var base = Substring(name)
        while let last = base.last, last.isNumber || last == "." { base = base.dropLast() }
        return interpreters.contains(String(base))
    }

    /// The first argument of the command line after the interpreter's own options (`-u`, `--foo`), made
    /// absolute against the process's working directory; `nil` when there is none (`sh -c …`, a REPL).
    static func scriptHint(_ process: ProcessHandle) -> String? {
        guard let cmdline = process.contents("cmdline") else { return nil }
        let arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false).dropFirst().map {
            String(decoding: $0, as: UTF8.self)
        }
        for argument in arguments {
            if argument == "-c" || argument == "-e" || argument == "-m" { return nil }
            if argument.hasPrefix("-") { continue }
            guard !argument.isEmpty else { return nil }
            if argument.hasPrefix("/") { return argument }
            return process.link("cwd").map { $0 + "/" + argument } ?? argument
        }
        return nil
    }

    private static func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
