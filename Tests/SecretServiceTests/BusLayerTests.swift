import CGIO
import Foundation
import KeychainDBus
import Synchronization
import Testing

@testable import SecretService

/// The D-Bus support layer (the `KeychainDBus` target) on a private bus: exported objects, method
/// tables with properties, deferred replies, signal subscriptions, name watches, main-loop timers and
/// signal handlers, each undone when cancelled, and worker threads handing back to the main context.
/// (Here rather than in a suite of its own: it uses this suite's private bus and thread source.)
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

    /// Runs `body` with a new main context as this thread's default, so that GDBus and GLib sources made
    /// in it dispatch only when the test iterates that context.
    static func withThreadDefaultContext<R>(_ body: (OpaquePointer) throws -> R) rethrows -> R {
        let context = g_main_context_new()!
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        return try body(context)
    }

    /// Iterates `context` until `done` holds; a hang guard of 10 s, not a timing assertion.
    static func iterate(_ context: OpaquePointer, until done: () -> Bool) {
        let deadline = g_get_monotonic_time() + 10_000_000
        while !done(), g_get_monotonic_time() < deadline { g_main_context_iteration(context, 0) }
    }

    /// Calls the bus daemon's `RequestName` (`true`) or `ReleaseName` on `connection` for `name`.
    static func own(_ connection: OpaquePointer, _ name: String, _ owned: Bool) throws {
        let arguments =
            owned ? Variant.tuple([Variant.string(name), Variant.uint32(0)]) : Variant.tuple([Variant.string(name)])
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
            owned ? "RequestName" : "ReleaseName", arguments, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil, &error)
        guard let reply else { throw ProviderError.registration(BusConnection.consume(error)) }
        // 1: DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER and DBUS_RELEASE_NAME_REPLY_RELEASED alike.
        #expect(Variant.withChild(reply, 0) { g_variant_get_uint32($0) } == 1)
        g_variant_unref(reply)
    }

    @Test(
        "A name watch reports the name vanished, then its owner's unique name, then vanished again; nothing once cancelled"
    )
    func nameWatchUntilCancelled() throws {
        try PrivateBus.with(startProvider: false) { bus in
            try Self.withThreadDefaultContext { context in
                let watcher = BusConnection(try bus.connect())
                let owner = try bus.connect()
                defer {
                    g_dbus_connection_close_sync(watcher.pointer, nil, nil)
                    g_dbus_connection_close_sync(owner, nil, nil)
                    g_object_unref(UnsafeMutableRawPointer(watcher.pointer))
                    g_object_unref(UnsafeMutableRawPointer(owner))
                }
                final class Events { var watched: [String] = [], control: [String] = [] }
                let events = Events()
                let name = "org.example.Watched"
                final class Token {}
                weak var captured: Token?
                var watch: BusNameWatch?
                do {
                    let token = Token()
                    captured = token
                    watch = watcher.watchName(
                        name,
                        appeared: { owner in withExtendedLifetime(token) { events.watched.append("appeared " + owner) }
                        },
                        vanished: { events.watched.append("vanished") })
                }
                let control = watcher.watchName(
                    name, appeared: { events.control.append("appeared " + $0) },
                    vanished: { events.control.append("vanished") })
                defer { control.cancel() }
                Self.iterate(context) { events.control.count == 1 }
                #expect(events.watched == ["vanished"], "an unowned name is reported vanished first")

                let unique = String(cString: g_dbus_connection_get_unique_name(owner))
                try Self.own(owner, name, true)
                Self.iterate(context) { events.control.count == 2 }
                try Self.own(owner, name, false)
                Self.iterate(context) { events.control.count == 3 }
                #expect(events.watched == ["vanished", "appeared \(unique)", "vanished"])
                #expect(events.control == events.watched)

                watch?.cancel()
                try Self.own(owner, name, true)
                Self.iterate(context) { events.control.count == 4 }
                #expect(events.control.last == "appeared \(unique)")
                #expect(events.watched.count == 3, "a cancelled watch was called")
                // GDBus releases the handlers once the watch is gone (possibly from the context, later).
                Self.iterate(context) { captured == nil }
                #expect(captured == nil, "GDBus released the cancelled watch's handlers")
                watch = nil
            }
        }
    }

    @Test("A main-loop timer runs its body at each interval until cancelled, none after, and its body is released")
    func mainLoopTimerUntilCancelled() {
        Self.withThreadDefaultContext { context in
            final class Counts { var timed = 0, control = 0 }
            final class Token {}
            let counts = Counts()
            weak var captured: Token?
            var timer: MainLoopTimer?
            do {
                let token = Token()
                captured = token
                timer = MainLoopTimer(milliseconds: 5) { withExtendedLifetime(token) { counts.timed += 1 } }
            }
            let control = MainLoopTimer(milliseconds: 5) { counts.control += 1 }
            defer { control.cancel() }
            Self.iterate(context) { counts.timed >= 3 }
            #expect(counts.timed >= 3)
            #expect(captured != nil, "the body is kept while the timer runs")
            timer?.cancel()
            let stopped = counts.timed
            let controlAtCancel = counts.control
            Self.iterate(context) { counts.control >= controlAtCancel + 3 }
            #expect(counts.control >= controlAtCancel + 3)
            #expect(counts.timed == stopped, "a cancelled timer ran")
            #expect(captured == nil, "GLib released the cancelled timer's body")
            timer = nil
        }
    }

    @Test("A main-loop signal handler runs its body for each signal until cancelled, none after")
    func mainLoopSignalUntilCancelled() {
        Self.withThreadDefaultContext { context in
            final class Counts { var handled = 0, control = 0 }
            final class Token {}
            let counts = Counts()
            weak var captured: Token?
            var handler: MainLoopSignal?
            do {
                let token = Token()
                captured = token
                handler = MainLoopSignal(SIGUSR2) { withExtendedLifetime(token) { counts.handled += 1 } }
            }
            // The control handler keeps GLib catching SIGUSR2 after the first is cancelled; cancelling it
            // last gives the signal back its default action (terminate), so it is not raised after that.
            let control = MainLoopSignal(SIGUSR2) { counts.control += 1 }
            defer { control.cancel() }
            // The test runner may start with signals blocked (as Foundation's Process leaves them): unblock
            // SIGUSR2 on this thread while it is raised here (raise delivers to the calling thread).
            var unblock = sigset_t()
            var previous = sigset_t()
            sigemptyset(&unblock)
            sigaddset(&unblock, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &unblock, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            raise(SIGUSR2)
            Self.iterate(context) { counts.handled == 1 && counts.control == 1 }
            #expect(counts.handled == 1 && counts.control == 1)
            handler?.cancel()
            raise(SIGUSR2)
            Self.iterate(context) { counts.control == 2 }
            #expect(counts.control == 2)
            #expect(counts.handled == 1, "a cancelled signal handler ran")
            #expect(captured == nil, "GLib released the cancelled handler's body")
            handler = nil
        }
    }

    @Test("A worker thread runs its work off the starting thread, then its completion on the starting thread's context")
    func workerThreadHandsBack() {
        Self.withThreadDefaultContext { context in
            final class Seen: Sendable { let workThread = Mutex<pthread_t?>(nil) }
            final class State { var doneThread: pthread_t?, doneCount = 0, workSeen = false }
            final class Token {}
            let seen = Seen()
            let state = State()
            weak var captured: Token?
            do {
                let token = Token()
                captured = token
                WorkerThread.start("bus-layer-test") {
                    seen.workThread.withLock { $0 = pthread_self() }
                } then: {
                    withExtendedLifetime(token) {
                        state.doneThread = pthread_self()
                        state.doneCount += 1
                        state.workSeen = seen.workThread.withLock { $0 } != nil
                    }
                }
            }
            Self.iterate(context) { state.doneCount == 1 && captured == nil }
            #expect(state.doneCount == 1)
            #expect(state.workSeen, "the completion ran before the work")
            let worker = seen.workThread.withLock { $0 }
            #expect(worker.map { pthread_equal($0, pthread_self()) == 0 } == true, "the work ran on the test's thread")
            #expect(state.doneThread.map { pthread_equal($0, pthread_self()) != 0 } == true)
            #expect(captured == nil, "GLib released the finished job")
        }
    }
}
