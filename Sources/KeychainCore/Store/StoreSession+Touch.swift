/// An update that changes no attribute (a new secret alone, the common `SecItemUpdate`), made in the
/// record's bytes: the stored record with `mdat` set, instead of decoding it into a dictionary, normalizing,
/// comparing identities and encoding it again (about 28k of the 196k instructions of such an update;
/// callgrind, keychain-bench update.durable, tracker issue 29). The bytes sealed are the same.
extension StoreSession {
    /// The record that ``apply(changes:to:itemKey:stored:secret:now:)`` would seal when an update without
    /// attribute changes reaches a row whose opened record is `record`, and that record's access entries
    /// (``AccessEntryFlags``): `record` with its `mdat` set to `now` and nothing else.
    ///
    /// `nil` whenever that cannot be shown from the bytes alone; the caller then decodes the record and takes
    /// the general path, which decides as before. That is: a legacy property list, a record that is
    /// malformed or not in canonical form (``ItemRecordLayout``), a class whose primary key has an attribute
    /// without a number (keys, certificates), a record that ``normalized(_:_:)`` would change (a primary-key
    /// attribute or `pdmn` missing, `sync` stored as an integer), no `mdat` stored as a date, or a filter of
    /// `query` that ``satisfies(_:_:)`` cannot be shown to accept (anything but a string or data value of a
    /// numbered attribute stored as string or data with the same bytes).
    ///
    /// When it answers, the general path would have: ``satisfies(_:_:)`` true (each filter's stored value
    /// is string or data with the same bytes); ``normalized(_:_:)`` leaving the attributes as they are;
    /// ``keepsRowIdentity(_:_:_:)`` true (no change but `mdat`); and ``ItemRecordFormat/encode(_:)`` of the
    /// attributes with the new `mdat` giving these bytes (``ItemRecordLayout``).
    static func touchedRecord(_ record: [UInt8], _ itemClass: ItemClass, query: ItemQuery, now: AbsoluteTime)
        -> (record: [UInt8], accessEntries: AccessEntryFlags)?
    {
        guard let primaryKey = primaryKeyNumbers(itemClass), let layout = ItemRecordLayout(record) else { return nil }
        for number in primaryKey where layout.type(number) == nil { return nil }
        guard layout.type(Self.accessibleNumber) != nil, layout.type(Self.synchronizableNumber) != .integer else {
            return nil
        }
        for (name, wanted) in query.filters {
            guard let number = ItemRecordFormat.attributeNumbers[name] else { return nil }
            switch wanted {
            case .string(let string):
                // The string's own UTF-8 bytes, without an array made of them.
                var utf8 = string
                guard utf8.withUTF8({ layout.holdsBytes(number, UnsafeRawBufferPointer($0)) }) else { return nil }
            case .data(let data): guard layout.holdsBytes(number, data) else { return nil }
            case .integer, .bool, .date: return nil
            }
        }
        guard let touched = layout.replacingDate(number: Self.modificationDateNumber, with: now) else { return nil }
        var entries = AccessEntryFlags(rawValue: 0)
        if layout.type(ItemCodec.accessControlNumber) != nil { entries.insert(.accessControl) }
        if layout.hasTrustedApplications { entries.insert(.trustedApplications) }
        return (touched, entries)
    }

    /// The record numbers of `itemClass`'s primary-key attributes, or `nil` when one has none.
    static func primaryKeyNumbers(_ itemClass: ItemClass) -> [UInt8]? {
        switch itemClass {
        case .genericPassword: genericPasswordKeyNumbers
        case .internetPassword: internetPasswordKeyNumbers
        case .key: keyKeyNumbers
        case .certificate: certificateKeyNumbers
        }
    }

    private static let genericPasswordKeyNumbers = numbers(ItemClass.genericPassword.primaryKey)
    private static let internetPasswordKeyNumbers = numbers(ItemClass.internetPassword.primaryKey)
    private static let keyKeyNumbers = numbers(ItemClass.key.primaryKey)
    private static let certificateKeyNumbers = numbers(ItemClass.certificate.primaryKey)

    private static func numbers(_ descriptors: [AttributeDescriptor]) -> [UInt8]? {
        var numbers: [UInt8] = []
        for descriptor in descriptors {
            guard let number = ItemRecordFormat.attributeNumbers[descriptor.name] else { return nil }
            numbers.append(number)
        }
        return numbers
    }

    private static let accessibleNumber = number(.accessible)
    private static let synchronizableNumber = number(.synchronizable)
    private static let modificationDateNumber = number(.modificationDate)

    private static func number(_ name: AttributeName) -> UInt8 {
        UInt8(ItemRecordFormat.attributeNames.firstIndex(of: name)!)
    }
}
