package import KeychainCore

/// One device in the trust list: its id, its Ed25519 key (signs its segments and heads) and its X25519 key
/// (the sync key is sealed to it), and the name the user sees in `security sync devices`.
package struct SyncTrustedDevice: Sendable, Equatable {
    package static let maximumNameBytes = 256

    package let id: SyncDeviceID
    package let signingKey: [UInt8]
    package let boxKey: [UInt8]
    package let name: String

    package init(id: SyncDeviceID, signingKey: [UInt8], boxKey: [UInt8], name: String) {
        self.id = id
        self.signingKey = signingKey
        self.boxKey = boxKey
        self.name = name
    }

    /// `id (16) ‖ signing key (32) ‖ box key (32) ‖ name length (u32) ‖ UTF-8 name`.
    package func encode(into writer: inout SyncByteWriter) {
        writer.append(id.bytes)
        writer.append(signingKey)
        writer.append(boxKey)
        writer.appendLengthPrefixed(Array(name.utf8))
    }

    package init(from reader: inout SyncByteReader) throws(SyncFormatError) {
        guard let id = SyncDeviceID(bytes: try reader.take(16)) else { throw .malformed("device", "id") }
        self.id = id
        signingKey = try reader.take(32)
        boxKey = try reader.take(32)
        let nameBytes = try reader.lengthPrefixed(limit: Self.maximumNameBytes)
        guard let name = String(validating: nameBytes, as: UTF8.self) else {
            throw .malformed("device", "name is not UTF-8")
        }
        self.name = name
    }
}
