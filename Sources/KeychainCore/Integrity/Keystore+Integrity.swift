extension Keystore {
    /// Checks the whole keychain: SQLite's `quick_check`, each row's keyed tag against its content,
    /// and the XOR of all tags against the stored accumulator. Detects an edited row, a row replayed
    /// from an older copy of the file, and a row removed or inserted behind the engine's back
    /// (a rollback of the whole file to an older copy is not detectable from the file alone).
    /// Secret Service items (`ss_items`) are checked the same way against their own accumulator.
    /// - Returns: the number of items checked, Secret Service items included.
    /// - Throws: `.decode` naming what does not match; `.invalidKeychain` when SQLite reports corruption.
    package func verifyIntegrity() throws(KeychainFailure) -> Int {
        try read { (s: borrowing StoreSession) throws(KeychainFailure) -> Int in
            var accumulator = [UInt8](repeating: 0, count: 32)
            var count = 0
            var modified: Int?
            do throws(SQLiteError) {
                let check = try s.database.prepare("PRAGMA quick_check")
                try check.bind([])
                let verdict = try check.step() ? check.text(0) : "no answer"
                check.finish()
                guard verdict == "ok" else { throw SQLiteError(code: 11, message: verdict) }
                let rows = try s.database.prepare(
                    "SELECT persistref, class, pdmn, sync, agrp, pk, acct, name, wrapped_key, attributes, secret, tag FROM items")
                try rows.bind([])
                defer { rows.finish() }
                while try rows.step() {
                    let columns: [SQLValue] = [
                        .blob(rows.blob(0)), .integer(rows.int64(1)), .integer(rows.int64(2)), .integer(rows.int64(3)),
                    ] + (4...10).map { .blob(rows.blob(Int32($0))) }
                    let tag = s.codec.rowTag(columns)
                    guard tag == rows.blob(11) else {
                        modified = count + 1
                        break
                    }
                    for index in accumulator.indices { accumulator[index] ^= tag[index] }
                    count += 1
                }
            } catch {
                throw StoreSession.failure(error)
            }
            if let modified { throw KeychainFailure(.decode, "item \(modified) was modified outside the keychain") }
            guard accumulator == (try Meta.blob(s.database, "accumulator")) else {
                throw KeychainFailure(
                    .decode, "the keychain's items do not match its integrity record: a row was replayed, removed or added")
            }
            // Secret Service rows have their own accumulator (SecretItemSchema): checked here too.
            return count + (try s.verifySecretItems())
        }
    }
}
