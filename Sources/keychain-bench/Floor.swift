import CSQLite
import CSodium

/// The floor: the SQLite statements and libsodium calls a keychain of this design cannot avoid,
/// written directly against the C libraries, with none of our layers (no SecItem dictionaries,
/// no query model, no per-item key wrap, no attribute plist, no `sodium_malloc`, no transaction
/// bookkeeping).
///
/// Its table is the engine's `items` table (`Schema.create`) without the `tag` column: the same other
/// columns, constraints and indexes, so index maintenance costs the same. The row tag and its
/// accumulator are integrity checks the engine adds on top of the floor, and are counted as ours.
/// A row holds the digest columns, the sealed attributes and the sealed secret (the engine's wrapped
/// key is left empty: the floor has one key for every row). Per operation:
/// - insert: 4 keyed BLAKE2b digests (group, primary key, account, service); the attributes written
///   as one flat byte string the size of the engine's item record (service, account, group,
///   protection class, sync, two dates); two XChaCha20-Poly1305 seals (attributes, secret); one INSERT;
/// - lookup of the secret: 2 keyed BLAKE2b digests (service, account) or a persistent ref, one indexed
///   SELECT, one XChaCha20-Poly1305 open of the secret;
/// - lookup of the attributes: the same SELECT of the attributes column and one open of them (no
///   decoding: the floor takes the plaintext bytes as they are);
/// - enumeration: one indexed SELECT, one open of each row's attributes;
/// - durable update of the secret: the attributes (a new modification date) and the secret sealed
///   again, one UPDATE of both columns;
/// - durable write: `BEGIN IMMEDIATE`, one statement, `COMMIT`, in WAL with `synchronous=FULL`.
final class FloorStore {
    let path: String
    private let db: OpaquePointer
    private let indexKey: [UInt8]
    private let secretKey: [UInt8]
    private var statements: [String: OpaquePointer] = [:]

    /// The engine's `items` table and indexes without its integrity `tag` column
    /// (Tests/KeychainCoreTests/BenchSchemaTests.swift keeps the two equal).
    static let schema = """
        CREATE TABLE IF NOT EXISTS items (
            rowid INTEGER PRIMARY KEY,
            persistref BLOB NOT NULL UNIQUE,
            class INTEGER NOT NULL,
            pdmn INTEGER NOT NULL,
            sync INTEGER NOT NULL,
            agrp BLOB NOT NULL,
            pk BLOB NOT NULL UNIQUE,
            acct BLOB NOT NULL,
            name BLOB NOT NULL,
            wrapped_key BLOB NOT NULL,
            attributes BLOB NOT NULL,
            secret BLOB NOT NULL
        );
        CREATE INDEX IF NOT EXISTS items_by_name ON items (class, name, acct);
        CREATE INDEX IF NOT EXISTS items_by_account ON items (class, acct);
        """

    init(path: String) {
        _ = sodium_init()
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            fatal("floor: cannot open \(path)")
        }
        db = handle
        var key = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&key, 32)
        indexKey = key
        randombytes_buf(&key, 32)
        secretKey = key
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")
        exec(Self.schema)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            fatal("floor: \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    private func statement(_ sql: String) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var handle: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil) == SQLITE_OK,
            let handle
        else { fatal("floor: cannot prepare \(sql): \(String(cString: sqlite3_errmsg(db)))") }
        statements[sql] = handle
        return handle
    }

    // MARK: - Crypto

    /// 16-byte keyed BLAKE2b of `attribute ‖ 0 ‖ value`, as the engine's digest columns.
    func digest(_ attribute: StaticString, _ value: String) -> [UInt8] {
        var message = [UInt8](UnsafeRawBufferPointer(start: attribute.utf8Start, count: attribute.utf8CodeUnitCount))
        message.append(0)
        message += value.utf8
        return hash(message, length: 16)
    }

    private func hash(_ message: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        _ = crypto_generichash(&out, length, message, UInt64(message.count), indexKey, indexKey.count)
        return out
    }

    private func seal(_ plaintext: [UInt8], ad: [UInt8]) -> [UInt8] {
        let nonce = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        let tag = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        var box = [UInt8](repeating: 0, count: nonce + plaintext.count + tag)
        box.withUnsafeMutableBufferPointer { out in
            randombytes_buf(out.baseAddress!, nonce)
            var produced: UInt64 = 0
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                out.baseAddress! + nonce, &produced, plaintext, UInt64(plaintext.count), ad, UInt64(ad.count), nil,
                out.baseAddress!, secretKey)
        }
        return box
    }

    /// Opens the secret in column `column` of the current row into `output`; returns its length or -1.
    private func openColumn(_ statement: OpaquePointer, _ column: Int32, ad: [UInt8], into output: inout [UInt8]) -> Int
    {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard let base = sqlite3_column_blob(statement, column)?.assumingMemoryBound(to: UInt8.self) else { return -1 }
        let nonce = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        let overhead = nonce + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        guard count >= overhead else { return -1 }
        if output.count < count - overhead { output = [UInt8](repeating: 0, count: count - overhead) }
        var produced: UInt64 = 0
        let rc = output.withUnsafeMutableBufferPointer { out in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                out.baseAddress, &produced, nil, base + nonce, UInt64(count - nonce), ad, UInt64(ad.count), base,
                secretKey)
        }
        return rc == 0 ? Int(produced) : -1
    }

    // MARK: - Writes

    private func bindBlob(_ statement: OpaquePointer, _ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes {
            _ = sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), csqlite_transient())
        }
    }

    private func run(_ statement: OpaquePointer) {
        let rc = sqlite3_step(statement)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else {
            fatal("floor: step: \(String(cString: sqlite3_errmsg(db)))")
        }
        sqlite3_reset(statement)
    }

    func begin() { run(statement("BEGIN IMMEDIATE")) }
    func commit() { run(statement("COMMIT")) }

    /// Inserts one item (inside the caller's transaction); returns its persistent ref.
    @discardableResult
    func insert(service: String, account: String, secret: [UInt8]) -> [UInt8] {
        let name = digest("svce", service)
        let acct = digest("acct", account)
        let agrp = digest("agrp", "unsigned")
        var pkMessage = Array("genp".utf8)
        pkMessage += Array("acct".utf8) + Array(account.utf8) + Array("svce".utf8) + Array(service.utf8)
        let pk = hash(pkMessage, length: 32)
        var ref = Array("genp".utf8) + [UInt8](repeating: 0, count: 16)
        ref.withUnsafeMutableBufferPointer { randombytes_buf($0.baseAddress! + 4, 16) }
        let sealed = seal(secret, ad: name + acct)
        let sealedAttributes = seal(Self.attributes(service: service, account: account), ad: acct + name)
        let insert = statement(
            """
            INSERT INTO items (persistref, class, pdmn, sync, agrp, pk, acct, name, wrapped_key, attributes, secret)
            VALUES (?, 1, 1, 0, ?, ?, ?, ?, X'', ?, ?)
            """)
        bindBlob(insert, 1, ref)
        bindBlob(insert, 2, agrp)
        bindBlob(insert, 3, pk)
        bindBlob(insert, 4, acct)
        bindBlob(insert, 5, name)
        bindBlob(insert, 6, sealedAttributes)
        bindBlob(insert, 7, sealed)
        run(insert)
        return ref
    }

    /// The attributes as the floor stores them: service and account after a fixed part standing for the
    /// group, protection class, sync flag and two dates, as many bytes as the engine's item record.
    static func attributes(service: String, account: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + service.utf8.count + account.utf8.count)
        bytes += fixedAttributes
        bytes += service.utf8
        bytes += account.utf8
        return bytes
    }

    /// 2 + 15 (group "unsigned") + 3 (sync) + 9 (protection class) + 2 × 10 (dates) + 2 × 6 (entry headers).
    static let fixedAttributes = [UInt8](repeating: 0x5A, count: 61)

    /// Durable single add: one transaction.
    @discardableResult
    func durableInsert(service: String, account: String, secret: [UInt8]) -> [UInt8] {
        begin()
        let ref = insert(service: service, account: account, secret: secret)
        commit()
        return ref
    }

    /// Durable update of one item's secret by service and account.
    func durableUpdate(service: String, account: String, secret: [UInt8]) {
        let name = digest("svce", service)
        let acct = digest("acct", account)
        let sealed = seal(secret, ad: name + acct)
        let sealedAttributes = seal(Self.attributes(service: service, account: account), ad: acct + name)
        begin()
        let update = statement("UPDATE items SET attributes = ?, secret = ? WHERE class = 1 AND name = ? AND acct = ?")
        bindBlob(update, 1, sealedAttributes)
        bindBlob(update, 2, sealed)
        bindBlob(update, 3, name)
        bindBlob(update, 4, acct)
        run(update)
        commit()
    }

    /// Durable delete of one item by service and account.
    func durableDelete(service: String, account: String) {
        let name = digest("svce", service)
        let acct = digest("acct", account)
        begin()
        let delete = statement("DELETE FROM items WHERE class = 1 AND name = ? AND acct = ?")
        bindBlob(delete, 1, name)
        bindBlob(delete, 2, acct)
        run(delete)
        commit()
    }

    // MARK: - Reads

    /// Looks one item up by service and account and opens its secret into `output`; returns its length or -1.
    func lookup(service: String, account: String, into output: inout [UInt8]) -> Int {
        let name = digest("svce", service)
        let acct = digest("acct", account)
        let select = statement("SELECT secret FROM items WHERE class = 1 AND name = ? AND acct = ?")
        bindBlob(select, 1, name)
        bindBlob(select, 2, acct)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return -1 }
        return openColumn(select, 0, ad: name + acct, into: &output)
    }

    /// Looks one item up by service and account and opens its attributes into `output`; returns their
    /// length or -1.
    func lookupAttributes(service: String, account: String, into output: inout [UInt8]) -> Int {
        let name = digest("svce", service)
        let acct = digest("acct", account)
        let select = statement("SELECT attributes FROM items WHERE class = 1 AND name = ? AND acct = ?")
        bindBlob(select, 1, name)
        bindBlob(select, 2, acct)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return -1 }
        return openColumn(select, 0, ad: acct + name, into: &output)
    }

    /// Looks one item up by persistent ref and opens its secret.
    func lookup(persistentRef: [UInt8], into output: inout [UInt8]) -> Int {
        let select = statement("SELECT secret, name, acct FROM items WHERE persistref = ?")
        bindBlob(select, 1, persistentRef)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return -1 }
        var ad = [UInt8](repeating: 0, count: 32)
        if let name = sqlite3_column_blob(select, 1), let acct = sqlite3_column_blob(select, 2) {
            ad.withUnsafeMutableBytes {
                $0.baseAddress!.copyMemory(from: name, byteCount: 16)
                ($0.baseAddress! + 16).copyMemory(from: acct, byteCount: 16)
            }
        }
        return openColumn(select, 0, ad: ad, into: &output)
    }

    /// Opens the attributes (and the secret, when `withSecret`) of every item of one service; returns how
    /// many opened.
    func enumerate(service: String, withSecret: Bool = false) -> Int {
        let name = digest("svce", service)
        let select = statement(
            withSecret
                ? "SELECT attributes, acct, secret FROM items WHERE class = 1 AND name = ?"
                : "SELECT attributes, acct FROM items WHERE class = 1 AND name = ?")
        bindBlob(select, 1, name)
        defer { sqlite3_reset(select) }
        var output = [UInt8](repeating: 0, count: 128)
        var ad = [UInt8](repeating: 0, count: 16) + name
        var secretAD = name + [UInt8](repeating: 0, count: 16)
        var opened = 0
        while sqlite3_step(select) == SQLITE_ROW {
            if let acct = sqlite3_column_blob(select, 1) {
                ad.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: acct, byteCount: 16) }
                secretAD.withUnsafeMutableBytes { ($0.baseAddress! + 16).copyMemory(from: acct, byteCount: 16) }
            }
            guard openColumn(select, 0, ad: ad, into: &output) >= 0 else { continue }
            if withSecret && openColumn(select, 2, ad: secretAD, into: &output) < 0 { continue }
            opened += 1
        }
        return opened
    }
}

/// Bytes of the database file after a `wal_checkpoint(TRUNCATE)` from a separate connection.
func checkpointedSize(_ path: String) -> Int {
    var handle: OpaquePointer?
    if sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle {
        sqlite3_busy_timeout(handle, 5_000)
        _ = sqlite3_exec(handle, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
        sqlite3_close_v2(handle)
    }
    return fileSize(path) + fileSize(path + "-wal")
}

/// Argon2id with the given cost, as `setPassword` runs it; returns the elapsed nanoseconds.
func timeKDF(opsLimit: UInt64, memLimit: Int) -> UInt64 {
    _ = sodium_init()
    var out = [UInt8](repeating: 0, count: 32)
    var salt = [UInt8](repeating: 0, count: Int(crypto_pwhash_SALTBYTES))
    randombytes_buf(&salt, salt.count)
    let password = Array("correct horse battery staple".utf8).map { CChar(bitPattern: $0) }
    let start = nanoseconds()
    let rc = crypto_pwhash(
        &out, 32, password, UInt64(password.count), salt, opsLimit, memLimit, crypto_pwhash_ALG_ARGON2ID13)
    let elapsed = nanoseconds() - start
    if rc != 0 { fatal("crypto_pwhash failed (out of memory?)") }
    return elapsed
}
