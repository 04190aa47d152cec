/// The accumulator delta of the current transaction (see ``StoreSession/accumulate(_:_:)``), for one
/// accumulator in `meta`: `accumulator` (the `items` rows) or `ss_accumulator` (the Secret Service
/// rows, ``SecretItemSchema``). Each is written once, just before the commit
/// (``StoreSession/flushAccumulator()``), however many rows the transaction changed.
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class PendingAccumulator {
    /// The `meta` entry the delta is XORed into (``RowKind/accumulatorMeta``).
    let metaName: String
    private var delta: [UInt8]?

    init(_ kind: RowKind) {
        metaName = kind.accumulatorMeta
    }

    func xor(_ tag: [UInt8]) {
        guard var current = delta else {
            delta = tag
            return
        }
        delta = nil
        for index in current.indices { current[index] ^= tag[index] }
        delta = current
    }

    /// The pending delta, leaving none.
    func take() -> [UInt8]? {
        defer { delta = nil }
        return delta
    }

    /// Forgets the delta of a transaction that rolled back (or is starting).
    func discard() { delta = nil }

    /// XORs the pending delta into `meta` (a missing entry counts as zero) and leaves none; no-op
    /// when nothing was written. Runs inside the transaction, right before its COMMIT.
    /// - Throws: `.invalidKeychain` when the stored accumulator is not 32 bytes; the database's errors.
    func flush(_ database: Database) throws(KeychainFailure) {
        guard let delta = take() else { return }
        // One statement XORs the delta into the stored accumulator in place (``Database/xorFunctionName``):
        // a SELECT and a write cost 12k of the 166k instructions of a durable SecItemUpdate (callgrind,
        // keychain-bench update.durable, issue 29). A missing entry is inserted as the delta (zero XOR
        // delta). A stored value that is not a 32-byte blob fails the function alone, and goes the general
        // way below, which answers as it always has; any other failure is the statement's, and is thrown.
        do throws(KeychainFailure) {
            try database.prepare(.xorMeta).run([
                .blob(delta), .text(metaName),
            ])
            if database.changes() == 0 { try Meta.set(database, metaName, delta) }
            return
        } catch  where error.databaseError?.message == Database.xorMismatch {
            // The stored value is not a blob of the delta's length: read, checked and written as below.
        }
        var current = try Meta.blob(database, metaName) ?? [UInt8](repeating: 0, count: delta.count)
        guard current.count == delta.count else { throw KeychainFailure(.invalidKeychain, "bad \(metaName)") }
        for index in current.indices { current[index] ^= delta[index] }
        try Meta.set(database, metaName, current)
    }
}
