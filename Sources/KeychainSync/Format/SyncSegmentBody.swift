package import KeychainCore

/// The plaintext inside a segment's box: the changes, padded so the remote learns only a size bucket
/// (docs/SYNC.md, "Segment body").
///
/// `body length (u32) ‖ body ‖ zeros`, the whole a power of two of at least 256 bytes. The body is
/// `count (u32)` then per change `item (16) ‖ clock (28) ‖ flags (u8: 1 base present, 2 payload present) ‖
/// base clock (28, when flagged) ‖ payload length (u32) ‖ payload (when flagged)`.
package enum SyncSegmentBody {
    /// The smallest padded size.
    package static let minimumBucket = 256
    /// The most changes one body holds.
    package static let maximumChanges = 1 << 20
    /// The largest payload accepted (16 MiB).
    package static let maximumPayloadBytes = 16 << 20

    /// The encoded size of one change in a body.
    package static func size(of change: SyncChange) -> Int {
        16 + SyncClock.encodedSize + 1 + (change.base == nil ? 0 : SyncClock.encodedSize)
            + (change.payload.map { 4 + $0.count } ?? 0)
    }

    /// The padded size of a body of `bodyBytes`: the next power of two at or above `4 + bodyBytes`.
    package static func bucket(for bodyBytes: Int) -> Int {
        var size = minimumBucket
        while size < 4 + bodyBytes { size <<= 1 }
        return size
    }

    /// Encodes `changes` into protected memory, padded.
    package static func encode(_ changes: [SyncChange]) -> SecureBytes {
        let bodyBytes = 4 + changes.reduce(0) { $0 + size(of: $1) }
        return SecureBytes(count: bucket(for: bodyBytes)) { out in
            var offset = 0
            func put(_ bytes: some Collection<UInt8>) {
                for byte in bytes {
                    out[offset] = byte
                    offset += 1
                }
            }
            func put32(_ value: UInt32) { withUnsafeBytes(of: value.bigEndian) { put($0) } }
            out.initializeMemory(as: UInt8.self, repeating: 0)
            put32(UInt32(bodyBytes))
            put32(UInt32(changes.count))
            for change in changes {
                put(change.item.bytes)
                put(change.clock.encoded)
                put([(change.base == nil ? 0 : 1) | (change.payload == nil ? 0 : 2)] as [UInt8])
                if let base = change.base { put(base.encoded) }
                if let payload = change.payload {
                    put32(UInt32(payload.count))
                    payload.withUnsafeBytes { bytes in
                        UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + bytes.count)]).copyMemory(
                            from: bytes)
                    }
                    offset += payload.count
                }
            }
        }
    }

    /// Decodes a padded body.
    /// - Throws: ``SyncFormatError`` for lengths past the end, unknown flags, bad ids or clocks, or
    ///   padding that is not zeros.
    package static func decode(_ body: SecureBytes) throws(SyncFormatError) -> [SyncChange] {
        let result: Result<[SyncChange], SyncFormatError> = body.withUnsafeBytes { bytes in
            var offset = 0
            func take(_ count: Int) -> UnsafeRawBufferPointer? {
                guard count >= 0, count <= bytes.count - offset else { return nil }
                defer { offset += count }
                return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
            }
            func take32() -> UInt32? { take(4).map { $0.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } } }
            guard let length = take32(), Int(length) >= 4, Int(length) <= bytes.count - 4 else {
                return .failure(.malformed("segment body", "a length past the end"))
            }
            let end = 4 + Int(length)
            for index in end..<bytes.count where bytes[index] != 0 {
                return .failure(.malformed("segment body", "padding is not zeros"))
            }
            guard let count = take32(), Int(count) <= maximumChanges else {
                return .failure(.malformed("segment body", "too many changes"))
            }
            var changes: [SyncChange] = []
            changes.reserveCapacity(Int(min(count, 4096)))
            for _ in 0..<count {
                guard offset <= end, let itemBytes = take(16), let item = SyncItemID(bytes: Array(itemBytes)),
                    let clockBytes = take(SyncClock.encodedSize), let clock = SyncClock(encoded: clockBytes),
                    let flags = take(1)?.first, flags & ~3 == 0
                else { return .failure(.malformed("segment body", "a change's id, clock or flags")) }
                var base: SyncClock?
                if flags & 1 != 0 {
                    guard let baseBytes = take(SyncClock.encodedSize), let decoded = SyncClock(encoded: baseBytes)
                    else {
                        return .failure(.malformed("segment body", "a base clock"))
                    }
                    base = decoded
                }
                var payload: SecureBytes?
                if flags & 2 != 0 {
                    guard let size = take32(), Int(size) <= maximumPayloadBytes, let data = take(Int(size)) else {
                        return .failure(.malformed("segment body", "a payload length"))
                    }
                    payload = SecureBytes(copying: data)
                }
                changes.append(SyncChange(item: item, clock: clock, base: base, payload: payload))
            }
            guard offset == end else { return .failure(.malformed("segment body", "\(end - offset) bytes left over")) }
            return .success(changes)
        }
        return try result.get()
    }
}
