#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// One conversation with a pinentry process over the Assuan protocol (GnuPG's line protocol:
/// commands out; `OK`, `ERR <code> <text>`, `D <percent-escaped data>`, `S …`, `# …` lines back).
///
/// The child's standard input and output are one end of a Unix socket pair, so a write to a child
/// that died fails with `EPIPE` (`MSG_NOSIGNAL`) instead of killing this process with `SIGPIPE`.
/// Lines are read one byte at a time into `sodium_malloc` memory, so a PIN never sits in an
/// ordinary buffer. This file and `Pinentry.swift` are the only ones here that start processes.
///
/// The child is started with ``ChildProcess`` (standard input and output on the socket, standard error on
/// `/dev/null`, the default signal mask and dispositions) and reaped in `deinit`, here and nowhere else,
/// so its pid names it for as long as this object lives (``PromptCancellation`` relies on that).
///
/// Not `Sendable`: it owns a socket and a child process; one owner closes both in `deinit`.
final class AssuanConnection {
    /// An Assuan reply: `OK` (with any `D` data, decoded), or `ERR`.
    enum Reply {
        case ok(SecureBytes?)
        case error(code: UInt32, message: String)
    }

    /// Longest line read (Assuan's limit is 1000 bytes; pinentry's PINs are shorter).
    static let maxLine = 4096

    private let child: ChildProcess
    private let socket: Int32

    /// Starts `program` with `arguments` and reads its greeting.
    /// - Throws: `.interactionNotAllowed` when it cannot be started or does not greet with `OK`.
    init(program: String, arguments: [String]) throws(KeychainFailure) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw KeychainFailure(.interactionNotAllowed, "cannot create a socket for pinentry")
        }
        socket = pair[0]
        var attempt = 0
        while true {
            switch ChildProcess.start(
                program, arguments, input: .descriptor(pair[1]), output: .descriptor(pair[1]), error: .null,
                defaultSignals: true)
            {
            case .success(let started):
                child = started
            case .failure(let error) where error.code == ETXTBSY && attempt < 20:
                // The program file is still open for writing somewhere (being installed or replaced,
                // or inherited by a process forked at that moment): it becomes runnable a moment later.
                attempt += 1
                usleep(10_000)
                continue
            case .failure:
                close(pair[1])
                close(pair[0])
                throw KeychainFailure(.interactionNotAllowed, "cannot start the pinentry program \(program)")
            }
            break
        }
        close(pair[1])
        guard case .ok = try readReply() else {
            throw KeychainFailure(.interactionNotAllowed, "the pinentry program \(program) did not greet")
        }
    }

    deinit {
        _ = try? send("BYE")
        close(socket)
        // pinentry exits on BYE or at the end of its input: give it up to 1 s before SIGTERM, so that
        // one which has just answered is not killed while it finishes.
        for _ in 0..<100 {
            if child.reapIfExited() { return }
            usleep(10_000)
        }
        child.signal(SIGTERM)
        _ = child.wait()
    }

    /// The pinentry's process id (it is reaped only in `deinit`).
    var processIdentifier: Int32 { child.pid }

    /// Sends one command (never a secret) and reads its reply.
    func transact(_ command: String) throws(KeychainFailure) -> Reply {
        try send(command)
        return try readReply()
    }

    // MARK: - Private

    private func send(_ command: String) throws(KeychainFailure) {
        var bytes = Array(command.utf8)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw KeychainFailure(.interactionNotAllowed, "the pinentry program stopped") }
            offset += n
        }
    }

    /// Reads lines until `OK` or `ERR`; `D` lines are decoded into zeroising memory and concatenated.
    private func readReply() throws(KeychainFailure) -> Reply {
        var data: SecureBytes?
        while true {
            let (line, length) = try readLine()
            // Compared in place: a `D` line holds the PIN, so no part of a line becomes a String unless
            // it is an `ERR` line.
            let starts = { (prefix: StaticString) -> Bool in
                line.withUnsafeBytes { bytes in
                    length >= prefix.utf8CodeUnitCount
                        && UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
                            .elementsEqual(bytes.prefix(prefix.utf8CodeUnitCount))
                }
            }
            if (length == 2 && starts("OK")) || starts("OK ") {
                return .ok(data)
            } else if starts("ERR ") {
                let rest = line.withUnsafeBytes { String(decoding: $0.prefix(length), as: UTF8.self) }.dropFirst(4)
                let code = UInt32(rest.prefix { $0.isNumber }) ?? 0
                let message = String(rest.drop { $0.isNumber }.drop { $0 == " " || $0 == "\t" })
                return .error(code: code, message: message)
            } else if starts("D ") {
                let decoded = Self.percentDecode(line, from: 2, to: length)
                if let previous = data {
                    data = SecureBytes(count: previous.count + decoded.count) { out in
                        previous.withUnsafeBytes { out.copyMemory(from: $0) }
                        decoded.withUnsafeBytes {
                            UnsafeMutableRawBufferPointer(rebasing: out[previous.count...]).copyMemory(from: $0)
                        }
                    }
                } else {
                    data = decoded
                }
            } else if starts("INQUIRE") {
                // pinentry asks nothing the keychain answers (e.g. QUALITY bars): end the inquiry.
                try send("END")
            }
            // `S` status and `#` comment lines carry nothing the caller needs.
        }
    }

    /// One line without its newline, in zeroising memory, and its length.
    private func readLine() throws(KeychainFailure) -> (SecureBytes, Int) {
        var length = 0
        var failed = false
        let line = SecureBytes(count: Self.maxLine) { buffer in
            while length < buffer.count {
                let n = Glibc.read(socket, buffer.baseAddress! + length, 1)
                if n < 0 && errno == EINTR { continue }
                if n != 1 { failed = true; return }
                if buffer[length] == 0x0A { return }
                length += 1
            }
            failed = true  // longer than any Assuan line
        }
        if failed { throw KeychainFailure(.interactionNotAllowed, "the pinentry program stopped answering") }
        return (line, length)
    }

    /// Decodes Assuan's `%XX` escapes of `line[start..<end]` into new zeroising memory.
    static func percentDecode(_ line: SecureBytes, from start: Int, to end: Int) -> SecureBytes {
        line.withUnsafeBytes { bytes in
            func hex(_ byte: UInt8) -> UInt8? {
                switch byte {
                case 0x30...0x39: byte - 0x30
                case 0x41...0x46: byte - 0x41 + 10
                case 0x61...0x66: byte - 0x61 + 10
                default: nil
                }
            }
            var count = 0
            var index = start
            while index < end {
                if bytes[index] == 0x25, index + 2 < end, hex(bytes[index + 1]) != nil, hex(bytes[index + 2]) != nil {
                    index += 3
                } else {
                    index += 1
                }
                count += 1
            }
            return SecureBytes(count: count) { out in
                var index = start
                var written = 0
                while index < end {
                    if bytes[index] == 0x25, index + 2 < end, let high = hex(bytes[index + 1]),
                        let low = hex(bytes[index + 2])
                    {
                        out[written] = high << 4 | low
                        index += 3
                    } else {
                        out[written] = bytes[index]
                        index += 1
                    }
                    written += 1
                }
            }
        }
    }

    /// Escapes text for an Assuan command argument: `%`, CR, LF and other control bytes as `%XX`.
    static func percentEncode(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == 0x25 || byte < 0x20 {
                out += [0x25, digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
