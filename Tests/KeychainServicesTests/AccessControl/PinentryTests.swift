import Foundation
import KeychainCore
import KeychainTesting
import Synchronization
import Testing

/// The prompter: pinentry over GnuPG's Assuan protocol, chosen as gpg-agent chooses it
/// (gpg-agent(1): `pinentry-program`; default `pinentry`), overridable by `KEYCHAIN_PINENTRY`.
@Suite("Pinentry prompter")
struct PinentryTests {
    func locator(_ environment: [String: String], executables: Set<String>, conf: String? = nil) -> PinentryLocator {
        PinentryLocator(environment: environment, isExecutable: { executables.contains($0) }, readFile: { _ in conf })
    }

    @Test("KEYCHAIN_PINENTRY wins over gpg-agent.conf and PATH")
    func override() {
        let found = locator(
            ["KEYCHAIN_PINENTRY": "/opt/my-pinentry", "PATH": "/usr/bin"],
            executables: ["/opt/my-pinentry", "/usr/bin/pinentry"],
            conf: "pinentry-program /usr/bin/pinentry-tty\n"
        ).locate(hasTerminal: true)
        #expect(found?.path == "/opt/my-pinentry" && found?.source == .override)
    }

    @Test("gpg-agent.conf's last pinentry-program line comes next, as gpg-agent reads it")
    func gpgAgentConf() {
        let found = locator(
            ["HOME": "/home/u", "PATH": "/usr/bin"], executables: ["/usr/bin/pinentry-curses", "/usr/bin/pinentry"],
            conf: "# comment\npinentry-program /usr/bin/pinentry-tty\npinentry-program /usr/bin/pinentry-curses\n"
        ).locate(hasTerminal: true)
        #expect(found?.path == "/usr/bin/pinentry-curses" && found?.source == .gpgAgentConf)
    }

    @Test("Otherwise GnuPG's default, pinentry on PATH; then a flavour that can be shown")
    func defaults() {
        #expect(
            locator(["PATH": "/a:/usr/bin"], executables: ["/usr/bin/pinentry"]).locate(hasTerminal: false)?.path
                == "/usr/bin/pinentry")
        let tty = locator(["PATH": "/usr/bin"], executables: ["/usr/bin/pinentry-tty", "/usr/bin/pinentry-gnome3"])
        #expect(tty.locate(hasTerminal: true)?.path == "/usr/bin/pinentry-tty")
        #expect(tty.locate(hasTerminal: false) == nil, "pinentry-gnome3 needs a display")
        let display = locator(
            ["PATH": "/usr/bin", "WAYLAND_DISPLAY": "wayland-0"], executables: ["/usr/bin/pinentry-gnome3"])
        #expect(display.locate(hasTerminal: false)?.path == "/usr/bin/pinentry-gnome3")
    }

    @Test("No pinentry, or no terminal and no display: errSecInteractionNotAllowed (-25308) with a reason")
    func nothingToShow() throws {
        let keychain = try TemporaryKeychain()
        let empty = keychain.root + "/bin"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(throws: KeychainFailure.self) {
            try Pinentry.fromEnvironment(["PATH": empty, "HOME": keychain.root], terminal: nil)
        }
        let pinentry = try ScriptedPinentry(in: keychain.root, pin: "x")
        let dir = (pinentry.program as NSString).deletingLastPathComponent
        do {
            _ = try Pinentry.fromEnvironment(["PATH": dir, "HOME": keychain.root], terminal: nil)
            Issue.record("expected errSecInteractionNotAllowed")
        } catch {
            #expect(error.status == .interactionNotAllowed)
            #expect(error.detail?.contains("no terminal and no display") == true)
        }
        #expect(
            try Pinentry.fromEnvironment(["PATH": dir, "HOME": keychain.root], terminal: "/dev/pts/9").ttyName
                == "/dev/pts/9")
        #expect(
            try Pinentry.fromEnvironment([PinentryLocator.overrideVariable: pinentry.program], terminal: nil).program
                == pinentry.program)
    }

    @Test("GETPIN's percent-escaped D line is decoded into zeroising memory")
    func decodesPin() throws {
        let keychain = try TemporaryKeychain()
        let pinentry = try ScriptedPinentry(in: keychain.root, pin: "p%25w%0Ad")
        let pin = try pinentry.prompter.requestPassword(PasswordPrompt(description: "50% off\nnext line"))
        #expect(pin.withUnsafeBytes { Array($0) } == Array("p%w\nd".utf8))
        #expect(!String(describing: pin).contains("p%w"), "SecureBytes redacts its description")
        #expect(pinentry.descriptions == ["50%25 off%0Anext line"])
    }

    @Test("A cancel is errSecUserCanceled (-128)")
    func cancel() throws {
        let keychain = try TemporaryKeychain()
        let pinentry = try ScriptedPinentry(in: keychain.root, pin: "", cancel: true)
        do {
            _ = try pinentry.prompter.requestPassword(PasswordPrompt(description: "d"))
            Issue.record("expected a cancel")
        } catch {
            #expect(error.status == .userCanceled)
        }
    }

    @Test("A program that is not pinentry is errSecInteractionNotAllowed (-25308)")
    func notPinentry() throws {
        do {
            _ = try Pinentry(program: "/bin/true").requestPassword(PasswordPrompt(description: "d"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.status == .interactionNotAllowed)
        }
    }

    @Test(
        "The real pinentry-tty speaks the protocol: with no terminal it reports an error, not a PIN",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pinentry-tty")))
    func realPinentryTTY() throws {
        do {
            _ = try Pinentry(program: "/usr/bin/pinentry-tty").requestPassword(PasswordPrompt(description: "d"))
            Issue.record("pinentry-tty returned a PIN without a terminal")
        } catch {
            #expect(error.status == .interactionNotAllowed || error.status == .userCanceled)
        }
    }

    // MARK: - Cancellation (the Secret Service provider closes the dialog of a dismissed prompt)

    /// A pinentry that marks `<dir>/started`, then `<dir>/asking` at GETPIN, and never answers; SIGTERM
    /// ends it, marking `<dir>/closed`.
    func waitingPinentry(_ temp: TemporaryKeychain) throws -> (program: String, directory: String) {
        let directory = temp.directory + "/waiting-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let program = directory + "/pinentry"
        let script = """
            #!/bin/sh
            trap ": > '\(directory)/closed'; exit 0" TERM
            : > '\(directory)/started'
            echo 'OK Pleased to meet you'
            while IFS= read -r line; do
              case "$line" in
                GETPIN*) : > '\(directory)/asking'; while :; do sleep 0.05; done ;;
                *) echo OK ;;
              esac
            done
            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: program))
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: program)
        return (program, directory)
    }

    @Test(
        "A cancellation closes the pinentry that is asking (SIGTERM), and the question fails as interaction not allowed"
    )
    func cancellationClosesTheDialog() throws {
        let temp = try TemporaryKeychain()
        let (program, directory) = try waitingPinentry(temp)
        let cancellation = PromptCancellation()
        let outcome = Mutex<KeychainStatus?>(nil)
        let asker = Thread {
            let status: KeychainStatus
            do {
                _ = try Prompters.withCancellation(cancellation) {
                    try Pinentry(program: program).requestPassword(
                        PasswordPrompt(title: "t", description: "d", label: "l"))
                }
                status = .success
            } catch let failure as KeychainFailure {
                status = failure.status
            } catch {
                status = .param
            }
            outcome.withLock { $0 = status }
        }
        asker.start()
        for _ in 0..<1_000 where !FileManager.default.fileExists(atPath: directory + "/asking") { usleep(10_000) }
        #expect(FileManager.default.fileExists(atPath: directory + "/asking"))
        #expect(outcome.withLock { $0 } == nil, "the dialog is still asking")
        cancellation.cancel()
        for _ in 0..<1_000 where outcome.withLock({ $0 }) == nil { usleep(10_000) }
        #expect(outcome.withLock { $0 } == .interactionNotAllowed)
        #expect(FileManager.default.fileExists(atPath: directory + "/closed"))
        #expect(cancellation.isCancelled)
    }

    @Test("After a cancellation, a question under it is refused as user canceled, without starting pinentry")
    func cancelledBeforeAsking() throws {
        let temp = try TemporaryKeychain()
        let (program, directory) = try waitingPinentry(temp)
        let cancellation = PromptCancellation()
        cancellation.cancel()
        let refusal = #expect(throws: KeychainFailure.self) {
            try Prompters.withCancellation(cancellation) {
                try Pinentry(program: program).requestPassword(PasswordPrompt(title: "t", description: "d", label: "l"))
            }
        }
        #expect(refusal?.status == .userCanceled)
        #expect(!FileManager.default.fileExists(atPath: directory + "/asking"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/started"), "no pinentry was started")
    }
}
