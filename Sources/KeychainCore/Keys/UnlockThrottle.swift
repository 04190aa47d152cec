#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// Slows down repeated wrong passwords with an escalating delay.
///
/// Design: the count of consecutive failures and the time of the last one are kept in a small
/// 0600 file beside the device key (`<keychain id>.unlock-failures`), never in the keychain file,
/// so that a wrong password leaves the keychain byte-for-byte unchanged. Before each attempt the
/// caller waits ``delay(afterFailures:)`` seconds measured from the last failure:
/// 0 for the first 3 failures, then 1, 2, 4, 8, 16, 32 and at most 60 seconds. A success resets it.
/// Every attempt also pays the Argon2id cost (≈0.5 s by default), so guessing runs at most about
/// one password a minute once the cap is reached. A same-user attacker can delete the file; the
/// delay guards against guessing at the keyboard, not against code running as the user
/// (docs/SECURITY.md).
package struct UnlockThrottle {
    let path: String

    init(deviceKeyPath: String, keychainID: [UInt8]) {
        let directory = FileSystem.directory(of: deviceKeyPath)
        let name = Sodium.hex(keychainID)
        path = (directory.isEmpty ? "." : directory) + "/" + name + ".unlock-failures"
    }

    /// How many wrong passwords in a row cost no wait.
    package static let freeFailures = 3

    /// Seconds to wait after `failures` consecutive failures.
    package static func delay(afterFailures failures: Int) -> UInt32 {
        guard failures >= freeFailures else { return 0 }
        return UInt32(min(1 << min(failures - freeFailures, 6), 60))
    }

    /// What `security unlock-keychain` says after a wrong password, from the count the throttle keeps:
    /// "2 tries left before each try waits (the unlock throttle)" while tries are free, then "3 wrong
    /// passwords in a row: the next try waits 1 s (the unlock throttle)" (tracker issue 24).
    /// - Parameter failures: consecutive failures so far, this one included (``Keystore/unlockWait()``).
    package static func afterWrongPassword(failures: Int) -> String {
        let outlook = nextTry(failures: failures)
        if freeFailures - failures > 0 { return outlook + " (the unlock throttle)" }
        return "\(failures) wrong passwords in a row: \(outlook) (the unlock throttle)"
    }

    /// The Secret Service provider's pinentry error line after a wrong password, from the same count as
    /// ``afterWrongPassword(failures:)``: "Wrong password: 2 tries left before each try waits (the unlock
    /// throttle)." while tries are free, then "Wrong password: the next try waits 1 s (the unlock
    /// throttle)." (tracker issue 24).
    /// - Parameter failures: consecutive failures so far, this one included (``Keystore/unlockWait()``).
    package static func wrongPasswordPromptLine(failures: Int) -> String {
        "Wrong password: \(nextTry(failures: failures)) (the unlock throttle)."
    }

    /// What the next try costs after `failures` consecutive failures, the wording both messages share:
    /// "2 tries left before each try waits", "1 try left before each try waits", then "the next try
    /// waits 1 s" (``delay(afterFailures:)``).
    private static func nextTry(failures: Int) -> String {
        let left = freeFailures - failures
        if left > 0 { return "\(left) \(left == 1 ? "try" : "tries") left before each try waits" }
        return "the next try waits \(delay(afterFailures: failures)) s"
    }

    /// Consecutive failures so far and the wall-clock second of the last one.
    func state() -> (failures: Int, last: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (0, 0) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return (0, 0) }
        let fields = String(decoding: buffer[..<n], as: UTF8.self).split(separator: " ")
        guard fields.count == 2, let failures = Int(fields[0]),
            let last = Int(fields[1].trimmingNewline())
        else { return (0, 0) }
        return (failures, last)
    }

    /// What the throttle makes the user wait for, in words, or `nil` when it does not apply:
    /// "3 wrong passwords in a row: each try waits up to 1 s (the unlock throttle)". The prompts and
    /// `security unlock-keychain` show it, so that a slow unlock is never unexplained (tracker issue 24).
    /// - Parameters:
    ///   - failures: consecutive failures so far.
    ///   - seconds: the delay they impose, from ``Keystore/unlockWait()`` (measured from the last
    ///     failure, so the wait left may be shorter: "up to").
    package static func notice(failures: Int, seconds: UInt32) -> String? {
        guard seconds > 0 else { return nil }
        return "\(failures) wrong passwords in a row: each try waits up to \(seconds) s (the unlock throttle)"
    }

    /// Consecutive failures and the delay they impose on the next attempt (``delay(afterFailures:)``).
    func pending() -> (failures: Int, seconds: UInt32) {
        let failures = state().failures
        return (failures, Self.delay(afterFailures: failures))
    }

    /// Blocks until the delay owed for earlier failures has passed.
    func waitIfNeeded() {
        let (failures, last) = state()
        let wait = Int(Self.delay(afterFailures: failures)) - (time(nil) - last)
        if wait > 0 { sleep(UInt32(min(wait, 60))) }
    }

    func recordFailure() {
        let failures = state().failures + 1
        write("\(failures) \(time(nil))\n")
    }

    func reset() {
        if state().failures > 0 { unlink(path) }
    }

    private func write(_ text: String) {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let bytes = Array(text.utf8)
        _ = Glibc.write(fd, bytes, bytes.count)
        close(fd)
        _ = rename(temporary, path)
    }
}

extension Substring {
    fileprivate func trimmingNewline() -> Substring {
        var result = self
        while result.last == "\n" { result = result.dropLast() }
        return result
    }
}
