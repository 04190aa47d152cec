/// One option of a subcommand: the single source for parsing and for help text.
package struct OptionSpec: Sendable {
    /// The letter after `-` (`"a"` for `-a`), or `nil` for a long-only option.
    package let letter: Character?
    /// The long name after `--` (`"access-group"`), if any.
    package let longName: String?
    /// The value's name in help (`"account"`), or `nil` for a flag.
    package let valueName: String?
    /// The help line, as macOS `security` words it.
    package let help: String
    /// A missing value means "prompt for it" (`-w` and `-p` of the add commands), not a usage error.
    package let promptsWhenValueMissing: Bool
    /// Shown in help (some accepted options are hidden, as in macOS).
    package let isListed: Bool

    /// Describes an option.
    package init(
        _ letter: Character?, long: String? = nil, value: String? = nil, _ help: String,
        promptsWhenValueMissing: Bool = false, listed: Bool = true
    ) {
        self.letter = letter
        self.longName = long
        self.valueName = value
        self.help = help
        self.promptsWhenValueMissing = promptsWhenValueMissing
        self.isListed = listed
    }

    /// The name used in messages and as the key of parsed values: `"a"` or `"access-group"`.
    package var key: String { letter.map(String.init) ?? longName ?? "" }
}

/// A subcommand's metadata: name, synopsis, options and help trailer (macOS `security.c` command table).
package struct CommandSpec: Sendable {
    /// The subcommand's name, e.g. `find-generic-password`.
    package let name: String
    /// The text after the name on the `Usage:` line.
    package let synopsis: String
    /// The options, in help order.
    package let options: [OptionSpec]
    /// Lines printed after the option list.
    package let trailer: [String]
    /// The one-line description (`security help` lists it).
    package let summary: String
    /// Every argument is an operand, even one starting with `-` (`security error -25300`).
    package let takesRawOperands: Bool
    /// The shortest prefix that finds this command. `import-passwords` and `export-passwords` need
    /// 7 characters, so that macOS's `import` and `export` (keys and certificates) never run them.
    package let minimumPrefixLength: Int
    /// The first argument is an operand given before the options (`security import inputfile [-k …]`,
    /// whose `main` takes the file and then runs `getopt` on the rest).
    package var takesLeadingOperand = false

    /// Describes a subcommand.
    package init(
        name: String, synopsis: String, options: [OptionSpec], trailer: [String] = [], summary: String,
        takesRawOperands: Bool = false, minimumPrefixLength: Int = 1
    ) {
        self.name = name
        self.synopsis = synopsis
        self.options = options
        self.trailer = trailer
        self.summary = summary
        self.takesRawOperands = takesRawOperands
        self.minimumPrefixLength = minimumPrefixLength
    }

    /// The help text: `Usage: <name> <synopsis>`, one line per listed option, the trailer.
    /// Printed by `help <name>`, `-h` and `--help` (stdout), and after a usage error (stderr,
    /// followed by the summary, as macOS prints it).
    package var usage: String {
        var text = "Usage: \(name) \(synopsis)\n"
        for option in options where option.isListed {
            if let letter = option.letter {
                text += "    -\(letter)  \(option.help)\n"
            } else if let long = option.longName {
                text += "    --\(long)\(option.valueName.map { " <\($0)>" } ?? "")  \(option.help)\n"
            }
        }
        for line in trailer { text += line + "\n" }
        return text
    }
}

/// The options and operands of one command line.
package struct ParsedOptions {
    /// Values by option key; repeated options keep every value in order.
    package var values: [String: [String]] = [:]
    /// Flags given (options without a value).
    package var flags: Set<String> = []
    /// Options given without their value where that means "prompt" (`-w` last).
    package var prompts: Set<String> = []
    /// Operands after the options.
    package var operands: [String] = []
    /// `-h` or `--help` was given.
    package var helpRequested = false

    /// The last value of option `key`, if given.
    package func value(_ key: String) -> String? { values[key]?.last }

    /// Whether flag `key` was given.
    package func has(_ key: String) -> Bool { flags.contains(key) }
}

/// A hand-written parser with BSD `getopt(3)` rules, as macOS `security` uses them.
///
/// Options come first; clustered flags (`-gw`) and attached values (`-aalice`) are accepted;
/// parsing stops at `--` or at the first operand. `-h` and `--help` request help. Long options
/// (`--name value` or `--name=value`) are this project's extensions.
package enum OptionParser {
    /// Parses `arguments` (without the subcommand name) against `spec`.
    /// - Returns: the parsed options.
    /// - Throws: ``CommandFailure/usage(_:)`` for an unknown option or a missing value, with the line
    ///   `getopt` prints before the usage (`security: illegal option -- z`, `security: option requires an
    ///   argument -- a`). Every command prints it, the add commands too, although macOS's are silent
    ///   (their `getopt` string starts with `:`): the new-user trial of issue 29 found a bare usage gave
    ///   no reason.
    package static func parse(_ arguments: [String], spec: CommandSpec) throws(CommandFailure) -> ParsedOptions {
        var parsed = ParsedOptions()
        if spec.takesRawOperands {
            parsed.helpRequested = arguments == ["-h"] || arguments == ["--help"]
            parsed.operands = parsed.helpRequested ? [] : arguments
            return parsed
        }
        var index = 0
        func illegal(_ text: String) -> CommandFailure {
            .usage("security: illegal option -- \(text)")
        }
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                index += 1
                break
            }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix(while: { $0 != "=" }))
                if name == "help" {
                    parsed.helpRequested = true
                    index += 1
                    continue
                }
                guard let option = spec.options.first(where: { $0.longName == name }) else {
                    throw illegal(name)
                }
                if option.valueName != nil {
                    if let equals = body.firstIndex(of: "=") {
                        parsed.values[option.key, default: []].append(String(body[body.index(after: equals)...]))
                    } else if index + 1 < arguments.count {
                        index += 1
                        parsed.values[option.key, default: []].append(arguments[index])
                    } else {
                        throw .usage("security: option requires an argument -- \(name)")
                    }
                } else {
                    guard !body.contains("=") else { throw illegal(name) }
                    parsed.flags.insert(option.key)
                }
                index += 1
                continue
            }
            guard argument.hasPrefix("-"), argument.count > 1 else { break }
            var characters = Substring(argument.dropFirst())
            while let letter = characters.first {
                characters = characters.dropFirst()
                if letter == "h" && !spec.options.contains(where: { $0.letter == "h" }) {
                    parsed.helpRequested = true
                    continue
                }
                guard let option = spec.options.first(where: { $0.letter == letter }) else {
                    throw illegal(String(letter))
                }
                if option.valueName == nil {
                    parsed.flags.insert(option.key)
                    continue
                }
                if !characters.isEmpty {
                    parsed.values[option.key, default: []].append(String(characters))
                    characters = ""
                } else if index + 1 < arguments.count {
                    index += 1
                    parsed.values[option.key, default: []].append(arguments[index])
                } else if option.promptsWhenValueMissing {
                    parsed.prompts.insert(option.key)
                } else {
                    throw .usage("security: option requires an argument -- \(letter)")
                }
            }
            index += 1
        }
        parsed.operands = Array(arguments[index...])
        return parsed
    }
}
