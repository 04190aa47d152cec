/// The sealed-attributes decoder without the AEAD around it, for the `record` fuzz target only.
///
/// Every stored record is authenticated before it is decoded, so only bytes fed directly reach
/// ``ItemCodec/decodeAttributes(_:)`` with arbitrary content: the item record decoder
/// (``ItemRecordFormat``) and, for bytes starting with `bplist00`, the legacy property-list one.
package enum ItemRecordParser {
    /// Decodes `plaintext` as a stored attributes record; a record that decodes must encode and decode
    /// back to the same attributes (a trap otherwise, which the fuzzer reports).
    /// - Returns: whether `plaintext` is a well-formed record (either format).
    package static func parse(_ plaintext: [UInt8]) -> Bool {
        checkLayout(plaintext)
        guard let attributes = ItemCodec.decodeAttributes(plaintext) else { return false }
        // A legacy list may hold what a record cannot (a NaN date: regression-nan-date-plist.bin); such a
        // row is left as it is by the conversion.
        guard let again = ItemRecordFormat.encode(attributes) else { return true }
        precondition(ItemRecordFormat.decode(again) == attributes, "an item record does not round-trip")
        return true
    }

    /// ``ItemRecordLayout`` against the decoder and encoder it stands in for (a differential check): a
    /// record it accepts must decode, encode back to its own bytes, and with `mdat` replaced give exactly
    /// what decoding, setting `mdat` and encoding again gives (``StoreSession/touchedRecord(_:_:query:now:)``
    /// seals those bytes). A trap otherwise.
    static func checkLayout(_ plaintext: [UInt8]) {
        guard let layout = ItemRecordLayout(plaintext) else { return }
        guard let decoded = ItemRecordFormat.decode(plaintext) else {
            preconditionFailure("the record layout accepts a record the decoder refuses")
        }
        precondition(ItemRecordFormat.encode(decoded) == plaintext, "the record layout accepts a non-canonical record")
        let mdat = AttributeName.modificationDate.rawValue
        let number = UInt8(ItemRecordFormat.attributeNames.firstIndex(of: AttributeName.modificationDate)!)
        let now = AbsoluteTime(secondsSinceReferenceDate: 812_345_678.25)
        let replaced = layout.replacingDate(number: number, with: now)
        guard case .date = decoded[mdat] else {
            precondition(replaced == nil, "the record layout replaces a date the record does not hold")
            return
        }
        var changed = decoded
        changed[mdat] = .date(now)
        precondition(replaced == ItemRecordFormat.encode(changed), "the record layout sets mdat to other bytes")
    }

    /// Well-formed seeds for the corpus: an empty record, one of every value type, a named attribute.
    package static func sampleRecords() -> [[UInt8]] {
        var every: [String: AttributeValue] = [:]
        for (index, name) in ItemRecordFormat.attributeNames.enumerated().dropFirst() {
            switch index % 5 {
            case 0: every[name] = .string("v\(index)")
            case 1: every[name] = .data([UInt8(index), 0, 255])
            case 2: every[name] = .integer(Int64(index) - 10)
            case 3: every[name] = .bool(index % 2 == 0)
            default: every[name] = .date(.init(secondsSinceReferenceDate: Double(index) * 1e8))
            }
        }
        let samples: [[String: AttributeValue]] = [
            [:],
            every,
            .init(named: [
                .service: .string("mail"), .account: .string("alice"), .accessGroup: .string("unsigned"),
                .accessible: .string("ak"), .synchronizable: .bool(false),
                "future": .string("a later build's attribute"),
            ]),
        ]
        return samples.compactMap(ItemRecordFormat.encode)
    }
}
