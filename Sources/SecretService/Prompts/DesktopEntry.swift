/// The keys of a freedesktop desktop entry (`.desktop` file) that name an application: its
/// `[Desktop Entry]` group's `Name` (with its `Name[locale]` translations), `Exec`, `TryExec` and
/// `Hidden` (Desktop Entry Specification 1.5, "Recognized desktop entry keys").
///
/// Parsing is lenient, as readers of the specification are: other groups, comments, blank lines and
/// lines without `=` are skipped. Values are unescaped (`\s`, `\n`, `\t`, `\r`, `\\`).
struct DesktopEntry: Sendable, Equatable {
    /// `Name=`, untranslated.
    var name: String?
    /// `Name[<locale>]=` values by locale (`de`, `pt_BR`, `sr@latin`).
    var localizedNames: [String: String] = [:]
    /// `Exec=`: the command line.
    var exec: String?
    /// `TryExec=`: the program that must exist for the entry to apply.
    var tryExec: String?
    /// `Hidden=true`: the entry is deleted (it hides entries of the same id further down the search path).
    var hidden = false

    /// Parses `contents` (a whole `.desktop` file); `nil` when it has no `[Desktop Entry]` group.
    init?(contents: String) {
        var inEntry = false
        var found = false
        for raw in contents.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inEntry = line == "[Desktop Entry]"
                found = found || inEntry
                continue
            }
            guard inEntry, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSpaces()
            let value = Self.unescape(line[line.index(after: equals)...].trimmingSpaces())
            switch key {
            case "Name": name = value
            case "Exec": exec = value
            case "TryExec": tryExec = value
            case "Hidden": hidden = value == "true"
            default:
                if key.hasPrefix("Name["), key.hasSuffix("]") {
                    localizedNames[String(key.dropFirst(5).dropLast())] = value
                }
            }
        }
        guard found else { return nil }
    }

    /// The name for `locale` (a POSIX locale such as `de_DE.UTF-8`): `Name[lang_COUNTRY]`, then
    /// `Name[lang]`, then `Name` (the specification's matching, without the `@MODIFIER` steps).
    /// - Returns: `nil` when the entry has no name at all.
    func name(locale: String?) -> String? {
        if let locale {
            let base = locale.split(separator: ".").first.map(String.init) ?? locale
            let withoutModifier = base.split(separator: "@").first.map(String.init) ?? base
            let language = withoutModifier.split(separator: "_").first.map(String.init) ?? withoutModifier
            for key in [withoutModifier, language] where !key.isEmpty {
                if let localized = localizedNames[key], !localized.isEmpty { return localized }
            }
        }
        return name.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `Exec=`'s words, quotes removed, after an `env VAR=value …` prefix: the program first, then its
    /// arguments (for `Exec=python3 /usr/share/app/app.py %U`, the script second).
    var execWords: [String] {
        guard let exec else { return [] }
        var words = Self.words(exec)
        if words.first == "env" || words.first == "/usr/bin/env" {
            words.removeFirst()
            while let first = words.first, first.contains("="), !first.hasPrefix("/") { words.removeFirst() }
        }
        return words
    }

    // MARK: - Private

    /// `Exec=`'s words: split at spaces, double-quoted words kept whole (the specification's quoting).
    private static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private static func unescape(_ value: Substring) -> String {
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                switch character {
                case "s": out.append(" ")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                default: out.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
