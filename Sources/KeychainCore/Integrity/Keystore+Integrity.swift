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
            let check = try s.database.prepare("PRAGMA quick_check")
            try check.bind([])
            let verdict = try check.step() ? check.text(0) : "no answer"
            check.finish()
            guard verdict == "ok" else { throw KeychainFailure(.invalidKeychain, verdict) }
            // Every kind of row, each against its own accumulator: a new kind does not compile until it is checked.
            var count = 0
            for kind in RowKind.allCases {
                switch kind {
                case .secItem: count += try s.verifyItemRows()
                case .secretService: count += try s.verifySecretItems()
                // The sync journal's rows are not items: checked, never counted.
                case .sync: try s.verifySyncRows()
                }
            }
            return count
        }
    }
}
