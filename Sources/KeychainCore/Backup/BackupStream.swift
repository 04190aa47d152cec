/// The framing of a backup file: the header, then each secretstream message as
/// `length (u32 BE) ‖ ciphertext` (docs/BACKUP-FORMAT.md).
enum BackupStream {
    /// Largest ciphertext a frame may hold: a Secret Service item's 4 MiB secret (a SecItem secret is
    /// at most 1 MiB) plus generous room for its label and attributes. Version 2 files, whose largest
    /// record was a 1 MiB secret, were bounded at 4 MiB; the larger bound reads them all the same.
    static let maximumFrameBytes = 16 << 20

    /// Writes messages to a ``FileWriter``. Not `Sendable`.
    final class Writer {
        private let file: FileWriter
        private let stream: SecretStream
        private let headerBytes: [UInt8]
        private var first = true

        /// Writes the header and readies the stream.
        init(file: FileWriter, parameters: KDFParameters, salt: [UInt8], keys: BackupKeys) throws(KeychainFailure) {
            let (stream, streamHeader) = SecretStream.push(key: keys.streamKey)
            let header = BackupHeader(
                parameters: parameters, salt: salt, streamHeader: streamHeader, keyCheck: keys.keyCheck)
            self.file = file
            self.stream = stream
            headerBytes = header.encoded()
            try file.write(headerBytes)
        }

        /// Seals and writes one message; the first one carries the header as associated data.
        func write(_ plaintext: SecureBytes) throws(KeychainFailure) {
            try emit(plaintext.withUnsafeBytes { seal($0, final: false) })
        }

        func write(_ plaintext: [UInt8], final: Bool = false) throws(KeychainFailure) {
            try emit(plaintext.withUnsafeBytes { seal($0, final: final) })
        }

        private func seal(_ plaintext: UnsafeRawBufferPointer, final: Bool) -> [UInt8] {
            defer { first = false }
            return stream.seal(plaintext, associatedData: first ? headerBytes : [], tag: final ? .final : .message)
        }

        /// - Throws: `.dataTooLarge` for a record over ``maximumFrameBytes``, which no reader would
        ///   accept (the backup fails instead of writing a file that does not restore).
        private func emit(_ ciphertext: [UInt8]) throws(KeychainFailure) {
            guard ciphertext.count <= maximumFrameBytes else {
                throw KeychainFailure(
                    .dataTooLarge, "an item is too large for a backup record (\(maximumFrameBytes >> 20) MiB at most)")
            }
            try file.write(BackupHeader.bigEndian(UInt32(ciphertext.count)))
            try file.write(ciphertext)
        }
    }

    /// Reads a backup's header without any key.
    /// - Returns: the parsed header and its exact bytes.
    static func readHeader(path: String) throws(KeychainFailure) -> (BackupHeader, [UInt8]) {
        let file = try FileReader(path: path)
        let bytes = try file.read(BackupHeader.size)
        return (try BackupHeader.decode(bytes), bytes)
    }

    /// Reads and opens messages one at a time. Not `Sendable`.
    final class Reader {
        private let file: FileReader
        private let stream: SecretStream
        private let headerBytes: [UInt8]
        private var index = 0

        /// Opens the file, checks its header is `expectedHeader`, and readies the stream.
        init(path: String, expectedHeader: [UInt8], keys: BackupKeys) throws(KeychainFailure) {
            file = try FileReader(path: path)
            headerBytes = try file.read(BackupHeader.size)
            guard headerBytes == expectedHeader else {
                throw KeychainFailure(.decode, "the backup changed while it was being restored")
            }
            let header = try BackupHeader.decode(headerBytes)
            guard let stream = SecretStream.pull(key: keys.streamKey, header: header.streamHeader) else {
                throw KeychainFailure(.decode, "the backup's stream header is malformed")
            }
            self.stream = stream
        }

        /// The next message and whether it is the final one.
        /// - Throws: `.decode` when the file ends early, a frame is oversized, or a message does not
        ///   authenticate (tampering, reordering, damage).
        func next() throws(KeychainFailure) -> (plaintext: SecureBytes, final: Bool) {
            let length = try file.read(4)
            guard length.count == 4 else {
                throw KeychainFailure(.decode, "the backup is truncated: it ends before its final record")
            }
            let count = Int(BackupHeader.integer(length, 0, 4))
            guard count >= SecretStream.overhead, count <= maximumFrameBytes else {
                throw KeychainFailure(.decode, "the backup is damaged: record \(index) has an impossible length")
            }
            let ciphertext = try file.read(count)
            guard ciphertext.count == count else {
                throw KeychainFailure(.decode, "the backup is truncated inside record \(index)")
            }
            guard let (plaintext, tag) = stream.open(ciphertext, associatedData: index == 0 ? headerBytes : []) else {
                throw KeychainFailure(
                    .decode, "the backup does not authenticate at record \(index): it was altered or damaged")
            }
            index += 1
            return (plaintext, tag == .final)
        }

        /// Checks nothing follows the final message.
        func expectEnd() throws(KeychainFailure) {
            guard try file.isAtEnd() else {
                throw KeychainFailure(.decode, "the backup has unexpected bytes after its final record")
            }
        }
    }
}
