internal import KeychainCore

// SecRandom.h: cryptographically secure random bytes (libsodium's `randombytes_buf` here).

/// An abstract random number generator (SecRandom.h `SecRandomRef`).
public typealias SecRandomRef = OpaquePointer

/// The default random number generator. As on Apple platforms its value is `nil` (SecRandom.h).
// nonisolated(unsafe): an immutable nil pointer; OpaquePointer is not Sendable, but nothing is shared.
nonisolated(unsafe) public let kSecRandomDefault: SecRandomRef? = nil

/// Fills a buffer with cryptographically secure random bytes.
///
/// Follows Apple's `SecRandomCopyBytes` (SecRandom.h;
/// https://developer.apple.com/documentation/security/secrandomcopybytes(_:_:_:)).
/// - Parameters:
///   - rnd: the generator; only `kSecRandomDefault` (`nil`) exists.
///   - count: how many bytes to write.
///   - bytes: where to write them; at least `count` bytes.
/// - Returns: `errSecSuccess`; `errSecParam` (-50) for a negative `count`.
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    Sodium.fillRandom(UnsafeMutableRawBufferPointer(start: bytes, count: count))
    return errSecSuccess
}
