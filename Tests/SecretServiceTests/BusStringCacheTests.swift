import KeychainDBus
import Testing

/// ``BusStringCache``: what GDBus's callbacks receive as C strings comes out exactly as
/// `String(cString:)` would make it, whether converted now or handed out again.
@Suite("Strings of D-Bus callbacks, converted once")
struct BusStringCacheTests {
    /// Converts `text` through `cache` from a fresh C string (not the pointer of an earlier call).
    private func converted(_ text: String, _ cache: BusStringCache) -> String {
        let bytes = Array(text.utf8CString)
        return bytes.withUnsafeBufferPointer { cache.string($0.baseAddress!) }
    }

    @Test("Each string comes back as String(cString:) makes it, the first time and again")
    func sameAsCString() {
        let cache = BusStringCache()
        let texts = [
            "/org/freedesktop/secrets/collection/login/17", "org.freedesktop.Secret.Item", "GetSecret", ":1.42", "",
            "/org/freedesktop/secrets/collection/login/1", "/org/freedesktop/secrets/collection/login/170", "é/ü",
        ]
        for _ in 0..<3 {
            for text in texts { #expect(converted(text, cache) == text) }
        }
    }

    @Test("Strings of the same length with different bytes are told apart")
    func sameLengthDifferentBytes() {
        let cache = BusStringCache()
        #expect(converted("/collection/login/12", cache) == "/collection/login/12")
        #expect(converted("/collection/login/13", cache) == "/collection/login/13")
        #expect(converted("/collection/login/12", cache) == "/collection/login/12")
    }

    @Test("Beyond its capacity the oldest entries are replaced and every string still converts")
    func replacement() {
        let cache = BusStringCache()
        let texts = (0..<(3 * BusStringCache.capacity)).map { "/org/freedesktop/secrets/session/\($0)" }
        for text in texts { #expect(converted(text, cache) == text) }
        for text in texts.reversed() { #expect(converted(text, cache) == text) }
    }

    @Test("A string longer than the longest kept converts every time and leaves the kept ones in place")
    func longStringsNotKept() {
        let cache = BusStringCache()
        let long = "/org/example/" + String(repeating: "a", count: BusStringCache.maximumCount)
        let kept = (0..<BusStringCache.capacity).map { "/org/freedesktop/secrets/session/\($0)" }
        for text in kept { #expect(converted(text, cache) == text) }
        let keptBytes = kept.reduce(0) { $0 + $1.utf8.count }
        #expect(cache.keptBytes == keptBytes)
        for _ in 0..<3 { #expect(converted(long, cache) == long) }
        #expect(cache.keptBytes == keptBytes)
    }
}
