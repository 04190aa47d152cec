/// Attribute pairs that at least two items shared when this connection last searched by them, with
/// their keyed digests, kept while nothing changed (tracker issue 29, item 4).
///
/// A search counts each pair's matches (up to 2) to drive itself by the rarest; the pairs clients search
/// by again and again are mostly the common ones (libsecret's `xdg:schema`, an application's own tag),
/// whose digest (keyed BLAKE2b) and count this spares on the next search. The rare pair of each search
/// (an `id`, a user name) is still digested and counted.
///
/// - **Valid while nothing was written**, as ``SecretRowCache`` (one ``ReadStamp``): a change anywhere
///   empties it. A count only orders the search; the search still checks every pair, so even a stale
///   entry could not change a result.
/// - **No secrets**: attribute names and values are the searches' own, readable while the keychain is
///   locked (Secret Service specification), and the digests are those of the `ss_index` column.
/// - **Bounded**: at most ``capacity`` pairs; past it, an arbitrary one is dropped per insertion.
///
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class SecretPairMemo {
    /// At most this many pairs.
    static let capacity = 16

    private struct Pair: Hashable {
        let name: String
        let value: String
    }

    private var digests: [Pair: [UInt8]] = [:]
    private var stamp = ReadStamp()
    /// How many pairs were served from the memo (tests).
    private(set) var hits = 0

    /// Pairs kept now.
    var count: Int { digests.count }

    /// The digest of `name` = `value` when at least two items had that pair at the database's state now.
    /// - Parameters:
    ///   - dataVersion: the connection's `data_version` in this transaction (`nil`: unknown, no pair).
    ///   - totalChanges: ``Database/totalChanges()`` now.
    func commonPair(_ name: String, _ value: String, dataVersion: Int64?, totalChanges: Int64) -> [UInt8]? {
        guard validate(dataVersion: dataVersion, totalChanges: totalChanges),
            let digest = digests[Pair(name: name, value: value)]
        else { return nil }
        hits += 1
        return digest
    }

    /// Keeps `digest` as that of `name` = `value`, which at least two items had at `dataVersion` and
    /// `totalChanges`.
    func keepCommonPair(_ name: String, _ value: String, digest: [UInt8], dataVersion: Int64?, totalChanges: Int64) {
        guard validate(dataVersion: dataVersion, totalChanges: totalChanges) else { return }
        let pair = Pair(name: name, value: value)
        if digests[pair] == nil && digests.count >= Self.capacity { digests.remove(at: digests.startIndex) }
        digests[pair] = digest
    }

    /// Forgets every pair (a rolled-back transaction).
    func clear() {
        digests.removeAll()
        stamp.reset()
    }

    private func validate(dataVersion: Int64?, totalChanges: Int64) -> Bool {
        stamp.admits(dataVersion: dataVersion, totalChanges: totalChanges) { digests.removeAll(keepingCapacity: true) }
    }
}
