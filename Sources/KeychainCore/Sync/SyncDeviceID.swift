/// Sixteen random bytes naming one device: one keychain file's replica in a sync group.
///
/// Made at the replica's first sync call and kept in the file's `meta` table (it is not secret). It breaks
/// ties between ``SyncClock`` stamps, so it orders like its bytes.
package struct SyncDeviceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The id's bytes: exactly ``byteCount``.
    package let bytes: [UInt8]

    /// The length of every id, in bytes.
    package static let byteCount = 16

    /// An id from its bytes; nil unless there are exactly ``byteCount`` of them.
    package init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A new id from libsodium's random generator.
    package static func random() -> SyncDeviceID {
        SyncDeviceID(bytes: Sodium.randomBytes(byteCount))!
    }

    /// The id from its ``description``; nil unless `hex` is 32 hexadecimal digits (either case).
    package init?(hex: String) {
        guard let bytes = SyncHex.decode(hex, count: Self.byteCount) else { return nil }
        self.bytes = bytes
    }

    /// 32 lowercase hexadecimal digits.
    package var description: String { Sodium.hex(bytes) }

    package static func < (lhs: SyncDeviceID, rhs: SyncDeviceID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
