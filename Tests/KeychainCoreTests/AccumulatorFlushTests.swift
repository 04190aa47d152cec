import KeychainTesting
import Testing

@testable import KeychainCore

/// The integrity accumulator written by one `UPDATE … SET value = swkc_xor(value, ?)` (tracker issue 29):
/// the same stored value as reading, XORing and writing it, and the same answers when the stored value is
/// not what the function accepts.
@Suite("Accumulator flush in place")
struct AccumulatorFlushTests {
    /// A bare database with the keychain's tables, in a temporary folder.
    static func database(_ folder: TemporaryKeychain) throws -> Database {
        let database = try Database(path: folder.directory + "/meta.db", mode: .readWriteCreate)
        try database.execute(Schema.create)
        return database
    }

    static let delta: [UInt8] = (0..<32).map { UInt8($0) }

    /// Flushes `delta` for the `items` accumulator, inside a transaction that commits when it succeeds.
    static func flush(_ delta: [UInt8], into database: Database) throws {
        try database.execute("BEGIN IMMEDIATE")
        let pending = PendingAccumulator(.secItem)
        pending.xor(delta)
        do {
            try pending.flush(database)
            try database.execute("COMMIT")
        } catch {
            try database.execute("ROLLBACK")
            throw error
        }
    }

    static let name = RowKind.secItem.accumulatorMeta

    @Test("swkc_xor XORs two blobs of one length and refuses anything else")
    func function() throws {
        let folder = try TemporaryKeychain()
        let database = try Self.database(folder)
        let statement = try database.prepare("SELECT swkc_xor(?, ?)")
        try statement.bind([.blob([0x0F, 0xF0, 0xAA]), .blob([0xFF, 0xFF, 0x0A])])
        #expect(try statement.step())
        #expect(statement.blob(0) == [0xF0, 0x0F, 0xA0])
        statement.finish()
        let refused: [[SQLValue]] = [
            [.blob([1, 2]), .blob([1])], [.text("ab"), .blob([1, 2])], [.blob([1]), .null], [.integer(1), .integer(2)],
        ]
        for arguments in refused {
            try statement.bind(arguments)
            #expect(throws: KeychainFailure.self) { _ = try statement.step() }
            #expect(database.changes() == 0)
            statement.finish()
        }
    }

    @Test("a missing accumulator is stored as the delta; a stored one is XORed with it")
    func missingThenStored() throws {
        let folder = try TemporaryKeychain()
        let database = try Self.database(folder)
        try Self.flush(Self.delta, into: database)
        #expect(try Meta.blob(database, Self.name) == Self.delta)
        let second = [UInt8](repeating: 0xFF, count: 32)
        try Self.flush(second, into: database)
        #expect(try Meta.blob(database, Self.name) == Self.delta.map { $0 ^ 0xFF })
        try Self.flush(second, into: database)
        #expect(try Meta.blob(database, Self.name) == Self.delta)
    }

    @Test("a stored accumulator of another length is refused as before, and left as it was")
    func wrongLength() throws {
        let folder = try TemporaryKeychain()
        let database = try Self.database(folder)
        try Meta.set(database, Self.name, [UInt8](repeating: 1, count: 31))
        let failure = try #require(throws: KeychainFailure.self) { try Self.flush(Self.delta, into: database) }
        #expect(failure.status == .invalidKeychain)
        #expect(failure.detail == "bad \(Self.name)")
        #expect(try Meta.blob(database, Self.name) == [UInt8](repeating: 1, count: 31))
    }

    @Test("a stored accumulator held as text of 32 bytes is XORed as its bytes, as before")
    func storedAsText() throws {
        let folder = try TemporaryKeychain()
        let database = try Self.database(folder)
        let text = String(repeating: "a", count: 32)
        try database.prepare("INSERT INTO meta (name, value) VALUES (?, ?)").run([.text(Self.name), .text(text)])
        try Self.flush(Self.delta, into: database)
        #expect(try Meta.blob(database, Self.name) == Self.delta.map { $0 ^ UInt8(ascii: "a") })
    }
}
