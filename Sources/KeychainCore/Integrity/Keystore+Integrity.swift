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
            var accumulator = IntegrityAccumulator()
            var count = 0
            var modified: Int?
            do {
                let check = try s.database.prepare("PRAGMA quick_check")
                try check.bind([])
                let verdict = try check.step() ? check.text(0) : "no answer"
                check.finish()
                guard verdict == "ok" else { throw KeychainFailure(.invalidKeychain, verdict) }
                let columns = ItemRow.taggedColumns.map(\.rawValue).joined(separator: ", ")
                let rows = try s.database.prepare("SELECT \(columns), tag FROM items")
                try rows.bind([])
                defer { rows.finish() }
                while try rows.step() {
                    let tag = s.codec.rowTag(ItemRow.storedTaggedValues(rows))
                    guard tag == rows.blob(Int32(ItemRow.taggedColumns.count)) else {
                        modified = count + 1
                        break
                    }
                    accumulator.add(tag)
                    count += 1
                }
            }
            if let modified { throw KeychainFailure(.decode, "item \(modified) was modified outside the keychain") }
            guard accumulator.matches(try Meta.blob(s.database, RowKind.secItem.accumulatorMeta)) else {
                throw KeychainFailure(
                    .decode, "the keychain's items do not match its integrity record: a row was replayed, removed or added")
            }
            // The sync journal's rows have their own accumulator (SyncSchema): checked, never counted as items.
            try s.verifySyncRows()
            // Secret Service rows have their own accumulator (SecretItemSchema): checked here too.
            return count + (try s.verifySecretItems())
        }
    }
}
