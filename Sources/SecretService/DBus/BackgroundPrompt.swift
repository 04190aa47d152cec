internal import KeychainCore
internal import KeychainDBus
internal import Synchronization

/// A prompt's question to the user running on a worker thread (``WorkerThread``), so that the
/// provider keeps serving while the user types. Unlock prompts also poll, and complete as soon as the
/// collections are unlocked by any means (another process, `security unlock-keychain`).
///
/// The worker runs only ``work`` (`@Sendable` closures) and stores their results under a mutex, then
/// hands the job back to the main context; every other member is used on the main context only. A prompt
/// that ended before the worker answered (Dismiss, its client left) is ``cancelled``: the worker's answer
/// is then dropped.
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
    /// Main context only: the poll timer, while ``onPoll`` is polled.
    private var timer: MainLoopTimer?

    init(work: [@Sendable () -> Bool?]) {
        self.work = work
    }

    /// Starts the worker thread and, when ``onPoll`` is set, the poll timer. Call on the main context.
    func start() {
        WorkerThread.start("keychain-prompt") { [self] in
            let answers = Prompters.withCancellation(cancellation) { work.map { $0() } }
            results.withLock { $0 = answers }
        } then: { [self] in
            let answers = results.withLock { $0 } ?? []
            if !cancelled { onResults?(answers) }
        }
        guard onPoll != nil else { return }
        // The timer belongs to this job, so it cannot outlive it.
        timer = MainLoopTimer(milliseconds: 250) { [unowned self] in
            guard onPoll?() == true else { return }
            timer?.cancel()
            timer = nil
        }
    }

    /// Stops the poll timer (the prompt has completed). Call on the main context.
    func stopPolling() {
        timer?.cancel()
        timer = nil
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
