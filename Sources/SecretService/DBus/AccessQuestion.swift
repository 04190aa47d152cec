internal import CGIO
internal import KeychainCore
internal import Synchronization

/// Access questions (``AccessConfirmation``) asked on a worker thread while the provider keeps serving;
/// the call that needs them is answered when they are (a deferred D-Bus reply).
///
/// Like ``BackgroundPrompt``: the worker only runs pinentry and stores the answers under a mutex, then
/// hands the job back to the main context with `g_idle_add`. A question whose client left the bus
/// first is ``cancel()``ed: its pinentry closes and the answers are dropped.
// @unchecked Sendable: `answers` is behind a Mutex and `questions` is immutable; the rest is used only
// on the provider's main context.
final class AccessQuestion: @unchecked Sendable {
    let questions: [AccessConfirmation]
    let cancellation = PromptCancellation()
    private let answers = Mutex<[AccessConfirmation.Answer?]>([])
    /// Main context only: the connection whose call waits.
    let owner: String
    /// Main context only: called once with one answer per question (`nil`: could not ask), unless cancelled.
    var onAnswers: (([AccessConfirmation.Answer?]) -> Void)?
    /// Main context only: called by ``cancel()``.
    var onCancel: (() -> Void)?
    private(set) var cancelled = false

    init(questions: [AccessConfirmation], owner: String) {
        self.questions = questions
        self.owner = owner
    }

    /// Starts the worker. Call on the main context.
    func start() {
        let thread = Unmanaged.passRetained(self).toOpaque()
        let handle = g_thread_new(
            "keychain-access",
            { data in
                let job = Unmanaged<AccessQuestion>.fromOpaque(data!).takeUnretainedValue()
                let answers = Prompters.withCancellation(job.cancellation) {
                    job.questions.map { question -> AccessConfirmation.Answer? in
                        guard let pinentry = try? Pinentry.fromEnvironment(terminal: nil) else { return nil }
                        do { return try pinentry.confirm(question) } catch { return nil }
                    }
                }
                job.answers.withLock { $0 = answers }
                g_idle_add(
                    { data in
                        let job = Unmanaged<AccessQuestion>.fromOpaque(data!).takeRetainedValue()
                        let answers = job.answers.withLock { $0 }
                        if !job.cancelled { job.onAnswers?(answers) }
                        return cgio_source_remove()
                    }, data)
                return nil
            }, thread)
        g_thread_unref(handle)
    }

    /// Drops the question (its client left): closes its pinentry and calls ``onCancel``. Main context.
    func cancel() {
        guard !cancelled else { return }
        cancelled = true
        cancellation.cancel()
        onCancel?()
        onCancel = nil
    }
}
