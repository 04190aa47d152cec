package import KeychainCore

/// The sync keys of every epoch this device holds ("sync.keys", a `syncSecret`): `(epoch (u32) ‖ key (32))*`.
package struct SyncKeyRing: Sendable {
    package static let name = "sync.keys"

    package private(set) var keys: [UInt32: SecureBytes] = [:]

    package init() {}

    package subscript(epoch: UInt32) -> SecureBytes? { keys[epoch] }

    package mutating func insert(_ key: SecureBytes, epoch: UInt32) { keys[epoch] = key }

    /// The ring as protected bytes.
    package var encoded: SecureBytes {
        let sorted = keys.sorted { $0.key < $1.key }
        return SecureBytes(count: sorted.count * 36) { out in
            var offset = 0
            for (epoch, key) in sorted {
                withUnsafeBytes(of: epoch.bigEndian) {
                    UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + 4)]).copyMemory(from: $0)
                }
                key.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: out[(offset + 4)..<(offset + 36)]).copyMemory(from: $0)
                }
                offset += 36
            }
        }
    }

    /// Decodes a ring.
    /// - Throws: ``SyncFormatError`` when the length is not a multiple of 36.
    package init(decoding secret: SecureBytes) throws(SyncFormatError) {
        guard secret.count % 36 == 0 else { throw .malformed("sync keys", "length \(secret.count)") }
        var keys: [UInt32: SecureBytes] = [:]
        secret.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let epoch = bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                keys[epoch] = SecureBytes(
                    copying: UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 36)]))
                offset += 36
            }
        }
        self.keys = keys
    }
}
