import CGIO
import Foundation
import KeychainDBus
import Synchronization

@testable import SecretService

/// A Secret Service source served from a thread of the test process, on its own GLib main context and
/// bus connection, owning `org.freedesktop.secrets` on a private bus. The migration reads it like any
/// provider (and does not refuse it as its own: the owner's process is the test's).
///
/// `setUp` runs on that thread with the connection, before the name is requested: it exports the
/// objects and returns what to run when the source stops, or `nil` when it cannot serve.
final class ThreadSource: Sendable {
    private let ready = Synchronization.Atomic<Int>(0)  // 1 serving, -1 failed to start
    private let stopping = Synchronization.Atomic<Bool>(false)
    private let finished = Synchronization.Atomic<Bool>(false)

    init(address: String, setUp: @escaping @Sendable (OpaquePointer) -> (() -> Void)?) {
        let thread = Thread { [self] in
            serve(address: address, setUp: setUp)
            finished.store(true, ordering: .releasing)
        }
        thread.start()
    }

    /// Waits until it serves (a hang guard, not a timing assertion). - Returns: whether it does.
    func waitUntilServing() -> Bool {
        for _ in 0..<1000 where ready.load(ordering: .acquiring) == 0 { usleep(10_000) }
        return ready.load(ordering: .acquiring) == 1
    }

    /// Stops serving and waits for the thread to finish.
    func stop() {
        stopping.store(true, ordering: .releasing)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
    }

    private func serve(address: String, setUp: (OpaquePointer) -> (() -> Void)?) {
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        guard
            let connection = g_dbus_connection_new_for_address_sync(
                address,
                GDBusConnectionFlags(
                    rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                        | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue), nil, nil, nil)
        else {
            ready.store(-1, ordering: .releasing)
            return
        }
        defer {
            g_dbus_connection_close_sync(connection, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
        guard let tearDown = setUp(connection) else {
            ready.store(-1, ordering: .releasing)
            return
        }
        defer { tearDown() }
        let request = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
            Variant.tuple([Variant.string("org.freedesktop.secrets"), Variant.uint32(0)]), nil,
            G_DBUS_CALL_FLAGS_NONE, 10_000, nil, nil)
        guard let request else {
            ready.store(-1, ordering: .releasing)
            return
        }
        g_variant_unref(request)
        ready.store(1, ordering: .releasing)
        // A wake-up source, so that the loop sees `stopping` when no call comes.
        let timer = g_timeout_source_new(20)!
        g_source_set_callback(timer, { _ in 1 }, nil, nil)
        g_source_attach(timer, context)
        defer {
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        while !stopping.load(ordering: .acquiring) { g_main_context_iteration(context, 1) }
    }
}
