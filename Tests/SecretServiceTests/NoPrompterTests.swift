import CGIO
import Foundation
import KeychainCore
import KeychainDBus
import Testing

@testable import SecretService

/// An unlock prompt that cannot be shown at all (issue 24, item 4).
@Suite("keychain-secret-service without any prompter")
struct NoPrompterTests: SecretServiceSuite {
    @Test(
        "Regression: with no pinentry to start, an unlock prompt completes as dismissed and the provider logs why, once"
    )
    func noPrompterDismissesAndLogsOnce() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        try home.createKeychain("login", password: "pw")
        let stderr = Pipe()
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(
                keychainHome: home.root, extraEnvironment: ["KEYCHAIN_PINENTRY": home.root + "/no-such-pinentry"],
                stderr: stderr)
            for _ in 0..<2 {
                try bus.recordingCompleted { recorder in
                    let unlock = try bus.expectReply(
                        Self.service, Self.serviceInterface, "Unlock", [Variant.objectPaths([Self.login])])
                    let prompt = Variant.withChild(unlock, 1, Variant.readString)
                    g_variant_unref(unlock)
                    #expect(prompt.hasPrefix("/org/freedesktop/secrets/prompt/"))
                    g_variant_unref(try bus.expectReply(prompt, Self.promptInterface, "Prompt", [Variant.string("")]))
                    let completion = bus.awaitCompleted(recorder)
                    #expect(completion?.dismissed == true)
                }
            }
            bus.stopProvider()
        }
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n").filter { $0.contains("cannot show a password prompt") }
        #expect(lines.count == 1, "\(log)")
        #expect(lines.first?.contains("DISPLAY") == true, "\(log)")
    }
}
