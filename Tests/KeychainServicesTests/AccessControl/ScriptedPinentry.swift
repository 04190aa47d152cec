import Foundation
import KeychainCore
import KeychainServices
import KeychainTesting

/// A pinentry stand-in: a small shell script, written into the test's temporary folder, that speaks
/// the Assuan protocol as pinentry does. It answers every GETPIN with a fixed PIN (or cancels), and
/// records each GETPIN and SETDESC so tests can count prompts and read what was shown.
struct ScriptedPinentry: Sendable {
    let directory: String
    let program: String

    /// - Parameters:
    ///   - root: the test's temporary folder.
    ///   - pin: what the "user" types, already Assuan-escaped (`%25` for `%`).
    ///   - cancel: answer GETPIN with GnuPG's "Operation cancelled" error instead.
    init(in root: String, pin: String, cancel: Bool = false) throws {
        directory = root + "/pinentry-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        program = directory + "/pinentry"
        let answer = cancel ? "echo 'ERR 83886179 Operation cancelled <Pinentry>'" : "printf 'D %s\\nOK\\n' '\(pin)'"
        let script = """
            #!/bin/sh
            dir='\(directory)'
            echo 'OK Pleased to meet you'
            while IFS= read -r line; do
              case "$line" in
                GETPIN*) echo x >> "$dir/prompts"; \(answer) ;;
                SETDESC*) printf '%s\\n' "${line#SETDESC }" >> "$dir/descriptions"; echo OK ;;
                BYE*) echo OK; exit 0 ;;
                *) echo OK ;;
              esac
            done
            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: program))
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: program)
    }

    /// The prompter that runs the script (the real ``Pinentry`` code path).
    var prompter: Pinentry { Pinentry(program: program) }

    /// How many times the script was asked for a PIN.
    var prompts: Int {
        (try? String(contentsOfFile: directory + "/prompts", encoding: .utf8))?.split(separator: "\n").count ?? 0
    }

    /// The descriptions shown, Assuan-escaped as sent.
    var descriptions: [String] {
        (try? String(contentsOfFile: directory + "/descriptions", encoding: .utf8)).map {
            $0.split(separator: "\n").map(String.init)
        } ?? []
    }
}

/// A keychain with the password `pw`, whose class keys are withdrawn from the kernel keyring when
/// the test ends, and a scripted pinentry that types `pin`.
struct PasswordKeychain {
    static let password = "pw"
    let keychain: TemporaryKeychain
    /// One `Keystore` for the whole test: when the user's kernel key quota is full (parallel tests),
    /// unlocked class keys stay in the unlocking instance only, so every call must use this one.
    let keystore: Keystore
    let pinentry: ScriptedPinentry

    init(pin: String = PasswordKeychain.password, cancel: Bool = false, withPassword: Bool = true) throws {
        keychain = try TemporaryKeychain()
        keystore = try Keystore(location: keychain.location)
        if withPassword {
            try keystore.setPassword(
                SecureBytes(copying: Array(Self.password.utf8)), current: nil, parameters: .testing)
        }
        pinentry = try ScriptedPinentry(in: keychain.root, pin: pin, cancel: cancel)
    }

    var context: KeychainContext { KeychainContext(keystore: keystore, identity: .unsigned) }

    /// Runs `body` with this keychain and the scripted pinentry, then withdraws the class keys.
    @discardableResult
    func run<R>(_ body: () throws -> R) throws -> R {
        defer { try? keystore.withdrawAllClassKeys() }
        return try Prompters.withOverride(pinentry.prompter) { try KeychainContext.withOverride(context, body) }
    }

    /// As ``run(_:)``, for async bodies.
    @discardableResult
    func run<R>(_ body: () async throws -> R) async throws -> R {
        defer { try? keystore.withdrawAllClassKeys() }
        return try await Prompters.withOverride(pinentry.prompter) {
            try await KeychainContext.withOverride(context, body)
        }
    }
}

/// `SecAccessControlCreateWithFlags` for a test, which must succeed.
func accessControl(_ flags: SecAccessControlCreateFlags, _ protection: CFString = kSecAttrAccessibleWhenUnlocked)
    -> SecAccessControl
{
    var error: Unmanaged<CFError>?
    return SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error)!
}
