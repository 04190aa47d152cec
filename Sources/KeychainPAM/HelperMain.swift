internal import KeychainCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// `keychain-pam-helper`'s main: reads the message from standard input (a pipe from the module),
/// runs it with ``LoginHelper`` and prints its line on standard output.
package enum HelperMain {
    /// Runs the helper once.
    /// - Returns: the exit status (``LoginHelper/Outcome``; 2 for a malformed or unreadable message).
    package static func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessEnvironment.current()
        #if DEBUG
            // The tests' stand-in for a helper that hangs (debug builds only).
            if environment["KEYCHAIN_PAM_HANG"] == "1" { while true { pause() } }
        #endif
        var length = 0
        var readFailure: Int32 = 0
        let buffer = SecureBytes(count: HelperMessage.maximumBytes + 1) { bytes in
            while length < bytes.count {
                let got = read(STDIN_FILENO, bytes.baseAddress! + length, bytes.count - length)
                if got < 0 && errno == EINTR { continue }
                if got < 0 { readFailure = errno }
                if got <= 0 { break }
                length += got
            }
        }
        let outcome: LoginHelper.Outcome
        if readFailure != 0 {
            outcome = LoginHelper.Outcome(
                status: 2, line: "cannot read the message: \(String(cString: strerror(readFailure)))")
        } else if length > HelperMessage.maximumBytes {
            outcome = LoginHelper.Outcome(
                status: 2, line: "the message is longer than \(HelperMessage.maximumBytes) bytes")
        } else {
            do {
                let message = try buffer.withUnsafeBytes { (bytes) throws(HelperMessage.Refusal) in
                    try HelperMessage.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
                }
                outcome = LoginHelper(environment: environment).run(message)
            } catch {
                outcome = LoginHelper.Outcome(status: 2, line: "malformed message: \(error)")
            }
        }
        let line = outcome.line + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
        return outcome.status
    }
}
