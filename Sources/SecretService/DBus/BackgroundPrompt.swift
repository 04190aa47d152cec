internal import CGIO
internal import KeychainCore
internal import Synchronization

/// A prompt's question to the user running on a worker thread (GLib's `g_thread_new`), so that the
/// provider keeps serving while the user types. Unlock prompts also poll, and complete as soon as the
/// collections are unlocked by any means (another process, `security unlock-keychain`).
///
/// The worker runs only ``work`` (`@Sendable` closures) and stores their results under a mutex, then
/// hands the job back to the main context with `g_idle_add`; every other member is used on the main
/// context only. A prompt that ended before the worker answered (Dismiss, its client left) is
/// ``cancelled``: the worker's answer is then dropped.
// @unchecked Sendable: `results` is behind a Mutex; `work` is immutable and Sendable; the rest is used
// only on the provider's main context (the worker thread never touches it).
final class BackgroundPrompt: @unchecked Sendable {
    let work: [@Sendable () -> Bool?]
    /// Closes the worker's pinentry when the prompt ends first (``cancel()``).
    let cancellation = PromptCancellation()
    private let results = Mutex<[Bool?]?>(nil)
    /// Main context only: called once with the work's results, unless the prompt was cancelled first.
    var onResults: (([Bool?]) -> Void)?
    /// Main context only: when set, polled every 250 ms until it returns `true` (the prompt has completed).
    var onPoll: (() -> Bool)?
    /// Main context only: called by ``cancel()`` (emits the prompt's `Completed(true, …)`).
    var onCancel: (() -> Void)?
    /// Main context only: the connection that ran the prompt (its unique bus name).
    var owner = ""
    /// Main context only: the prompt ended before the worker answered.
    private(set) var cancelled = false
    /// Main context only: the poll timer's source id, 0 when none.
    var timer: guint = 0

    init(work: [@Sendable () -> Bool?]) {
        self.work = work
    }

    /// Starts the worker thread and, when ``onPoll`` is set, the poll timer. Call on the main context.
    func start() {
        // One reference for the worker; the main context's idle callback releases it.
        let thread = Unmanaged.passRetained(self).toOpaque()
        let handle = g_thread_new(
            "keychain-prompt",
            { data in
                let job = Unmanaged<BackgroundPrompt>.fromOpaque(data!).takeUnretainedValue()
                let answers = Prompters.withCancellation(job.cancellation) { job.work.map { $0() } }
                job.results.withLock { $0 = answers }
                g_idle_add(
                    { data in
                        let job = Unmanaged<BackgroundPrompt>.fromOpaque(data!).takeRetainedValue()
                        let answers = job.results.withLock { $0 } ?? []
                        if !job.cancelled { job.onResults?(answers) }
                        return cgio_source_remove()
                    }, data)
                return nil
            }, thread)
        g_thread_unref(handle)
        guard onPoll != nil else { return }
        timer = g_timeout_add(
            250,
            { data in
                let job = Unmanaged<BackgroundPrompt>.fromOpaque(data!).takeUnretainedValue()
                guard job.onPoll?() == true else { return cgio_source_continue() }
                job.timer = 0
                return cgio_source_remove()
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops the poll timer (the prompt has completed). Call on the main context.
    func stopPolling() {
        if timer != 0 { g_source_remove(timer) }
        timer = 0
        onPoll = nil
    }

    /// Ends the prompt before the worker answered: closes its pinentry (as gnome-keyring closes its
    /// dialog), stops polling, drops the worker's later answer and calls ``onCancel``. Call on the main
    /// context.
    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        cancellation.cancel()
        stopPolling()
        onCancel?()
        onCancel = nil
    }
}
