package import KeychainCore

/// Who signed a trust list, or whom a sync-key envelope is sealed to: a device, or the recovery key derived
/// from the recovery passphrase.
package enum SyncSigner: Sendable, Equatable, CustomStringConvertible {
    case device(SyncDeviceID)
    case recovery

    /// `kind (u8: 1 device, 2 recovery) ‖ id (16; zeros for recovery)`.
    package func encode(into writer: inout SyncByteWriter) {
        switch self {
        case .device(let id):
            writer.append(UInt8(1))
            writer.append(id.bytes)
        case .recovery:
            writer.append(UInt8(2))
            writer.append([UInt8](repeating: 0, count: 16))
        }
    }

    package init(from reader: inout SyncByteReader) throws(SyncFormatError) {
        let kind = try reader.integer(UInt8.self)
        let bytes = try reader.take(16)
        switch kind {
        case 1:
            guard let id = SyncDeviceID(bytes: bytes) else { throw .malformed("signer", "device id") }
            self = .device(id)
        case 2: self = .recovery
        default: throw .malformed("signer", "kind \(kind)")
        }
    }

    package var description: String {
        switch self {
        case .device(let id): "device \(id)"
        case .recovery: "the recovery key"
        }
    }
}
