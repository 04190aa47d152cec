internal import KeychainCore

/// A keychain password, held in locked, zeroising memory (`sodium_malloc`) and wiped when released.
///
/// A keychain password is a secret like a device passcode, so it never travels as a `String`: Swift
/// strings are copied freely, cannot be wiped and may linger in freed memory. Build a password from
/// the bytes a prompt or a file gave you, ideally reading straight into protected memory with
/// ``init(capacity:reading:)``:
///
/// ```swift
/// // Read up to 1 KiB from a no-echo prompt directly into wiped memory.
/// let password = try KeychainPassword(capacity: 1024) { buffer in
///     try readPassphrase(prompt: "Keychain password: ", into: buffer)   // returns the length read
/// }
/// try file.unlock(password: password)
/// ```
///
/// The type deliberately has no string initializer, no `ExpressibleByStringLiteral` conformance,
/// no `Equatable`, `Hashable` or `Codable` conformance, and no accessor that returns the bytes.
/// Its `description` is redacted and does not reveal the length.
///
/// - Important: The bytes you pass to ``init(copying:)`` stay in *your* memory; wipe them yourself, or
///   use ``init(wiping:)`` or ``init(capacity:reading:)``, which leave no other copy behind.
public struct KeychainPassword: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    // MARK: - Public

    /// A password copied from `bytes` (for example the UTF-8 bytes a prompt returned).
    ///
    /// - Parameter bytes: the password's bytes. Any bytes are accepted, including an empty password
    ///   (unusual, but what macOS `security` accepts); the keychain treats the password as opaque.
    public init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.storage = SecureBytes(copying: bytes)
    }

    /// A password moved out of `bytes`: they are copied into protected memory, then zeroed, and
    /// `bytes` is left empty.
    ///
    /// - Parameter bytes: the password's bytes; on return, empty (its old storage holds zeros).
    public init(wiping bytes: inout [UInt8]) {
        self.storage = SecureBytes(copying: bytes)
        bytes.wipe()
        bytes.removeAll()
    }

    /// A password that `reading` writes directly into protected memory, so no other copy exists.
    ///
    /// `reading` gets a buffer of `capacity` bytes and returns how many of them it filled. A
    /// temporary protected buffer of `capacity` bytes is used and wiped; the password keeps only
    /// the bytes read.
    /// - Parameters:
    ///   - capacity: the most bytes the password may have, at least 0.
    ///   - reading: writes the password into the buffer and returns its length (0…`capacity`).
    /// - Throws: whatever `reading` throws (nothing is kept then), and ``KeychainError/Code/param``
    ///   when it returns a length outside 0…`capacity`.
    public init(capacity: Int, reading: (UnsafeMutableRawBufferPointer) throws -> Int) throws {
        var length = -1
        let scratch = try SecureBytes(count: max(capacity, 0)) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            length = try reading(buffer)
        }
        guard (0...scratch.count).contains(length) else {
            throw KeychainError(.param, operation: .unlock, detail: "the password reader returned an invalid length")
        }
        self.storage = scratch.withUnsafeBytes { bytes in SecureBytes(copying: bytes.prefix(length)) }
    }

    /// Always `"KeychainPassword(redacted)"`: neither the bytes nor their number.
    public var description: String { "KeychainPassword(redacted)" }

    /// Always `"KeychainPassword(redacted)"`.
    public var debugDescription: String { description }

    // MARK: - Internal

    /// The password in the engine's zeroising storage.
    let storage: SecureBytes
}
