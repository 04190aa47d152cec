internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// `keychain-ssh-askpass`: answers `ssh-add`'s passphrase question from the login keychain, as macOS's
/// `ssh-add --apple-use-keychain` does (tracker issue 25.5; docs/PAM.md, "ssh-agent passphrases").
///
/// The item is gcr-ssh-agent's: a Secret Service item with `xdg:schema = org.freedesktop.Secret.Generic`
/// and `unique = ssh-store:<absolute key path>`, so passphrases saved by either are found by both.
/// - "Enter passphrase for KEY": the saved passphrase when the keychain is unlocked and has one; else
///   pinentry asks, and the answer is saved (the prompt says so).
/// - "Bad passphrase, try again for KEY": the saved one was wrong; it is deleted and pinentry asks again.
/// - Anything else (a confirmation, a question ssh does not expect a passphrase for): exit 1, no answer.
/// - `--help` or `-h` alone: the usage on standard output, exit 0 (as every tool of the package answers it).
/// Exit status: 0 with the passphrase and a newline on standard output; 1 when there is no answer
/// (cancelled, no pinentry, not a passphrase question), with the reason on standard error.
package enum SSHAskpass {
    package static let schema = "org.freedesktop.Secret.Generic"

    /// The key file a prompt asks about and whether it is a retry, or `nil` for other prompts.
    ///
    /// The path is made absolute and normalised (``FileSystem/absolutePath(_:currentDirectory:)``): ssh-add
    /// names the key as it was given (`./id`, `../id`, `~/.ssh//id`), and the item's `unique` is
    /// `ssh-store:<absolute key path>`, so every spelling of one key finds (and saves) the same item.
    /// - Parameters:
    ///   - prompt: ssh's question, as `SSH_ASKPASS` gets it.
    ///   - currentDirectory: the folder a relative key path is taken from (ssh-add's, which this program inherits).
    /// - Returns: the key's absolute path and whether the prompt is "Bad passphrase, try again"; `nil` for other prompts.
    package static func keyPath(inPrompt prompt: String, currentDirectory: String) -> (path: String, retry: Bool)? {
        let prefixes = [("Enter passphrase for ", false), ("Bad passphrase, try again for ", true)]
        guard let (prefix, retry) = prefixes.first(where: { prompt.hasPrefix($0.0) }) else { return nil }
        var rest = Substring(prompt.dropFirst(prefix.count))
        if rest.hasSuffix(": ") { rest = rest.dropLast(2) } else if rest.hasSuffix(":") { rest = rest.dropLast() }
        if rest.hasSuffix(" (will confirm each use)") { rest = rest.dropLast(" (will confirm each use)".count) }
        // "key '/path'" in some OpenSSH prompts.
        if rest.hasPrefix("key '") && rest.hasSuffix("'") { rest = rest.dropFirst(5).dropLast() }
        guard !rest.isEmpty else { return nil }
        return (FileSystem.absolutePath(String(rest), currentDirectory: currentDirectory), retry)
    }

    /// The `unique` attribute of a key's item.
    package static func unique(_ path: String) -> String { "ssh-store:" + path }

    /// What `--help` prints.
    package static let usage = """
        usage: keychain-ssh-askpass PROMPT
          ssh-add runs it as SSH_ASKPASS with its question as PROMPT ("Enter passphrase for KEY: ").
          It prints the passphrase saved for KEY in the login keychain (gcr-ssh-agent's item), or asks
          through pinentry and saves the answer. Set SSH_ASKPASS to this program and SSH_ASKPASS_REQUIRE=prefer.
          Exit status: 0 with the passphrase on standard output; 1 with no answer (the reason on standard error).

        """

    /// Runs once with ssh's arguments.
    package static func main(arguments: [String]) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessEnvironment.current()
        let prompt = arguments.dropFirst().first ?? ""
        if arguments.count == 2, prompt == "--help" || prompt == "-h" {
            _ = usage.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
            return 0
        }
        if let kind = environment["SSH_ASKPASS_PROMPT"], kind == "confirm" || kind == "none" {
            return fail("keychain-ssh-askpass answers passphrase questions only")
        }
        guard let (path, retry) = keyPath(inPrompt: prompt, currentDirectory: FileSystem.currentDirectory() ?? "/")
        else { return fail("not a passphrase question: \(prompt)") }
        let store = try? Keystore(location: .login(environment: environment), create: false)
        let query = ["unique": unique(path)]
        let saved = (try? store?.secretItems(matching: query)) ?? []
        if !retry, let item = saved.first, let secret = try? store?.secretItemSecret(item.number) {
            return answer(secret.value)
        }
        if retry, let store { for item in saved { _ = try? store.deleteSecretItem(item.number) } }
        let canSave = (try? store?.classKeyEpoch(.whenUnlocked)) != nil && store != nil
        let description =
            (retry ? "Wrong passphrase. " : "") + "Enter the passphrase for the SSH key \(path)."
            + (canSave ? " It will be saved in your login keychain." : "")
        let typed: SecureBytes
        do {
            typed = try Prompters.current().requestPassword(
                PasswordPrompt(title: "SSH key", description: description, label: "Passphrase:"))
        } catch {
            return fail("no passphrase: \(error)")
        }
        if canSave, let store {
            let secret = SecretItemSecret(value: typed, contentType: "text/plain")
            let attributes = ["xdg:schema": schema, "unique": unique(path)]
            if (try? store.createSecretItem(
                label: "Unlock password for: \(path)", attributes: attributes, secret: secret, replace: true)) == nil
            {
                warn("the passphrase could not be saved in the login keychain")
            }
        }
        return answer(typed)
    }

    private static func answer(_ secret: SecureBytes) -> Int32 {
        secret.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let wrote = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if wrote < 0 && errno == EINTR { continue }
                if wrote <= 0 { break }
                offset += wrote
            }
        }
        _ = write(STDOUT_FILENO, "\n", 1)
        return 0
    }

    private static func warn(_ message: String) {
        let line = "keychain-ssh-askpass: " + message + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }

    private static func fail(_ message: String) -> Int32 {
        warn(message)
        return 1
    }
}
