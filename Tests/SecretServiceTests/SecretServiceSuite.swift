import CGIO
import Foundation
import KeychainDBus

@testable import SecretService

/// What the Secret Service suites share: the API's object paths, interfaces and error names, in one
/// place. A suite conforms and reads them as `Self.service`, `Self.itemInterface`, ….
protocol SecretServiceSuite {}

extension SecretServiceSuite {
    static var service: String { "/org/freedesktop/secrets" }
    static var serviceInterface: String { "org.freedesktop.Secret.Service" }
    static var collectionInterface: String { "org.freedesktop.Secret.Collection" }
    static var itemInterface: String { "org.freedesktop.Secret.Item" }
    static var promptInterface: String { "org.freedesktop.Secret.Prompt" }
    static var sessionAlias: String { "/org/freedesktop/secrets/aliases/session" }
    static var sessionCollection: String { "/org/freedesktop/secrets/collection/session" }
    static var login: String { "/org/freedesktop/secrets/collection/login" }
    static var isLocked: String { "org.freedesktop.Secret.Error.IsLocked" }
    static var invalidArgs: String { "org.freedesktop.DBus.Error.InvalidArgs" }

    /// Bytes from hexadecimal text (published vectors and the RFC 2409 prime).
    static func hex(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = string.startIndex
        while index < string.endIndex {
            let next = string.index(index, offsetBy: 2)
            bytes.append(UInt8(string[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// RFC 2409 §6.2: the Second Oakley Group's prime, big-endian.
    static var prime: [UInt8] {
        hex(
            "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
                + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
                + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")
    }
}

/// A prompt's `Completed(b dismissed, v result)`, as a test reads it.
struct PromptCompletion {
    var dismissed: Bool
    /// The result as `g_variant_print` writes it (annotated).
    var result: String
    /// The result's object paths when it is an `ao`, else empty.
    var paths: [String]
}

extension PrivateBus {
    /// `Completed` signals seen on the test's main connection, in order (filled while the test's
    /// thread iterates the default main context).
    final class CompletedRecorder {
        var completions: [PromptCompletion] = []
    }

    /// Records the `Completed` signals of every prompt seen by ``client`` while `body` runs.
    func recordingCompleted<R>(_ body: (CompletedRecorder) throws -> R) throws -> R {
        let recorder = CompletedRecorder()
        let box = Unmanaged.passRetained(recorder)
        defer { box.release() }
        let subscription = g_dbus_connection_signal_subscribe(
            client, nil, "org.freedesktop.Secret.Prompt", "Completed", nil, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let parameters, let userData, Variant.isOfType(parameters, "(bv)") else { return }
                let dismissed = Variant.withChild(parameters, 0, Variant.readBoolean)
                let (result, paths) = Variant.withChild(parameters, 1) { boxed in
                    let value = g_variant_get_variant(boxed)!
                    defer { g_variant_unref(value) }
                    let text = g_variant_print(value, 1)!
                    defer { g_free(text) }
                    return (String(cString: text), Variant.isOfType(value, "ao") ? Variant.readStrings(value) : [])
                }
                Unmanaged<CompletedRecorder>.fromOpaque(userData).takeUnretainedValue().completions.append(
                    PromptCompletion(dismissed: dismissed, result: result, paths: paths))
            }, box.toOpaque(), nil)
        defer { g_dbus_connection_signal_unsubscribe(client, subscription) }
        return try body(recorder)
    }

    /// Delivers the signals received so far, then waits (a hang guard, not a timing assertion) until
    /// `recorder` has one; returns the first.
    func awaitCompleted(_ recorder: CompletedRecorder) -> PromptCompletion? {
        for _ in 0..<1_000 where recorder.completions.isEmpty {
            while g_main_context_iteration(nil, 0) != 0 {}
            if recorder.completions.isEmpty { usleep(10_000) }
        }
        return recorder.completions.first
    }
}

/// A signal the provider sent, as a test reads it.
struct SeenSignal: CustomStringConvertible {
    var path: String
    var member: String
    /// The first argument when it is an object path (`ItemCreated(o)`, `CollectionChanged(o)`, …).
    var object: String?
    /// `PropertiesChanged`: the interface and each changed property's value as `g_variant_print` writes it.
    var interface: String?
    var changed: [String: String] = [:]
    /// `PropertiesChanged`: the properties announced as changed without their value.
    var invalidated: [String] = []

    var description: String { "\(path) \(member) \(object ?? interface ?? "") \(changed.sorted { $0.key < $1.key })" }
}

extension PrivateBus {
    /// The provider's signals received by ``client`` (filled by ``awaitSignal(_:_:)``).
    final class SignalRecorder {
        let context: OpaquePointer
        var signals: [SeenSignal] = []
        init(context: OpaquePointer) { self.context = context }
    }

    /// Records every signal from the provider while `body` runs, on a main context of the test's own
    /// (pushed as the thread default), so that nothing else iterates it.
    func recordingSignals<R>(_ body: (SignalRecorder) throws -> R) throws -> R {
        let context = g_main_context_new()!
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        let recorder = SignalRecorder(context: context)
        let box = Unmanaged.passRetained(recorder)
        defer { box.release() }
        let subscription = g_dbus_connection_signal_subscribe(
            client, "org.freedesktop.secrets", nil, nil, nil, nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, path, _, member, parameters, userData in
                guard let path, let member, let userData else { return }
                var seen = SeenSignal(path: String(cString: path), member: String(cString: member))
                if let parameters, Variant.isOfType(parameters, "(o)") {
                    seen.object = Variant.withChild(parameters, 0, Variant.readString)
                }
                if seen.member == "PropertiesChanged", let parameters, Variant.isOfType(parameters, "(sa{sv}as)") {
                    seen.interface = Variant.withChild(parameters, 0, Variant.readString)
                    let changed = Variant.withChild(parameters, 1, Variant.readVariantMap)
                    for (name, value) in changed {
                        let text = g_variant_print(value, 0)!
                        seen.changed[name] = String(cString: text)
                        g_free(text)
                    }
                    Variant.release(changed)
                    seen.invalidated = Variant.withChild(parameters, 2, Variant.readStrings)
                }
                Unmanaged<SignalRecorder>.fromOpaque(userData).takeUnretainedValue().signals.append(seen)
            }, box.toOpaque(), nil)
        defer { g_dbus_connection_signal_unsubscribe(client, subscription) }
        // Signals reach the client only once the bus has the match rule: one round trip.
        let ping = call(
            "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping", [], destination: "org.freedesktop.DBus")
        g_variant_unref(try ping.get())
        return try body(recorder)
    }

    /// Delivers the signals received so far until one satisfies `match`; a hang guard of 10 s (the
    /// provider polls other processes' changes every second), not a timing assertion.
    @discardableResult
    func awaitSignal(_ recorder: SignalRecorder, _ match: (SeenSignal) -> Bool) -> SeenSignal? {
        for _ in 0..<1_000 {
            while g_main_context_iteration(recorder.context, 0) != 0 {}
            if let found = recorder.signals.first(where: match) { return found }
            usleep(10_000)
        }
        return nil
    }
}
