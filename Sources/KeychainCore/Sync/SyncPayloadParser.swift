/// The sync payload decoder on arbitrary bytes, for the `syncpayload` fuzz target only: every payload that
/// reaches ``StoreSession/applySyncChanges(_:now:)`` has been decrypted and authenticated by the protocol, so
/// only bytes fed directly reach ``SyncPayload/decode(_:)`` with arbitrary content.
package enum SyncPayloadParser {
    /// Decodes `bytes` as a payload; one that decodes must encode and decode back to the same item (a trap
    /// otherwise, which the fuzzer reports).
    /// - Returns: whether `bytes` is a well-formed payload.
    package static func parse(_ bytes: [UInt8]) -> Bool {
        guard let content = try? SyncPayload.decode(SecureBytes(copying: bytes)) else { return false }
        guard
            let again = try? SyncPayload.encode(
                content.itemClass, attributes: content.attributes, secret: content.secret, ancestors: content.ancestors),
            let decoded = try? SyncPayload.decode(again)
        else { preconditionFailure("a decoded sync payload does not encode again") }
        precondition(
            decoded.sameContent(as: content) && decoded.attributes == content.attributes
                && decoded.ancestors == content.ancestors,
            "a sync payload does not round-trip")
        return true
    }
}
