/// Sixteen random bytes naming one synchronizable item on every device.
///
/// Given when a synchronizable item is first written (or first becomes synchronizable), it travels with the
/// item in every ``SyncChange``; a conflict copy gets one of its own. It is not secret and says nothing about
/// the item.
package struct SyncItemID: Sendable, Hashable, Comparable, CustomStringConvertible {
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
    package static func random() -> SyncItemID {
        SyncItemID(bytes: Sodium.randomBytes(byteCount))!
    }

    /// The id from its ``description``; nil unless `hex` is 32 hexadecimal digits (either case).
    package init?(hex: String) {
        guard let bytes = SyncHex.decode(hex, count: Self.byteCount) else { return nil }
        self.bytes = bytes
    }

    /// 32 lowercase hexadecimal digits.
    package var description: String { Sodium.hex(bytes) }

    package static func < (lhs: SyncItemID, rhs: SyncItemID) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
