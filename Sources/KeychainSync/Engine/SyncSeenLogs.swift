package import KeychainCore

/// How far each other device's log has been read and applied ("sync.seen"): its sequence number and the hash
/// of that segment, so a head that goes back (rollback) or names another segment at the same number (fork)
/// is detected.
///
/// `version (1) ‖ count (u32) ‖ (device (16) ‖ sequence (u64) ‖ hash (32))*`.
package struct SyncSeenLogs: Sendable, Equatable {
    package static let name = "sync.seen"

    package var entries: [SyncDeviceID: (sequence: UInt64, hash: [UInt8])] = [:]

    package init() {}

    package static func == (lhs: SyncSeenLogs, rhs: SyncSeenLogs) -> Bool {
        lhs.entries.count == rhs.entries.count
            && lhs.entries.allSatisfy {
                rhs.entries[$0.key]?.sequence == $0.value.sequence && rhs.entries[$0.key]?.hash == $0.value.hash
            }
    }

    package var encoded: [UInt8] {
        var writer = SyncByteWriter()
        writer.append(UInt8(1))
        writer.append(UInt32(entries.count))
        for (device, entry) in entries.sorted(by: { $0.key < $1.key }) {
            writer.append(device.bytes)
            writer.append(entry.sequence)
            writer.append(entry.hash)
        }
        return writer.bytes
    }

    package init(decoding bytes: [UInt8]) throws(SyncFormatError) {
        var reader = SyncByteReader(bytes, what: "seen logs")
        guard try reader.integer(UInt8.self) == 1 else { throw .unknownFormat("seen logs") }
        let count = try reader.integer(UInt32.self)
        for _ in 0..<count {
            guard let device = SyncDeviceID(bytes: try reader.take(16)) else { throw .malformed("seen logs", "device") }
            entries[device] = (try reader.integer(UInt64.self), try reader.take(32))
        }
        try reader.expectEnd()
    }
}
