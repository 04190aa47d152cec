import Dispatch

/// Runs blocking keychain work (SQLite, which may wait for another process's write lock) on a
/// dispatch queue instead of a Swift concurrency thread, and resumes the caller with its result.
enum Offload {
    static func run<R: Sendable>(
        _ work: @escaping @Sendable () throws(KeychainError) -> R
    ) async throws(KeychainError) -> R {
        let result: Result<R, KeychainError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(KeychainError) -> R in try work() })
            }
        }
        return try result.get()
    }
}
