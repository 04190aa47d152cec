internal import CGIO

/// A Unix signal handled on the GLib main context of the thread that makes it (`g_unix_signal_source_new`
/// attached to the thread-default context): `body` runs from that context's loop each time the process
/// gets `signal`, until ``cancel()`` or until the handler is released.
///
/// GLib turns the signal into a main-loop event, so `body` may do anything a main-loop callback may
/// (quit the loop, log), unlike a C signal handler. GLib supports only SIGHUP, SIGINT, SIGTERM, SIGUSR1,
/// SIGUSR2 and SIGWINCH here (`g_unix_signal_source_new`); another signal is a programming error (GLib
/// logs a critical warning and the handler never runs). The signal must not be blocked in the thread
/// that runs the loop.
///
/// The body is kept by the source's callback data, released by GLib when the source is destroyed, so it
/// may capture its owner `unowned` as long as the owner cancels, or releases, the handler before it goes.
/// Used on its own thread only; not `Sendable`.
package final class MainLoopSignal {
    private let source: AttachedSource

    /// Starts handling `signal`.
    /// - Parameters:
    ///   - signal: the signal number (`SIGTERM`, `SIGINT`, …; see above for those GLib supports).
    ///   - body: what runs each time the signal arrives.
    package init(_ signal: Int32, _ body: @escaping () -> Void) {
        source = AttachedSource(g_unix_signal_source_new(signal), body)
    }

    /// Stops handling the signal here: the body does not run after this returns (called on the handler's
    /// thread). Once no GLib source handles the signal any more, GLib restores its default action. Idempotent.
    package func cancel() {
        source.cancel()
    }
}
