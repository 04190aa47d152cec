internal import CGIO
internal import Synchronization

/// An unlock prompt's password question running on a worker thread (GLib's `g_thread_new`), so that the
/// provider keeps serving while the user types, and completes the prompt as soon as the collections are
/// unlocked by any means (another process, `security unlock-keychain`) or the user answers.
///
/// The worker runs only ``work`` (`@Sendable` closures) and stores their results under a mutex, then
/// hands the job back to the main context with `g_idle_add`; every other member is used on the main
/// context only.
// @unchecked Sendable: `results` is behind a Mutex; `work` is immutable and Sendable; the rest is used
// only on the provider's main context (the worker thread never touches it).
final class BackgroundUnlock: @unchecked Sendable {
    let work: [@Sendable () -> Bool?]
    private let results = Mutex<[Bool?]?>(nil)
    /// Main context only: called once with the work's results.
    var onResults: (([Bool?]) -> Void)?
    /// Main context only: polled every 250 ms until it returns `true` (the prompt has completed).
    var onPoll: (() -> Bool)?
    /// Main context only: the poll timer's source id, 0 when none.
    var timer: guint = 0

    init(work: [@Sendable () -> Bool?]) {
        self.work = work
    }

    /// Starts the worker thread and the poll timer. Call on the main context.
    func start() {
        // One reference for the worker; the main context's idle callback releases it.
        let thread = Unmanaged.passRetained(self).toOpaque()
        let handle = g_thread_new(
            "keychain-unlock",
            { data in
                let job = Unmanaged<BackgroundUnlock>.fromOpaque(data!).takeUnretainedValue()
                let answers = job.work.map { $0() }
                job.results.withLock { $0 = answers }
                g_idle_add(
                    { data in
                        let job = Unmanaged<BackgroundUnlock>.fromOpaque(data!).takeRetainedValue()
                        let answers = job.results.withLock { $0 } ?? []
                        job.onResults?(answers)
                        return cgio_source_remove()
                    }, data)
                return nil
            }, thread)
        g_thread_unref(handle)
        timer = g_timeout_add(
            250,
            { data in
                let job = Unmanaged<BackgroundUnlock>.fromOpaque(data!).takeUnretainedValue()
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
}
