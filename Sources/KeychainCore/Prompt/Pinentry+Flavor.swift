#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Which pinentry is showing the dialog, and whether it can show a third button (tracker issue 24).
///
/// pinentry answers `GETINFO flavor` (since 1.1) with the flavour it was built as and, after a colon,
/// the one it fell back to: `gnome3` when GNOME's prompter shows the dialog, `gnome3:curses` when
/// pinentry-gnome3 found no prompter and asks on the terminal, `tty`, `curses`, `qt`, `gtk2`, `fltk`.
/// GNOME's prompter (gcr) has only a continue and a cancel button: pinentry-gnome3 ignores
/// `SETNOTOK`, so "Always Allow" would never be offered. Every other flavour draws the not-OK button.
extension Pinentry {
    /// The flavours whose dialog shows only OK and Cancel, whatever `SETNOTOK` says.
    package static let twoButtonFlavors: Set<String> = ["gnome3"]

    /// Whether the dialog shows `SETNOTOK`'s button.
    /// - Parameters:
    ///   - flavor: the `GETINFO flavor` reply (`gnome3`, `gnome3:curses`), `nil` when the pinentry did not
    ///     answer it (older than 1.1); then the program's name, symbolic links resolved, decides
    ///   (`pinentry-gnome3`: two buttons).
    ///   - program: the pinentry's path.
    /// - Returns: `false` when the flavour in use (the fallback after the colon, else the flavour) is one of
    ///   ``twoButtonFlavors``; `true` otherwise.
    package static func showsThirdButton(flavor: String?, program: String) -> Bool {
        if let flavor, !flavor.isEmpty {
            let inUse = flavor.split(separator: ":").last.map(String.init) ?? flavor
            return !twoButtonFlavors.contains(inUse)
        }
        var name = program
        if let resolved = realpath(program, nil) {
            name = String(cString: resolved)
            free(resolved)
        }
        let base = name.split(separator: "/").last.map(String.init) ?? name
        return !twoButtonFlavors.contains { base == "pinentry-" + $0 }
    }

    /// The pinentry's `GETINFO flavor` reply, or `nil` when it answers with an error or no data.
    static func flavor(of connection: AssuanConnection) throws(KeychainFailure) -> String? {
        guard case .ok(let data?) = try connection.transact("GETINFO flavor") else { return nil }
        let text = data.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        return text.isEmpty ? nil : text
    }
}
