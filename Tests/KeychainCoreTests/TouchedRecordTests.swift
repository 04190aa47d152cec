import Testing

@testable import KeychainCore

/// An update without attribute changes sets `mdat` in the stored record's bytes
/// (``StoreSession/touchedRecord(_:_:query:now:)``, ``ItemRecordLayout``; tracker issue 29): it must seal
/// exactly what the general path (decode, ``StoreSession/satisfies(_:_:)``, normalize, set `mdat`, keep the
/// identity, encode) seals, and leave every record it cannot vouch for to that path.
@Suite("Update without attribute changes, in the record's bytes")
struct TouchedRecordTests {
    static let now = AbsoluteTime(secondsSinceReferenceDate: 786_000_000.25)
    static let earlier = AbsoluteTime(secondsSinceReferenceDate: 700_000_000.5)

    /// What the general path of ``StoreSession/update(_:changes:secret:now:)`` seals for `record` with no
    /// changes, and its access entries; `nil` when it skips the row or would rewrite it under a new key.
    static func general(_ record: [UInt8], _ itemClass: ItemClass, _ query: ItemQuery)
        -> (record: [UInt8], accessEntries: AccessEntryFlags)?
    {
        guard let stored = ItemCodec.decodeAttributes(record), StoreSession.satisfies(stored, query) else {
            return nil
        }
        var attributes = StoreSession.normalized(itemClass, stored)
        attributes[.modificationDate] = .date(now)
        guard StoreSession.keepsRowIdentity(itemClass, stored, attributes),
            let encoded = ItemRecordFormat.encode(attributes)
        else { return nil }
        return (encoded, AccessEntryFlags(attributes))
    }

    static func touched(_ record: [UInt8], _ query: ItemQuery, _ itemClass: ItemClass = .genericPassword)
        -> (record: [UInt8], accessEntries: AccessEntryFlags)?
    {
        StoreSession.touchedRecord(record, itemClass, query: query, now: now)
    }

    /// A generic password as the engine stores it (normalized, with both dates).
    static func stored(_ extra: [String: AttributeValue] = [:]) -> [String: AttributeValue] {
        var attributes = StoreSession.normalized(.genericPassword, genericItem("svc", "me", .whenUnlocked))
        attributes[.creationDate] = .date(earlier)
        attributes[.modificationDate] = .date(earlier)
        for (name, value) in extra { attributes[name] = value }
        return attributes
    }

    // Hand-made entries, for records the encoder would not write.
    static func string(_ number: UInt8, _ text: String) -> [UInt8] { [number] + value(1, Array(text.utf8)) }
    static func date(_ number: UInt8, _ seconds: Double) -> [UInt8] { [number, 5] + bigEndian(seconds.bitPattern) }
    static func integer(_ number: UInt8, _ value: Int64) -> [UInt8] {
        [number, 3] + bigEndian(UInt64(bitPattern: value))
    }
    static func bool(_ number: UInt8, _ flag: Bool) -> [UInt8] { [number, 4, flag ? 1 : 0] }
    static func named(_ name: String, _ text: String) -> [UInt8] {
        [0, UInt8(name.utf8.count)] + Array(name.utf8) + value(1, Array(text.utf8))
    }
    static func value(_ type: UInt8, _ bytes: [UInt8]) -> [UInt8] { [type] + bigEndian(UInt32(bytes.count)) + bytes }
    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }
    static func record(_ entries: [[UInt8]]) -> [UInt8] { [1, UInt8(entries.count)] + entries.flatMap { $0 } }

    /// agrp 1, sync 2, pdmn 3, cdat 4, mdat 5, acct 13, svce 14: a stored generic password, by hand.
    static let canonicalEntries: [[UInt8]] = [
        string(1, "test"), bool(2, false), string(3, "ak"), date(4, earlier.secondsSinceReferenceDate),
        date(5, earlier.secondsSinceReferenceDate), string(13, "me"), string(14, "svc"),
    ]

    @Test("a stored generic password gets exactly the general path's bytes, with only mdat changed")
    func storedGenericPassword() throws {
        let record = try #require(ItemRecordFormat.encode(Self.stored(["labl": .string("label"), "gena": .data([7])])))
        let fast = try #require(Self.touched(record, query("svc", "me")))
        let general = try #require(Self.general(record, .genericPassword, query("svc", "me")))
        #expect(fast.record == general.record)
        #expect(fast.accessEntries == general.accessEntries)
        #expect(fast.accessEntries == [])
        #expect(
            ItemRecordFormat.decode(fast.record)
                == Self.stored(["labl": .string("label"), "gena": .data([7]), "mdat": .date(Self.now)]))
        // The hand-made record is the encoder's too.
        #expect(Self.record(Self.canonicalEntries) == (try #require(ItemRecordFormat.encode(Self.stored()))))
    }

    @Test("an internet password, a filter given as data, and a record with no filter, agree with the general path")
    func otherShapes() throws {
        var inet = StoreSession.normalized(
            .internetPassword,
            ["srvr": .string("example.com"), "acct": .data([0xFF, 0]), "pdmn": .string("ck"), "agrp": .string("g")])
        inet[.creationDate] = .date(Self.earlier)
        inet[.modificationDate] = .date(Self.earlier)
        let inetRecord = try #require(ItemRecordFormat.encode(inet))
        let inetQuery = ItemQuery(
            itemClass: .internetPassword,
            filters: ["srvr": .data(Array("example.com".utf8)), "acct": .data([0xFF, 0])],
            scope: .all)
        let fast = try #require(Self.touched(inetRecord, inetQuery, .internetPassword))
        #expect(fast.record == Self.general(inetRecord, .internetPassword, inetQuery)?.record)

        let record = try #require(ItemRecordFormat.encode(Self.stored()))
        let all = ItemQuery(itemClass: .genericPassword, scope: .all)
        #expect(try #require(Self.touched(record, all)).record == Self.general(record, .genericPassword, all)?.record)
    }

    @Test("the access entries are the record's: accc, tapp, both")
    func accessEntries() throws {
        let cases: [([String: AttributeValue], AccessEntryFlags)] = [
            (["accc": .data([1, 2, 3])], [.accessControl]),
            (["tapp": .data([])], [.trustedApplications]),
            (
                ["accc": .data([1]), "tapp": .data([9]), "zzzz": .string("later")],
                [.accessControl, .trustedApplications]
            ),
        ]
        for (extra, expected) in cases {
            let record = try #require(ItemRecordFormat.encode(Self.stored(extra)))
            let fast = try #require(Self.touched(record, query("svc", "me")))
            #expect(fast.accessEntries == expected)
            #expect(fast.record == Self.general(record, .genericPassword, query("svc", "me"))?.record)
        }
    }

    /// Records the general path would treat otherwise, or refuse, each with what is wrong with it.
    static let refusedCases: [(String, [UInt8])] = [
        // Not in canonical form: two numbered entries swapped; a named entry before a numbered one; named
        // entries out of order.
        (
            "numbers out of order",
            record([string(1, "test"), string(3, "ak"), bool(2, false)] + canonicalEntries.dropFirst(3))
        ),
        ("named first", record([named("tapp", "")] + canonicalEntries)),
        ("names out of order", record(canonicalEntries + [named("zz", ""), named("tapp", "")])),
        // What normalization would change.
        ("no pdmn", record(canonicalEntries.filter { $0[0] != 3 })),
        ("sync as an integer", record([string(1, "test"), integer(2, 0)] + canonicalEntries.dropFirst(2))),
        ("no sync", record(canonicalEntries.filter { $0[0] != 2 })),
        ("no agrp", record(canonicalEntries.filter { $0[0] != 1 })),
        // mdat missing, or not a date.
        ("no mdat", record(canonicalEntries.filter { $0[0] != 5 })),
        ("mdat as an integer", record(canonicalEntries.map { $0[0] == 5 ? integer(5, 1) : $0 })),
        // Malformed: the general path refuses them.
        ("an invalid UTF-8 string", record(canonicalEntries.map { $0[0] == 14 ? [14, 1, 0, 0, 0, 1, 0xFF] : $0 })),
        ("a byte after the last entry", record(canonicalEntries) + [0]),
        ("an attribute twice", record(canonicalEntries + [string(14, "svc")])),
        ("a named entry with a numbered name", record(canonicalEntries + [named("svce", "svc")])),
        ("a boolean of 2", record([string(1, "test"), [2, 4, 2]] + canonicalEntries.dropFirst(2))),
        ("a legacy property list", Array("bplist00".utf8) + [0, 0]),
    ]

    @Test("records it cannot vouch for are left to the general path", arguments: TouchedRecordTests.refusedCases)
    func refused(_ label: String, _ record: [UInt8]) {
        #expect(Self.touched(record, query("svc", "me")) == nil, "\(label)")
    }

    @Test("a filter it cannot decide, or that does not match, is left to the general path")
    func filters() throws {
        let record = try #require(ItemRecordFormat.encode(Self.stored(["port": .integer(443)])))
        let queries = [
            query("svc", "you"), query("other", "me"),
            ItemQuery(itemClass: .genericPassword, filters: ["crtr": .integer(1)], scope: .all),
            ItemQuery(itemClass: .genericPassword, filters: ["labl": .string("absent")], scope: .all),
            ItemQuery(itemClass: .genericPassword, filters: ["tomb": .string("named")], scope: .all),
            ItemQuery(itemClass: .genericPassword, filters: ["acct": .bool(true)], scope: .all),
        ]
        for query in queries { #expect(Self.touched(record, query) == nil, "\(query.filters)") }
    }

    @Test("keys and certificates, whose primary keys are named entries, take the general path")
    func otherClasses() throws {
        let record = try #require(ItemRecordFormat.encode(Self.stored()))
        #expect(StoreSession.primaryKeyNumbers(.key) == nil)
        #expect(StoreSession.primaryKeyNumbers(.certificate) == nil)
        #expect(Self.touched(record, ItemQuery(itemClass: .key, scope: .all), .key) == nil)
        #expect(Self.touched(record, ItemQuery(itemClass: .certificate, scope: .all), .certificate) == nil)
    }

    @Test("a date that is not finite is refused, as the encoder refuses it")
    func nonFiniteDate() throws {
        let record = try #require(ItemRecordFormat.encode(Self.stored()))
        let nan = AbsoluteTime(secondsSinceReferenceDate: .nan)
        #expect(StoreSession.touchedRecord(record, .genericPassword, query: query("svc", "me"), now: nan) == nil)
    }
}
