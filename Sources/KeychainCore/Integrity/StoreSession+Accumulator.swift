/// The integrity accumulators' side of every write: each row's tag change goes into the transaction's
/// pending delta (``PendingAccumulator``), written to `meta` once before the commit. `items` rows and
/// Secret Service rows (`ss_items`) have one accumulator each, batched the same way.
extension StoreSession {
    /// XORs `delta` into the accumulator of `kind`'s rows: the XOR of every such row's keyed tag.
    /// Replaying an old copy of a row, or removing or adding one behind the engine's back, breaks
    /// the equality that ``Keystore/verifyIntegrity()`` checks.
    ///
    /// Every write calls this; the deltas of one transaction are XORed in memory and written to `meta`
    /// by ``flushAccumulator()`` just before the transaction commits (``Keystore`` does it), so the
    /// committed accumulator is exactly what writing it after every row gave, without a SELECT and an
    /// INSERT OR REPLACE of `meta` per row (13k of a bulk add's 138k instructions per item; issue 7).
    func accumulate(_ delta: [UInt8], _ kind: RowKind) throws(KeychainFailure) {
        guard delta.count == IntegrityAccumulator.bytes else {
            throw KeychainFailure(.invalidKeychain, "bad \(kind.accumulatorMeta)")
        }
        pending(kind).xor(delta)
    }

    /// Writes the transaction's accumulated deltas into `meta` (no-op for an accumulator that nothing
    /// changed). Called by ``Keystore`` right before COMMIT, inside the transaction.
    func flushAccumulator() throws(KeychainFailure) {
        for kind in RowKind.allCases { try pending(kind).flush(database) }
    }

    /// Forgets the pending deltas: at the start of a transaction, and when one rolls back.
    func discardAccumulators() {
        for kind in RowKind.allCases { pending(kind).discard() }
    }

    /// The current transaction's pending delta for `kind`'s rows.
    private func pending(_ kind: RowKind) -> PendingAccumulator {
        switch kind {
        case .secItem: pendingAccumulator
        case .secretService: pendingSecretItemAccumulator
        case .sync: pendingSyncAccumulator
        }
    }

    /// The current transaction rolled back: forgets what it left pending or remembered (the
    /// accumulators' deltas, keys it reloaded, Secret Service tables it created).
    func transactionRolledBack() {
        discardAccumulators()
        keys.transactionRolledBack()
        secretItemTables.transactionRolledBack()
        secretRows.clear()
        secretPairs.clear()
        syncTables.transactionRolledBack()
    }
}
