internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Closes, from another thread, the pinentry dialogs a question is showing: the Secret Service
/// provider closes the dialog of a prompt whose client dismissed it or left the bus, as
/// gnome-keyring closes its own dialog (Secret Service API, "Prompts and Prompting": `Dismiss`).
///
/// A ``Pinentry`` started while a cancellation is current (``Prompters/withCancellation(_:_:)``)
/// registers its process here for the time it asks. ``cancel()`` sends it SIGTERM, so its question
/// fails (`.interactionNotAllowed`, the pinentry stopped), and makes every later question under this
/// cancellation fail at once with `.userCanceled`. Sending the signal and unregistering hold the same
/// lock, and a process is unregistered before it is reaped, so a signal never reaches a reused pid.
package final class PromptCancellation: Sendable {
    private struct State {
        var cancelled = false
        var processes: Set<Int32> = []
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Closes every pinentry asking now (SIGTERM) and refuses later questions. Any thread; idempotent.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            for process in state.processes { kill(process, SIGTERM) }
        }
    }

    /// Records a pinentry process that is asking. - Returns: `false` when already cancelled (the
    /// caller must not ask).
    func register(_ process: Int32) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.processes.insert(process)
            return true
        }
    }

    /// Forgets a pinentry process; call before it is reaped.
    func unregister(_ process: Int32) {
        _ = state.withLock { $0.processes.remove(process) }
    }
}
