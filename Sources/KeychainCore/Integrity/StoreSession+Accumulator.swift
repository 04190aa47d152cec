/// The integrity accumulator's side of every write: each row's tag change goes into the transaction's
/// pending delta (``PendingAccumulator``), written to `meta` once before the commit.
extension StoreSession {
    /// XORs `delta` into the keychain's accumulator: the XOR of every row's keyed tag. Replaying an
    /// old copy of a row, or removing or adding one behind the engine's back, breaks the equality
    /// that ``Keystore/verifyIntegrity()`` checks.
    ///
    /// Every write calls this; the deltas of one transaction are XORed in memory and written to `meta`
    /// by ``flushAccumulator()`` just before the transaction commits (``Keystore`` does it), so the
    /// committed accumulator is exactly what writing it after every row gave, without a SELECT and an
    /// INSERT OR REPLACE of `meta` per row (13k of a bulk add's 138k instructions per item; issue 7).
    func accumulate(_ delta: [UInt8]) throws(KeychainFailure) {
        guard delta.count == PendingAccumulator.bytes else { throw KeychainFailure(.invalidKeychain, "bad accumulator") }
        pendingAccumulator.xor(delta)
    }

    /// Writes the transaction's accumulated delta into `meta` (no-op when nothing was written).
    /// Called by ``Keystore`` right before COMMIT, inside the transaction.
    func flushAccumulator() throws(KeychainFailure) {
        guard let delta = pendingAccumulator.take() else { return }
        var current = try Meta.blob(database, "accumulator") ?? [UInt8](repeating: 0, count: delta.count)
        guard current.count == delta.count else { throw KeychainFailure(.invalidKeychain, "bad accumulator") }
        for index in current.indices { current[index] ^= delta[index] }
        try Meta.set(database, "accumulator", current)
    }
}
