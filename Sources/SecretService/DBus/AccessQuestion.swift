internal import KeychainCore
internal import KeychainDBus
internal import Synchronization

/// Access questions (``AccessConfirmation``) asked on a worker thread while the provider keeps serving;
/// the call that needs them is answered when they are (a deferred D-Bus reply).
///
/// Like ``BackgroundPrompt``: the worker (``WorkerThread``) only runs pinentry and stores the answers under
/// a mutex, then hands the job back to the main context. A question whose client left the bus
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
        WorkerThread.start("keychain-access") { [self] in
            let answers = Prompters.withCancellation(cancellation) {
                questions.map { question -> AccessConfirmation.Answer? in
                    guard let pinentry = try? Pinentry.fromEnvironment(terminal: nil) else { return nil }
                    do { return try pinentry.confirm(question) } catch { return nil }
                }
            }
            self.answers.withLock { $0 = answers }
        } then: { [self] in
            let answers = self.answers.withLock { $0 }
            if !cancelled { onAnswers?(answers) }
        }
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
