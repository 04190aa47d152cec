/// The item record: the project's own encoding of an item's attributes, sealed in the `attributes`
/// column and carried in backups (specified byte by byte in `docs/RECORD-FORMAT.md`).
///
/// ```
/// record = version (u8 = 1) ‖ count (u8) ‖ entry × count
/// entry  = attribute (u8) [‖ name length (u8) ‖ name, when attribute = 0] ‖ type (u8) ‖ value
/// value  = string/data: length (u32 BE) ‖ bytes;  integer: i64 BE;  bool: u8 (0/1);
///          date: IEEE 754 binary64 bit pattern, BE (seconds since 2001-01-01 00:00:00 UTC)
/// ```
///
/// Attributes with a number in ``attributeNames`` (every attribute of both password classes) take one
/// byte; any other name (an attribute a later build adds) is written out after attribute number 0.
/// The decoder reads straight from the plaintext buffer, checks every length against what remains,
/// and refuses unknown versions, types and numbers, invalid UTF-8, booleans other than 0/1, a
/// repeated attribute and trailing bytes: hostile or damaged input gives `nil`, never a trap.
///
/// It replaces the binary property list written by Foundation's `PropertyListEncoder`, whose decoder
/// cost about 360k instructions per item (tracker issue 15). Records written before then start with
/// `bplist00`; ``ItemCodec/decodeAttributes(_:)`` still reads them, and opening a keychain converts
/// them (``Keystore/migrateLegacyRecords()``).
package enum ItemRecordFormat {
    /// The version byte this build writes (the only one it reads besides legacy property lists).
    static let version: UInt8 = 1

    /// The most entries a record holds (its count byte).
    static let maximumEntries = 255

    /// Value types, as stored in an entry's type byte.
    enum ValueType: UInt8 {
        case string = 1
        case data = 2
        case integer = 3
        case bool = 4
        case date = 5
    }

    /// The attribute numbers: index `n` (1…22) names attribute number `n`; 0 means "named in the entry".
    /// Both classes' attributes, in Apple's schema order (`AttributeDescriptor.common`, then generic
    /// password's, then internet password's), then `accc` (access control, added after the others).
    /// Numbers are permanent: a new attribute is appended.
    package static let attributeNames: [AttributeName] = [
        "", .accessGroup, .synchronizable, .accessible, .creationDate, .modificationDate, .description, .comment,
        .creator, .type, .label, .isInvisible, .isNegative, .account, .service, .generic, .securityDomain, .server,
        .protocol, .authenticationType, .port, .path, .accessControl,
    ]

    /// The number of each attribute name of ``attributeNames``, by raw name (what records are keyed by).
    static let attributeNumbers: [String: UInt8] = Dictionary(
        uniqueKeysWithValues: attributeNames.enumerated().dropFirst().map { ($0.element.rawValue, UInt8($0.offset)) })

    // MARK: - Encoding

    /// The record of `attributes`, or `nil` when it cannot be encoded (more than 255 attributes, a name
    /// without a number that is empty or longer than 255 bytes, a string or data value of 4 GiB or more, or a date that
    /// is not finite: the encoder refuses what the decoder would).
    package static func encode(_ attributes: [String: AttributeValue]) -> [UInt8]? {
        guard attributes.count <= maximumEntries else { return nil }
        // Entries in ascending attribute number, named ones (number 0) last, by name: one canonical form.
        var numbered: [(number: UInt8, value: AttributeValue)] = []
        numbered.reserveCapacity(attributes.count)
        var named: [(name: String, value: AttributeValue)] = []
        var size = 2
        for (name, value) in attributes {
            if let number = attributeNumbers[name] {
                numbered.append((number, value))
                size += 2
            } else {
                guard !name.isEmpty, name.utf8.count <= 255 else { return nil }
                named.append((name, value))
                size += 3 + name.utf8.count
            }
            switch value {
            case .string(let string):
                guard string.utf8.count <= Int(UInt32.max) else { return nil }
                size += 4 + string.utf8.count
            case .data(let data):
                guard data.count <= Int(UInt32.max) else { return nil }
                size += 4 + data.count
            case .date(let date):
                guard date.secondsSinceReferenceDate.isFinite else { return nil }
                size += 8
            case .integer: size += 8
            case .bool: size += 1
            }
        }
        numbered.sort { $0.number < $1.number }
        named.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        bytes.append(version)
        bytes.append(UInt8(attributes.count))
        for entry in numbered {
            bytes.append(entry.number)
            append(entry.value, to: &bytes)
        }
        for entry in named {
            bytes.append(0)
            bytes.append(UInt8(entry.name.utf8.count))
            bytes.append(contentsOf: entry.name.utf8)
            append(entry.value, to: &bytes)
        }
        return bytes
    }

    private static func append(_ value: AttributeValue, to bytes: inout [UInt8]) {
        switch value {
        case .string(let string):
            bytes.append(ValueType.string.rawValue)
            appendBigEndian(UInt32(string.utf8.count), to: &bytes)
            bytes.append(contentsOf: string.utf8)
        case .data(let data):
            bytes.append(ValueType.data.rawValue)
            appendBigEndian(UInt32(data.count), to: &bytes)
            bytes.append(contentsOf: data)
        case .integer(let integer):
            bytes.append(ValueType.integer.rawValue)
            appendBigEndian(UInt64(bitPattern: integer), to: &bytes)
        case .bool(let flag):
            bytes.append(ValueType.bool.rawValue)
            bytes.append(flag ? 1 : 0)
        case .date(let date):
            bytes.append(ValueType.date.rawValue)
            appendBigEndian(date.secondsSinceReferenceDate.bitPattern, to: &bytes)
        }
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    // MARK: - Decoding

    /// Whether `bytes` starts with this format's version byte (rather than a legacy property list).
    static func isRecord(_ bytes: [UInt8]) -> Bool { bytes.first == version }

    /// The attributes of a record, or `nil` when `bytes` is not a well-formed record of ``version``.
    package static func decode(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// The attributes of a record read in place from `buffer`, or `nil` when it is not well-formed.
    static func decode(_ buffer: UnsafeRawBufferPointer) -> [String: AttributeValue]? {
        var reader = ByteReader(buffer)
        guard let version = reader.byte(), version == Self.version, let count = reader.byte() else { return nil }
        var attributes: [String: AttributeValue] = [:]
        attributes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let number = reader.byte() else { return nil }
            let name: String
            if number == 0 {
                guard let length = reader.byte(), let bytes = reader.bytes(Int(length)), length > 0,
                    let text = ByteReader.string(bytes), attributeNumbers[text] == nil
                else { return nil }
                name = text
            } else {
                guard Int(number) < attributeNames.count else { return nil }
                name = attributeNames[Int(number)].rawValue
            }
            guard let value = reader.value(), attributes.updateValue(value, forKey: name) == nil else { return nil }
        }
        guard reader.isAtEnd else { return nil }
        return attributes
    }

    /// The value of one numbered attribute of a record, read in place without building the others.
    ///
    /// Every entry's framing is checked as ``decode(_:)-(UnsafeRawBufferPointer)`` checks it (version,
    /// numbers, types, every length, no trailing bytes); only the wanted entry's value is decoded
    /// (strings of the others are not validated as UTF-8).
    /// - Returns: ``AttributeLookup/present(_:)`` with the value, ``AttributeLookup/absent`` when the record has
    ///   no such attribute, ``AttributeLookup/malformed`` when it is not well-formed.
    /// One value of an item record as ``forEachEntry(in:_:)`` reads it: a string made (and checked to be
    /// UTF-8) once, data in place in the record (valid only during the visit), a date as its seconds since
    /// 2001-01-01 (finite).
    package enum EntryValue {
        case string(String)
        case data(UnsafeRawBufferPointer)
        case integer(Int64)
        case bool(Bool)
        case date(Double)
    }

    /// Visits every entry of a record in its stored order, with the checks of `decode`
    /// (version, count, attribute numbers, names, value types, UTF-8, finite dates, no attribute twice,
    /// nothing after the last entry): for a caller that makes its own objects from the record instead of
    /// a Swift dictionary first (SecItem's result dictionaries, issue 29).
    /// - Parameter body: the entry's attribute number (0 for a named one: ``attributeNames`` names the
    ///   others), its name, and its value.
    /// - Returns: `false` when the record is malformed; `body` may have seen some entries by then.
    package static func forEachEntry(in bytes: [UInt8], _ body: (UInt8, String, EntryValue) -> Void) -> Bool {
        bytes.withUnsafeBytes { buffer -> Bool in
            var reader = ByteReader(buffer)
            guard let version = reader.byte(), version == Self.version, let count = reader.byte() else { return false }
            var seenNumbers: UInt64 = 0
            var seenNames: Set<String> = []
            for _ in 0..<count {
                guard let number = reader.byte() else { return false }
                let name: String
                if number == 0 {
                    guard let length = reader.byte(), let bytes = reader.bytes(Int(length)), length > 0,
                        let text = ByteReader.string(bytes), attributeNumbers[text] == nil,
                        seenNames.insert(text).inserted
                    else { return false }
                    name = text
                } else {
                    guard Int(number) < attributeNames.count, seenNumbers & (1 << number) == 0 else { return false }
                    seenNumbers |= 1 << number
                    name = attributeNames[Int(number)].rawValue
                }
                guard let raw = reader.byte(), let type = ValueType(rawValue: raw) else { return false }
                let value: EntryValue
                switch type {
                case .string:
                    guard let length = reader.bigEndian(UInt32.self), let bytes = reader.bytes(Int(length)),
                        let string = ByteReader.string(bytes)
                    else { return false }
                    value = .string(string)
                case .data:
                    guard let length = reader.bigEndian(UInt32.self), let bytes = reader.bytes(Int(length)) else {
                        return false
                    }
                    value = .data(bytes)
                case .integer:
                    guard let bits = reader.bigEndian(UInt64.self) else { return false }
                    value = .integer(Int64(bitPattern: bits))
                case .bool:
                    guard let flag = reader.byte(), flag <= 1 else { return false }
                    value = .bool(flag == 1)
                case .date:
                    guard let bits = reader.bigEndian(UInt64.self), Double(bitPattern: bits).isFinite else {
                        return false
                    }
                    value = .date(Double(bitPattern: bits))
                }
                body(number, name, value)
            }
            return reader.isAtEnd
        }
    }

    /// `pdmn`, `accc` and `tapp` of a record, as `decode` would give them, without decoding the rest, in
    /// one pass: what ``ItemProjection/record`` leaves in ``StoredItem/attributes``. `nil` when the record
    /// is malformed in its structure or in those values (the others are checked by whoever reads them).
    static func releaseEntries(in bytes: [UInt8]) -> [String: AttributeValue]? {
        bytes.withUnsafeBytes { buffer -> [String: AttributeValue]? in
            var reader = ByteReader(buffer)
            guard let version = reader.byte(), version == Self.version, let count = reader.byte() else { return nil }
            var entries: [String: AttributeValue] = [:]
            for _ in 0..<count {
                guard let number = reader.byte() else { return nil }
                let wanted: AttributeName?
                if number == 0 {
                    guard let length = reader.byte(), length > 0, let name = reader.bytes(Int(length)) else {
                        return nil
                    }
                    wanted = name.elementsEqual(trustedApplicationsName) ? .trustedApplications : nil
                } else {
                    guard Int(number) < attributeNames.count else { return nil }
                    wanted =
                        number == accessibleNumber
                        ? .accessible : number == ItemCodec.accessControlNumber ? .accessControl : nil
                }
                if let wanted {
                    guard let value = reader.value(), entries.updateValue(value, forKey: wanted.rawValue) == nil else {
                        return nil
                    }
                } else {
                    guard reader.skipValue() else { return nil }
                }
            }
            return reader.isAtEnd ? entries : nil
        }
    }

    private static let accessibleNumber = UInt8(attributeNames.firstIndex(of: .accessible)!)
    private static let trustedApplicationsName = Array(AttributeName.trustedApplications.rawValue.utf8)

    static func value(number wanted: UInt8, in bytes: [UInt8]) -> AttributeLookup {
        values(number: wanted, name: nil, in: bytes).number
    }

    /// The values of one numbered and one named attribute of a record, read in place in one pass, as
    /// ``value(number:in:)`` reads one (the access control and the trusted-application list of a
    /// releasing search).
    /// - Returns: each as ``value(number:in:)`` returns it; both ``AttributeLookup/malformed`` when the
    ///   record is not well-formed.
    static func values(number wanted: UInt8, name wantedName: String?, in bytes: [UInt8])
        -> (number: AttributeLookup, named: AttributeLookup)
    {
        let wantedNameBytes = wantedName.map { Array($0.utf8) }
        return bytes.withUnsafeBytes { buffer -> (number: AttributeLookup, named: AttributeLookup) in
            let malformed = (number: AttributeLookup.malformed, named: AttributeLookup.malformed)
            var reader = ByteReader(buffer)
            guard let version = reader.byte(), version == Self.version, let count = reader.byte() else {
                return malformed
            }
            var found: AttributeValue?
            var foundNamed: AttributeValue?
            for _ in 0..<count {
                guard let number = reader.byte() else { return malformed }
                var isWantedName = false
                if number == 0 {
                    guard let length = reader.byte(), length > 0, let name = reader.bytes(Int(length)) else {
                        return malformed
                    }
                    if let wantedNameBytes, name.elementsEqual(wantedNameBytes) { isWantedName = true }
                } else if Int(number) >= attributeNames.count {
                    return malformed
                }
                if number == wanted {
                    guard found == nil, let value = reader.value() else { return malformed }
                    found = value
                } else if isWantedName {
                    guard foundNamed == nil, let value = reader.value() else { return malformed }
                    foundNamed = value
                } else {
                    guard reader.skipValue() else { return malformed }
                }
            }
            guard reader.isAtEnd else { return malformed }
            return (AttributeLookup(found), AttributeLookup(foundNamed))
        }
    }
}

/// Reading the values of an item record (``ItemRecordFormat``).
extension ByteReader {
    /// Moves past one value (type and payload), checking its framing; `false` when it is malformed.
    mutating func skipValue() -> Bool {
        guard let raw = byte(), let type = ItemRecordFormat.ValueType(rawValue: raw) else { return false }
        switch type {
        case .string, .data:
            guard let length = bigEndian(UInt32.self) else { return false }
            return bytes(Int(length)) != nil
        case .integer, .date: return bytes(8) != nil
        case .bool:
            guard let flag = byte() else { return false }
            return flag <= 1
        }
    }

    mutating func value() -> AttributeValue? {
        guard let raw = byte(), let type = ItemRecordFormat.ValueType(rawValue: raw) else { return nil }
        switch type {
        case .string:
            guard let length = bigEndian(UInt32.self), let bytes = bytes(Int(length)),
                let string = Self.string(bytes)
            else { return nil }
            return .string(string)
        case .data:
            guard let length = bigEndian(UInt32.self), let bytes = bytes(Int(length)) else { return nil }
            return .data(Array(bytes))
        case .integer:
            return bigEndian(UInt64.self).map { .integer(Int64(bitPattern: $0)) }
        case .bool:
            guard let flag = byte(), flag <= 1 else { return nil }
            return .bool(flag == 1)
        case .date:
            guard let bits = bigEndian(UInt64.self) else { return nil }
            let seconds = Double(bitPattern: bits)
            guard seconds.isFinite else { return nil }
            return .date(AbsoluteTime(secondsSinceReferenceDate: seconds))
        }
    }
}
