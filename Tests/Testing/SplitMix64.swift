/// SplitMix64 (Steele, Lea and Flood, 2014): a seeded, reproducible random number generator.
///
/// For the benchmark, the stress tool, the test helper and the tests, which must visit items in the
/// same "random" order on every run. Never for keys or anything secret: those come from libsodium.
/// It lives in a target of its own that the shipped tools (`security` and the credential helpers)
/// do not link.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// A number in `0..<n`.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `values`.
    package mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    /// Up to `maxCount` bytes.
    package mutating func bytes(_ maxCount: Int) -> [UInt8] {
        (0..<below(maxCount + 1)).map { _ in UInt8(truncatingIfNeeded: next()) }
    }
}
