internal import CGIO

/// Work that must not block the GLib main loop (a question to the user through pinentry) run on a thread
/// of its own (`g_thread_new`), then handed back: `done` runs on the main context of the thread that
/// called ``start(_:_:then:)`` (an idle source attached to its thread-default context), so the loop keeps
/// serving meanwhile.
///
/// The job is kept by the thread, then by the idle source's callback data, and released by GLib on the
/// main context once `done` has run. `work` runs on the worker thread and may touch only `Sendable`
/// state; `done` runs on the starting thread's main context and may touch anything that context owns.
/// A job whose main context is never iterated again (the program is exiting) is not run to `done`.
package enum WorkerThread {
    /// One job, carried from the starting thread to the worker and back.
    // @unchecked Sendable: `work` is Sendable; `done` and `context` are used only on the starting thread's
    // main context (the worker thread carries the job to it without touching them, apart from attaching).
    private final class Job: @unchecked Sendable {
        let work: @Sendable () -> Void
        let done: () -> Void
        /// The starting thread's main context, referenced for the job's life.
        let context: OpaquePointer?

        init(work: @escaping @Sendable () -> Void, done: @escaping () -> Void) {
            self.work = work
            self.done = done
            context = g_main_context_ref_thread_default()
        }

        deinit { g_main_context_unref(context) }
    }

    /// Starts `work` on a new thread named `name`; `done` follows on this thread's main context.
    /// - Parameters:
    ///   - name: the thread's name (for debuggers and `/proc/<pid>/task/*/comm`; GLib keeps the first 15 bytes).
    ///   - work: what runs on the worker thread.
    ///   - done: what runs on this thread's main context after `work` has returned.
    package static func start(
        _ name: String, _ work: @escaping @Sendable () -> Void, then done: @escaping () -> Void
    ) {
        let job = Unmanaged.passRetained(Job(work: work, done: done)).toOpaque()
        let thread = g_thread_new(
            name,
            { data in
                let job = Unmanaged<Job>.fromOpaque(data!).takeUnretainedValue()
                job.work()
                // The thread's reference passes to the idle source, which releases it once destroyed.
                let idle = g_idle_source_new()
                g_source_set_callback(
                    idle,
                    { data in
                        Unmanaged<Job>.fromOpaque(data!).takeUnretainedValue().done()
                        return cgio_source_remove()
                    }, data, { data in Unmanaged<Job>.fromOpaque(data!).release() })
                g_source_attach(idle, job.context)
                g_source_unref(idle)
                return nil
            }, job)
        g_thread_unref(thread)
    }
}
