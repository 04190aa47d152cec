internal import CGIO

/// A repeating timer on the GLib main context of the thread that makes it (`g_timeout_source_new` or
/// `g_timeout_source_new_seconds`, attached to the thread-default context): `body` runs at each interval
/// from that context's loop until ``cancel()`` or until the timer is released.
///
/// The body is kept by the source's callback data, released by GLib when the source is destroyed, so it
/// may capture its owner `unowned` as long as the owner cancels, or releases, the timer before it goes.
/// The first run is one interval after the timer is made; a body that runs long delays the next run
/// (GLib's timeouts do not catch up). Used on its own thread only; not `Sendable`.
package final class MainLoopTimer {
    private let source: AttachedSource

    /// Starts the timer.
    /// - Parameters:
    ///   - milliseconds: the interval.
    ///   - body: what runs at each interval.
    package convenience init(milliseconds: UInt32, _ body: @escaping () -> Void) {
        self.init(g_timeout_source_new(milliseconds), body)
    }

    /// Starts a timer of whole seconds (`g_timeout_source_new_seconds`): GLib may move each run by up to
    /// a second so that timers of the process wake it together, which suits checks that need no precision
    /// (an idle exit, a poll of files).
    /// - Parameters:
    ///   - seconds: the interval.
    ///   - body: what runs at each interval.
    package convenience init(seconds: UInt32, _ body: @escaping () -> Void) {
        self.init(g_timeout_source_new_seconds(seconds), body)
    }

    private init(_ source: UnsafeMutablePointer<GSource>?, _ body: @escaping () -> Void) {
        self.source = AttachedSource(source, body)
    }

    /// Stops the timer: the body does not run after this returns (called on the timer's thread). Idempotent.
    package func cancel() {
        source.cancel()
    }
}
