internal import COpenSSL

/// Private key material (an external representation, a derived secret) wiped with
/// `OPENSSL_cleanse` when released.
///
/// KeychainCrypto does not depend on the store, so it cannot use KeychainCore's `SecureBytes`;
/// callers that keep the bytes copy them into a `SecureBytes` inside ``withUnsafeBytes(_:)``.
/// `description` never shows the bytes.
///
/// - Important: Anything copied out of the closure is outside this type's protection.
// @unchecked Sendable: the bytes are written only during init and freed in deinit, so shared reads are safe.
package final class SensitiveBytes: @unchecked Sendable, CustomStringConvertible {
    private let buffer: UnsafeMutableRawBufferPointer

    /// Length in bytes.
    package var count: Int { storedCount }

    /// Allocates `count` bytes and lets `initialize` write them; wipes them if it throws.
    package init<E: Error>(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        // Initialized before the stored properties are set: a throwing class init that has set
        // them all would also run deinit, freeing the buffer twice.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        do { try initialize(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])) } catch {
            OPENSSL_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
            throw error
        }
        self.buffer = buffer
        self.storedCount = count
    }

    private let storedCount: Int

    /// Copies `bytes` into a wiped-on-release buffer.
    package convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count) { (target) throws(Never) in
            _ = target.initializeMemory(as: UInt8.self, from: bytes)
        }
    }

    deinit {
        OPENSSL_cleanse(buffer.baseAddress, buffer.count)
        buffer.deallocate()
    }

    /// Calls `body` with the bytes; they must not escape it.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(rebasing: buffer[0..<storedCount]))
    }

    /// A copy in an ordinary array, for callers that hand the bytes on (tests, Apple's API that
    /// returns `CFData`). The copy is not wiped.
    package var unprotectedCopy: [UInt8] { withUnsafeBytes { Array($0) } }

    package var description: String { "SensitiveBytes(\(storedCount) bytes, redacted)" }
}
