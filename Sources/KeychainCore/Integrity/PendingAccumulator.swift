/// The accumulator delta of the current transaction (see ``StoreSession/accumulate(_:)``).
/// Not `Sendable`: it lives inside ``StoreSession``, under the keystore's mutex.
final class PendingAccumulator {
    static let bytes = 32
    private var delta: [UInt8]?

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
}
