internal import CSodium

/// A secret held in `sodium_malloc` storage and wiped when released.
///
/// The bytes sit between guard pages, are never copied into Swift arrays by this type,
/// and are zeroed with `sodium_memzero` before `sodium_free` returns the pages.
/// Reach them only through ``withUnsafeBytes(_:)``. `description` never shows them.
///
/// - Important: Anything copied out of the closure is outside this type's protection.
// @unchecked Sendable: the bytes are written only during init and freed in deinit, so shared reads are safe.
package final class SecureBytes: @unchecked Sendable, CustomStringConvertible {
    private let pointer: UnsafeMutableRawPointer
    /// Length in bytes.
    package let count: Int

    /// Allocates `count` bytes and lets `initialize` write them.
    package init(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        Sodium.ensureInitialized()
        guard let raw = sodium_malloc(max(count, 1)) else { fatalError("sodium_malloc failed: out of memory") }
        self.pointer = raw
        self.count = count
        do {
            try initialize(UnsafeMutableRawBufferPointer(start: raw, count: count))
        } catch {
            sodium_memzero(raw, max(count, 1))
            sodium_free(raw)
            throw error
        }
    }

    /// Copies `bytes` into protected storage.
    package convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count) { buffer in _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
    }

    /// `count` bytes from libsodium's CSPRNG (`randombytes_buf`).
    package static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    deinit {
        wipe()
        sodium_free(pointer)
    }

    /// Gives scoped, read-only access to the secret.
    package func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Compares two secrets in constant time (`sodium_memcmp`); lengths are not secret.
    package func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return sodium_memcmp(pointer, other.pointer, count) == 0
    }

    /// Compares with plain bytes in constant time.
    package func constantTimeEquals<Bytes: Collection>(_ other: Bytes) -> Bool where Bytes.Element == UInt8 {
        constantTimeEquals(SecureBytes(copying: other))
    }

    /// Zeroes the storage (`sodium_memzero`). Called by deinit; exposed so tests can observe the wipe.
    package func wipe() {
        sodium_memzero(pointer, max(count, 1))
    }

    /// Zeroes `count` bytes at `pointer` with `sodium_memzero`, which the optimizer cannot remove:
    /// for wiping a caller's buffer after its secret was copied into a ``SecureBytes``.
    package static func wipe(_ pointer: UnsafeMutableRawPointer, count: Int) {
        sodium_memzero(pointer, count)
    }

    package var description: String { "SecureBytes(\(count) bytes, redacted)" }
}
