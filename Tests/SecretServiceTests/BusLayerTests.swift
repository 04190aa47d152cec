import CGIO
import Foundation
import Synchronization
import Testing

@testable import SecretService

/// The D-Bus support layer (`Sources/SecretService/Bus/`) on a private bus: exported objects, method
/// tables with properties, deferred replies, and signal subscriptions, each undone when cancelled.
@Suite("The D-Bus support layer")
struct BusLayerTests {
    static let path = "/org/example/Echo"
    static let interface = "org.example.Echo"
    static let xml = """
        <node>
          <interface name="org.example.Echo">
            <method name="Echo"><arg type="s" direction="in"/><arg type="s" direction="out"/></method>
            <method name="Later"><arg type="s" direction="out"/></method>
            <method name="Release"/>
            <method name="Unexport"/>
            <property name="Version" type="u" access="read"/>
            <property name="Hidden" type="s" access="read"/>
          </interface>
        </node>
        """

    /// Exports the Echo object through the layer on a ``ThreadSource`` thread:
    /// `Echo(s)` answers its argument; `Later` is answered only once `Release` has been called (a
    /// deferred reply); `Unexport` cancels the object's registration after answering; `Version` reads 7;
    /// reading `Hidden` is refused with `AccessDenied`.
    static func echoSource(_ bus: PrivateBus) -> ThreadSource {
        ThreadSource(address: bus.address) { pointer in
            final class State {
                var registration: BusRegistration?
                var later: MethodCall?
                var released = false
            }
            let connection = BusConnection(pointer)
            let info = BusNodeInfo(builtIn: xml, "test")
            let state = State()
            let handler = BusInterfaceHandler(
                methodCall: { call in
                    switch call.method {
                    case "Echo": call.reply([Variant.string(Variant.withChild(call.parameters, 0, Variant.readString))])
                    case "Later" where state.released: call.reply([Variant.string("later")])
                    case "Later": state.later = call
                    case "Release":
                        state.released = true
                        state.later?.reply([Variant.string("later")])
                        state.later = nil
                        call.reply([])
                    default:
                        call.reply([])
                        state.registration?.cancel()
                    }
                },
                getProperty: { access in
                    access.name == "Version"
                        ? .success(Variant.uint32(7))
                        : .failure(BusPropertyFailure(code: G_DBUS_ERROR_ACCESS_DENIED, message: "not readable"))
                })
            guard
                let registration = try? connection.registerObject(
                    path, interface: info.interface(interface), handler: handler)
            else { return nil }
            state.registration = registration
            return { withExtendedLifetime((connection, info, state)) {} }
        }
    }

    @Test("An exported object answers calls and property reads; once its registration is cancelled, UnknownMethod")
    func exportedObjectUntilCancelled() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.echoSource(bus)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let echo = try bus.expectReply(Self.path, Self.interface, "Echo", [Variant.string("hello")])
            #expect(Variant.withChild(echo, 0, Variant.readString) == "hello")
            g_variant_unref(echo)
            let version = try bus.property(Self.path, Self.interface, "Version")
            #expect(Variant.isOfType(version, "u") && g_variant_get_uint32(version) == 7)
            g_variant_unref(version)
            #expect(
                bus.errorName(
                    Self.path, "org.freedesktop.DBus.Properties", "Get",
                    [Variant.string(Self.interface), Variant.string("Hidden")])
                    == "org.freedesktop.DBus.Error.AccessDenied")
            g_variant_unref(try bus.expectReply(Self.path, Self.interface, "Unexport"))
            #expect(
                bus.errorName(Self.path, Self.interface, "Echo", [Variant.string("again")])
                    == "org.freedesktop.DBus.Error.UnknownMethod")
        }
    }

    @Test("A call kept by its handler is answered later, after another call, and the caller gets that answer")
    func deferredReply() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let source = Self.echoSource(bus)
            defer { source.stop() }
            #expect(source.waitUntilServing())
            let second = try bus.connect()
            defer {
                g_dbus_connection_close_sync(second, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(second))
            }
            // `Later` blocks its caller (on a second connection, from another thread) until `Release`.
            final class Answer: Sendable { let value = Mutex<String?>(nil) }
            let answer = Answer()
            let done = DispatchSemaphore(value: 0)
            let address = Int(bitPattern: UnsafeRawPointer(second))
            Thread {
                let connection = OpaquePointer(bitPattern: address)!
                let reply = g_dbus_connection_call_sync(
                    connection, "org.freedesktop.secrets", Self.path, Self.interface, "Later", nil, nil,
                    G_DBUS_CALL_FLAGS_NONE, 10_000, nil, nil)
                answer.value.withLock { $0 = reply.map { Variant.withChild($0, 0, Variant.readString) } }
                if let reply { g_variant_unref(reply) }
                done.signal()
            }.start()
            // Release only once Later is pending: a few Echo round trips give it time to arrive first.
            for _ in 0..<3 {
                g_variant_unref(try bus.expectReply(Self.path, Self.interface, "Echo", [Variant.string("")]))
            }
            #expect(done.wait(timeout: .now() + 0.2) == .timedOut, "Later was answered before Release")
            g_variant_unref(try bus.expectReply(Self.path, Self.interface, "Release"))
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(answer.value.withLock { $0 } == "later")
        }
    }

    @Test("A signal subscription gets each matching signal until cancelled, and none after")
    func signalSubscriptionUntilCancelled() throws {
        try PrivateBus.with(startProvider: false) { bus in
            let context = g_main_context_new()
            g_main_context_push_thread_default(context)
            defer {
                g_main_context_pop_thread_default(context)
                g_main_context_unref(context)
            }
            let receiver = BusConnection(try bus.connect())
            let sender = BusConnection(try bus.connect())
            defer {
                g_dbus_connection_close_sync(receiver.pointer, nil, nil)
                g_dbus_connection_close_sync(sender.pointer, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(receiver.pointer))
                g_object_unref(UnsafeMutableRawPointer(sender.pointer))
            }
            final class Counts {
                var watched: [String] = []
                var control = 0
            }
            let counts = Counts()
            let watched = receiver.subscribe(
                sender: nil, interface: Self.interface, member: "Ping", path: Self.path
            ) { signal in counts.watched.append(Variant.withChild(signal.parameters, 0, Variant.readString)) }
            let control = receiver.subscribe(sender: nil, interface: Self.interface, member: "Ping", path: Self.path) {
                _ in counts.control += 1
            }
            defer { control.cancel() }
            // The bus adds the match rules in the order they were sent: a round trip after them means
            // both are in place before anything is emitted.
            if let reply = g_dbus_connection_call_sync(
                receiver.pointer, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", nil,
                nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil, nil)
            {
                g_variant_unref(reply)
            }
            // A signal on another path or member reaches neither.
            sender.emit("/org/example/Other", Self.interface, "Ping", [Variant.string("elsewhere")])
            sender.emit(Self.path, Self.interface, "Pong", [Variant.string("other member")])
            func ping(_ text: String, until count: Int) {
                sender.emit(Self.path, Self.interface, "Ping", [Variant.string(text)])
                sender.flush()
                // A hang guard of 10 s, not a timing assertion.
                let deadline = g_get_monotonic_time() + 10_000_000
                while counts.control < count, g_get_monotonic_time() < deadline { g_main_context_iteration(context, 0) }
            }
            ping("one", until: 1)
            #expect(counts.watched == ["one"])
            watched.cancel()
            ping("two", until: 2)
            #expect(counts.control == 2)
            #expect(counts.watched == ["one"], "a cancelled subscription got a signal")
        }
    }
}
