internal import KeychainCore

/// This device's own progress, kept in one `syncState` value ("sync.local") so it changes atomically
/// (docs/SYNC.md, "Local state"): the local change serial already packed into segments, the newest own
/// segment, and the outbox of files written but not yet known to be published.
///
/// `version (1) ‖ cursor (u64) ‖ own sequence (u64) ‖ own hash (32) ‖ outbox count (u32) ‖
/// (path length (u32) ‖ path ‖ bytes length (u32) ‖ bytes)*`.
package struct SyncLocalState: Sendable, Equatable {
    package static let name = "sync.local"

    package var cursor: UInt64 = 0
    package var sequence: UInt64 = 0
    package var lastHash = [UInt8](repeating: 0, count: 32)
    package var outbox: [SyncOutboxFile] = []

    package init() {}

    package var encoded: [UInt8] {
        var writer = SyncByteWriter()
        writer.append(UInt8(1))
        writer.append(cursor)
        writer.append(sequence)
        writer.append(lastHash)
        writer.append(UInt32(outbox.count))
        for file in outbox {
            writer.appendLengthPrefixed(Array(file.path.utf8))
            writer.appendLengthPrefixed(file.bytes)
        }
        return writer.bytes
    }

    package init(decoding bytes: [UInt8]) throws(SyncFormatError) {
        var reader = SyncByteReader(bytes, what: "local sync state")
        guard try reader.integer(UInt8.self) == 1 else { throw .unknownFormat("local sync state") }
        cursor = try reader.integer(UInt64.self)
        sequence = try reader.integer(UInt64.self)
        lastHash = try reader.take(32)
        let count = try reader.integer(UInt32.self)
        for _ in 0..<count {
            let path = String(decoding: try reader.lengthPrefixed(limit: 4096), as: UTF8.self)
            outbox.append(SyncOutboxFile(path: path, bytes: try reader.lengthPrefixed(limit: Int(UInt32.max))))
        }
        try reader.expectEnd()
    }
}

/// A file of this device's waiting to be published.
package struct SyncOutboxFile: Sendable, Equatable {
    package let path: String
    package let bytes: [UInt8]
}
