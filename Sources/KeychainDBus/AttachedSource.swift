internal import CGIO

/// A GLib source attached to the main context of the thread that makes it, running `body` each time it
/// fires until ``cancel()`` or until it is released: what ``MainLoopTimer`` and ``MainLoopSignal`` share.
///
/// The body is kept by the source's callback data, released by GLib when the source is destroyed, so it
/// may capture its owner `unowned` as long as the owner cancels, or releases, the source before it goes.
/// Used on its own thread only; not `Sendable`.
final class AttachedSource {
    /// The body GLib holds while the source exists.
    final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var source: UnsafeMutablePointer<GSource>?

    /// Attaches `source` (taking over the caller's reference) to the thread-default main context.
    /// - Parameters:
    ///   - source: a new, unattached source (a timeout or a Unix-signal source).
    ///   - body: what runs each time it fires; the source stays until ``cancel()``.
    init(_ source: UnsafeMutablePointer<GSource>?, _ body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Body(body))
        g_source_set_callback(
            source,
            { data in
                Unmanaged<Body>.fromOpaque(data!).takeUnretainedValue().run()
                return cgio_source_continue()  // until cancel()
            }, box.toOpaque(), { data in Unmanaged<Body>.fromOpaque(data!).release() })
        g_source_attach(source, g_main_context_get_thread_default())
        self.source = source
    }

    deinit { cancel() }

    /// Destroys the source: the body does not run after this returns (called on the source's thread). Idempotent.
    func cancel() {
        guard let source else { return }
        g_source_destroy(source)
        g_source_unref(source)
        self.source = nil
    }
}
