import CGIO
import Foundation
import KeychainCore
import Testing

@testable import SecretService

/// Signals for changes other processes make to keychain-backed collections (issue 17, item 5).
@Suite("keychain-secret-service announces other processes' changes")
struct KeychainProviderSignalTests {
    static let login = "/org/freedesktop/secrets/collection/login"

    /// Collects `(member, first object-path argument)` of the provider's Secret Service signals.
    final class Recorder {
        var signals: [(String, String)] = []
    }

    @Test("Items created, changed and deleted by another process, and a lock, emit ItemCreated/Changed/Deleted and CollectionChanged")
    func externalChanges() throws {
        let home = try KeychainHome()
        defer { home.remove() }
        let keystore = try home.createKeychain("login", password: "pw")
        _ = try keystore.unlock(password: SecureBytes(copying: Array("pw".utf8)))
        try PrivateBus.with(startProvider: false) { bus in
            try bus.startProvider(keychainHome: home.root)
            let recorder = Recorder()
            let box = Unmanaged.passRetained(recorder)
            defer { box.release() }
            let subscription = g_dbus_connection_signal_subscribe(
                bus.client, nil, nil, nil, nil, nil, G_DBUS_SIGNAL_FLAGS_NONE,
                { _, _, _, _, member, parameters, userData in
                    guard let member, let parameters, let userData, Variant.isOfType(parameters, "(o)") else { return }
                    let recorder = Unmanaged<Recorder>.fromOpaque(userData).takeUnretainedValue()
                    recorder.signals.append((String(cString: member), Variant.withChild(parameters, 0, Variant.readString)))
                }, box.toOpaque(), nil)
            defer { g_dbus_connection_signal_unsubscribe(bus.client, subscription) }
            // Signals are delivered to the client only once the bus knows it wants them: a round trip.
            _ = try bus.property(Self.login, "org.freedesktop.Secret.Collection", "Locked")

            func waitFor(_ member: String, _ path: String) -> Bool {
                // A hang guard (the provider polls every second), not a timing assertion.
                for _ in 0..<1_000 {
                    while g_main_context_iteration(nil, 0) != 0 {}
                    if recorder.signals.contains(where: { $0 == (member, path) }) { return true }
                    usleep(10_000)
                }
                return false
            }
            let secret = SecretItemSecret(value: SecureBytes(copying: Array("s".utf8)), contentType: "text/plain")
            let number = try keystore.createSecretItem(label: "x", attributes: ["a": "1"], secret: secret, replace: false).number
            let item = Self.login + "/\(number)"
            #expect(waitFor("ItemCreated", item))
            try keystore.updateSecretItem(number, label: "y")
            #expect(waitFor("ItemChanged", item))
            try keystore.deleteSecretItem(number)
            #expect(waitFor("ItemDeleted", item))
            try keystore.lock()
            #expect(waitFor("CollectionChanged", Self.login))
        }
    }
}
