internal import CSodium
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#endif

/// A secret held in `sodium_malloc` storage and wiped when released: the one zeroising byte type of
/// the package (KeychainCore's secrets and KeychainCrypto's key material alike).
///
/// The bytes live in memory from `sodium_malloc` (locked against swapping, between guard pages),
/// are never copied into Swift arrays by this type, and are zeroed with `sodium_memzero` on release.
/// - Secrets of up to ``SecureArena/slotBytes`` bytes (keys, most passwords and tokens) take a slot
///   of a shared `sodium_malloc` arena (``SecureArena``): one `sodium_malloc` costs four system calls
///   (about 40 µs on the reference machine), too much for every item key of every read.
/// - Larger secrets get their own `sodium_malloc` allocation.
/// - Each `sodium_malloc` costs memory mappings, and the kernel allows about 65,000 per process
///   (`vm.max_map_count`); when libsodium cannot map more, the secret falls back to ordinary heap
///   memory, still zeroed before it is freed, so that a query returning tens of thousands of large
///   secrets degrades instead of failing.
/// Reach them only through ``withUnsafeBytes(_:)``. `description` never shows them.
///
/// - Important: Anything copied out of the closure is outside this type's protection.
// @unchecked Sendable: the bytes are written only during init and freed in deinit, so shared reads are safe.
package final class SecureBytes: @unchecked Sendable, CustomStringConvertible {
    private let pointer: UnsafeMutableRawPointer
    private let storage: Storage
    /// Length in bytes.
    package let count: Int

    private enum Storage { case arenaSlot, dedicated, heap }

    /// Allocates `count` bytes and lets `initialize` write them; wipes and frees them if it throws.
    /// - Parameters:
    ///   - count: the length in bytes.
    ///   - initialize: writes the bytes.
    /// - Throws: what `initialize` throws.
    package init<E: Error>(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        precondition(Self.sodiumReady, "sodium_init failed")
        let pointer: UnsafeMutableRawPointer
        let storage: Storage
        if count <= SecureArena.slotBytes, let slot = SecureArena.allocate() {
            (pointer, storage) = (slot, .arenaSlot)
        } else if let raw = sodium_malloc(max(count, 1)) {
            (pointer, storage) = (raw, .dedicated)
        } else if let raw = malloc(max(count, 1)) {
            (pointer, storage) = (raw, .heap)
        } else {
            fatalError("out of memory for a \(count)-byte secret")
        }
        // Written before the stored properties are set: a class init that throws after setting them
        // all would also run deinit, releasing the storage twice.
        do {
            try initialize(UnsafeMutableRawBufferPointer(start: pointer, count: count))
        } catch {
            Self.release(pointer, count: count, storage: storage)
            throw error
        }
        self.pointer = pointer
        self.storage = storage
        self.count = count
    }

    /// `sodium_init` once per process (it is idempotent and thread-safe).
    private static let sodiumReady = sodium_init() >= 0

    private static func release(_ pointer: UnsafeMutableRawPointer, count: Int, storage: Storage) {
        switch storage {
        case .arenaSlot: SecureArena.release(pointer)  // zeroes the whole slot
        case .dedicated: sodium_free(pointer)  // zeroes before unmapping
        case .heap:
            sodium_memzero(pointer, max(count, 1))
            free(pointer)
        }
    }

    /// Copies `bytes` into protected storage.
    ///
    /// Contiguous collections (arrays, buffer pointers and their slices) are copied with one `memcpy`:
    /// this initializer is generic and not inlinable, so callers in other modules run it unspecialized,
    /// where `initializeMemory(as:from:)` walks a generic iterator (about 1,700 instructions a byte,
    /// 180k for the 101-byte class-key payload that every transaction with a class key reads).
    package convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(count: bytes.count) { buffer in
            let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(source))
            }
            if copied == nil { _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
        }
    }

    /// `count` bytes from libsodium's CSPRNG (`randombytes_buf`).
    package static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
        }
    }

    deinit {
        wipe()
        Self.release(pointer, count: count, storage: storage)
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

    /// A copy in an ordinary array, for callers that hand the bytes on (tests, Apple's API that
    /// returns `CFData`). The copy is not wiped.
    package var unprotectedCopy: [UInt8] { withUnsafeBytes { Array($0) } }

    package var description: String { "SecureBytes(\(count) bytes, redacted)" }
}

/// Slots of `sodium_malloc` memory for small secrets, shared by the process.
///
/// Arenas of ``arenaBytes`` bytes come from `sodium_malloc` (locked, guard pages around each arena)
/// and are never returned; their slots are handed out and taken back under a mutex, and every
/// released slot is zeroed with `sodium_memzero` before it can be reused. Slots of one arena have no
/// guard pages between them.
package enum SecureArena {
    /// Largest secret served from a slot, in bytes.
    package static let slotBytes = 128
    /// Bytes of one arena.
    static let arenaBytes = 64 << 10

    /// Addresses of the free slots.
    private static let free = Mutex<[UInt]>([])

    static func allocate() -> UnsafeMutableRawPointer? {
        let address = free.withLock { slots -> UInt? in
            if slots.isEmpty {
                guard let arena = sodium_malloc(arenaBytes) else { return nil }
                sodium_memzero(arena, arenaBytes)
                let base = UInt(bitPattern: arena)
                slots.reserveCapacity(arenaBytes / slotBytes)
                for offset in stride(from: arenaBytes - slotBytes, through: 0, by: -slotBytes) {
                    slots.append(base + UInt(offset))
                }
            }
            return slots.popLast()
        }
        return address.flatMap { UnsafeMutableRawPointer(bitPattern: $0) }
    }

    static func release(_ slot: UnsafeMutableRawPointer) {
        sodium_memzero(slot, slotBytes)
        let address = UInt(bitPattern: slot)
        free.withLock { $0.append(address) }
    }
}

extension Array where Element == UInt8 {
    /// Zeroes the array's storage in place with `sodium_memzero`, which the optimizer cannot
    /// remove: for plain buffers that briefly held a secret, once it was copied into a
    /// ``SecureBytes`` or written out. A loop of `bytes[i] = 0` may be elided.
    package mutating func wipe() {
        withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 { sodium_memzero(base, buffer.count) }
        }
    }
}
