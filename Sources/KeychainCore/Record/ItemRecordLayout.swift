/// Where a canonical item record (``ItemRecordFormat``, `docs/RECORD-FORMAT.md`) keeps its numbered
/// attributes, found in one pass without building the attributes: what an update that changes no
/// attribute needs to set `mdat` in the record's bytes (``StoreSession/touchedRecord(_:_:query:now:)``).
///
/// A layout is made only for a record that ``ItemRecordFormat/decode(_:)-(UnsafeRawBufferPointer)``
/// accepts (the same checks: version, lengths, attribute numbers, names, value types, UTF-8, booleans,
/// finite dates, no attribute twice, nothing after the last entry) and that is in the canonical form the
/// encoder writes (numbered entries in ascending number, then named entries in ascending byte order of
/// their names). For such a record, ``ItemRecordFormat/encode(_:)`` of its decoded attributes gives the
/// record's own bytes back, so replacing one fixed-size value (``replacingDate(number:with:)``) gives
/// exactly the bytes that decoding, changing that value and encoding again would.
struct ItemRecordLayout {
    /// The record.
    let record: [UInt8]
    /// For each attribute number 1…22 (index 0 unused), the offset of its entry's type byte, or -1.
    private let typeOffsets: [Int32]
    /// The record holds the named entry `tapp` (``AttributeName/trustedApplications``).
    let hasTrustedApplications: Bool

    /// The layout of `record`, or `nil` when the record is malformed or not in canonical form.
    init?(_ record: [UInt8]) {
        var typeOffsets = [Int32](repeating: -1, count: ItemRecordFormat.attributeNames.count)
        var hasTrustedApplications = false
        let scanned = record.withUnsafeBytes { buffer -> Bool in
            var reader = ByteReader(buffer)
            guard let version = reader.byte(), version == ItemRecordFormat.version, let count = reader.byte() else {
                return false
            }
            var lastNumber: UInt8 = 0
            var lastName: UnsafeRawBufferPointer?
            for _ in 0..<count {
                guard let number = reader.byte() else { return false }
                if number == 0 {
                    guard let length = reader.byte(), length > 0, let name = reader.bytes(Int(length)),
                        let text = ByteReader.string(name), ItemRecordFormat.attributeNumbers[text] == nil
                    else { return false }
                    // Canonical: named entries by ascending bytes, each once.
                    if let lastName, !lastName.lexicographicallyPrecedes(name) { return false }
                    lastName = name
                    if text == AttributeName.trustedApplications.rawValue { hasTrustedApplications = true }
                } else {
                    // Canonical: numbered entries first, by ascending number, each once.
                    guard Int(number) < ItemRecordFormat.attributeNames.count, number > lastNumber, lastName == nil
                    else { return false }
                    lastNumber = number
                    typeOffsets[Int(number)] = Int32(reader.offset)
                }
                guard Self.skipCheckedValue(&reader) else { return false }
            }
            return reader.isAtEnd
        }
        guard scanned else { return nil }
        self.record = record
        self.typeOffsets = typeOffsets
        self.hasTrustedApplications = hasTrustedApplications
    }

    /// The value type of attribute `number` (1…22), or `nil` when the record does not hold it.
    func type(_ number: UInt8) -> ItemRecordFormat.ValueType? {
        let offset = typeOffsets[Int(number)]
        return offset < 0 ? nil : ItemRecordFormat.ValueType(rawValue: record[Int(offset)])
    }

    /// Whether attribute `number` (1…22) holds a string or data value whose bytes are `bytes`.
    func holdsBytes(_ number: UInt8, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { holdsBytes(number, $0) }
    }

    /// Whether attribute `number` (1…22) holds a string or data value whose bytes are `bytes`, compared
    /// where the record keeps them (`elementsEqual` of two slices walked them through generic iterators,
    /// about 450 instructions for a short value; issue 29).
    func holdsBytes(_ number: UInt8, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let offset = Int(typeOffsets[Int(number)])
        guard offset >= 0,
            record[offset] == ItemRecordFormat.ValueType.string.rawValue
                || record[offset] == ItemRecordFormat.ValueType.data.rawValue
        else { return false }
        // The layout checked that the value's length field and bytes are inside the record.
        return record.withUnsafeBytes { stored in
            var length = 0
            for index in (offset + 1)..<(offset + 5) { length = length << 8 | Int(stored[index]) }
            guard length == bytes.count else { return false }
            for index in 0..<length where stored[offset + 5 + index] != bytes[index] { return false }
            return true
        }
    }

    /// The record with the date of attribute `number` replaced by `date`, or `nil` when the record does
    /// not hold a date there or `date` is not finite (which the encoder refuses).
    func replacingDate(number: UInt8, with date: AbsoluteTime) -> [UInt8]? {
        guard type(number) == .date, date.secondsSinceReferenceDate.isFinite else { return nil }
        var replaced = record
        var bits = date.secondsSinceReferenceDate.bitPattern
        var index = Int(typeOffsets[Int(number)]) + 8
        for _ in 0..<8 {
            replaced[index] = UInt8(truncatingIfNeeded: bits)
            bits >>= 8
            index -= 1
        }
        return replaced
    }

    /// Moves past one value, checking it as ``ByteReader/value()`` does (UTF-8 strings, booleans 0 or 1,
    /// finite dates) without making it.
    private static func skipCheckedValue(_ reader: inout ByteReader) -> Bool {
        guard let raw = reader.byte(), let type = ItemRecordFormat.ValueType(rawValue: raw) else { return false }
        switch type {
        case .string:
            guard let length = reader.bigEndian(UInt32.self), let bytes = reader.bytes(Int(length)) else {
                return false
            }
            return isUTF8(bytes)
        case .data:
            guard let length = reader.bigEndian(UInt32.self) else { return false }
            return reader.bytes(Int(length)) != nil
        case .integer: return reader.bytes(8) != nil
        case .bool:
            guard let flag = reader.byte() else { return false }
            return flag <= 1
        case .date:
            guard let bits = reader.bigEndian(UInt64.self) else { return false }
            return Double(bitPattern: bits).isFinite
        }
    }

    /// Whether `bytes` are UTF-8, as ``ByteReader/string(_:)`` decides it: ASCII by a byte scan, anything
    /// else by the standard library's validation.
    private static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte >= 0x80 { return String(validating: bytes, as: UTF8.self) != nil }
        return true
    }
}
