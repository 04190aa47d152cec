/// The sync payload decoder on arbitrary bytes, for the `syncpayload` fuzz target only: every payload that
/// reaches ``StoreSession/applySyncChanges(_:now:)`` has been decrypted and authenticated by the protocol, so
/// only bytes fed directly reach ``SyncPayload/decode(_:)`` with arbitrary content.
package enum SyncPayloadParser {
    /// Decodes `bytes` as a payload; one that decodes must encode and decode back to the same item (a trap
    /// otherwise, which the fuzzer reports).
    /// - Returns: whether `bytes` is a well-formed payload.
    package static func parse(_ bytes: [UInt8]) -> Bool {
        guard let decoded = try? SyncPayload.decodeAny(SecureBytes(copying: bytes)) else { return false }
        switch decoded {
        case .item(let content):
            guard
                let again = try? SyncPayload.encode(
                    content.itemClass, attributes: content.attributes, secret: content.secret,
                    ancestors: content.ancestors),
                let decoded = try? SyncPayload.decode(again)
            else { preconditionFailure("a decoded sync payload does not encode again") }
            precondition(
                decoded.sameContent(as: content) && decoded.attributes == content.attributes
                    && decoded.ancestors == content.ancestors,
                "a sync payload does not round-trip")
        case .secretItem(let content):
            let again = SyncPayload.encodeSecretItem(content.item, content.secret, ancestors: content.ancestors)
            guard case .secretItem(let decoded)? = try? SyncPayload.decodeAny(again) else {
                preconditionFailure("a decoded Secret Service sync payload does not encode again")
            }
            precondition(
                decoded.sameContent(as: content) && decoded.item == content.item
                    && decoded.ancestors == content.ancestors && again.constantTimeEquals(SecureBytes(copying: bytes)),
                "a Secret Service sync payload does not round-trip")
        }
        return true
    }
}
