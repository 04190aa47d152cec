/// Who a program is, as one stable, printable string (issue 27, item 1): a Secret Service client, or
/// this process for the trusted-application lists of SecItem items (``TrustedApplications``).
///
/// The string is what an item's access list stores and what a prompt names:
/// - `flatpak:<app id>`: a Flatpak sandbox, from its `/.flatpak-info`;
/// - `snap:<name>`: a Snap, from its AppArmor label `snap.<name>.<app>`;
/// - `exe:<path>`: a program the user cannot modify (neither the file nor its folder is writable by the
///   user), such as a package-managed `/usr/bin/foo`, so that an update does not ask again;
/// - `exe:<path>@sha256:<hex>`: a program the user can modify, so that a replaced binary asks again;
/// - either `exe:` form followed by ` script:<path>` for an interpreter (`python3`, `node`, `sh`, …)
///   running a script: a **weak hint**, since the interpreter's arguments are the caller's own words;
/// - `unidentified`: the process could not be read (it exited, or `/proc` is hidden).
///
/// The systemd unit (``unit``) is informative only: it is shown and logged, never part of ``string``,
/// since the same program runs in several units.
package struct CallerIdentity: Sendable, Hashable, CustomStringConvertible {
    /// What kind of program the caller is.
    package enum Kind: Sendable, Hashable {
        case flatpak(appID: String)
        case snap(name: String)
        /// `sha256` is the lowercase hex digest when the user can write the file or its folder.
        case executable(path: String, sha256: String?)
        case unidentified
    }

    package var kind: Kind {
        didSet { string = Self.text(kind, script) }
    }
    /// The script an interpreter runs, as its command line names it (a weak hint).
    package var script: String? {
        didSet { string = Self.text(kind, script) }
    }
    /// The systemd unit from `/proc/<pid>/cgroup` (`app-foo.scope`, `foo.service`), when there is one.
    package var unit: String?
    /// The identity as stored in access lists and shown in prompts: made when ``kind`` or ``script`` is
    /// set, not at each use (the provider compares it with an item's access list at every secret read
    /// and search result; tracker issue 29, item 4).
    package private(set) var string: String

    package init(kind: Kind, script: String? = nil, unit: String? = nil) {
        self.kind = kind
        self.script = script
        self.unit = unit
        string = Self.text(kind, script)
    }

    private static func text(_ kind: Kind, _ script: String?) -> String {
        var text: String
        switch kind {
        case .flatpak(let appID): text = "flatpak:\(appID)"
        case .snap(let name): text = "snap:\(name)"
        case .executable(let path, let sha256): text = "exe:\(path)" + (sha256.map { "@sha256:\($0)" } ?? "")
        case .unidentified: text = "unidentified"
        }
        if let script { text += " script:\(script)" }
        return text
    }

    package var description: String { string }

    /// Whether the caller runs in a sandbox that confines it to its own access group (item 3).
    package var isSandboxed: Bool {
        switch kind {
        case .flatpak, .snap: true
        case .executable, .unidentified: false
        }
    }

    /// The access group a sandboxed caller is confined to (`flatpak:<app id>`, `snap:<name>`, the
    /// design brief's names); `nil` for an unsandboxed caller.
    package var accessGroup: String? {
        switch kind {
        case .flatpak(let appID): "flatpak:\(appID)"
        case .snap(let name): "snap:\(name)"
        case .executable, .unidentified: nil
        }
    }
}
