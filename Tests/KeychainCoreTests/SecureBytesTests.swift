import Testing

@testable import KeychainCore

@Suite("Secrets in memory")
struct SecureBytesTests {
    @Test("wipe zeroes the secret's bytes in place (what deinit does before freeing)")
    func wipe() {
        let secret = SecureBytes(copying: Array("hunter2".utf8))
        #expect(secret.withUnsafeBytes { Array($0) } == Array("hunter2".utf8))
        secret.wipe()
        #expect(secret.withUnsafeBytes { Array($0) } == [UInt8](repeating: 0, count: 7))
    }

    @Test("copying takes the same bytes from contiguous collections (memcpy), their slices and other collections")
    func copying() {
        let bytes = [UInt8](0...200)
        let expected = [UInt8](10..<170)
        let copies = [
            bytes.withUnsafeBytes { SecureBytes(copying: $0[10..<170]) },
            SecureBytes(copying: bytes[10..<170]),
            SecureBytes(copying: Array(expected)),
            // No contiguous storage: the element-by-element path.
            SecureBytes(copying: (10..<170).lazy.map { UInt8($0) }),
        ]
        for copy in copies { #expect(copy.withUnsafeBytes { Array($0) } == expected) }
        #expect(SecureBytes(copying: [UInt8]()).count == 0)
    }

    @Test("tens of thousands of live secrets outgrow sodium_malloc's mappings without failing")
    func manySecrets() {
        let secrets = (0..<40_000).map { SecureBytes(copying: Array("secret-\($0)".utf8)) }
        #expect(secrets[39_999].withUnsafeBytes { String(decoding: $0, as: UTF8.self) } == "secret-39999")
        #expect(secrets[0].constantTimeEquals(Array("secret-0".utf8)))
    }

    @Test("comparison is by content and length, and the description never shows the bytes")
    func comparison() {
        let a = SecureBytes(copying: Array("abc".utf8))
        #expect(a.constantTimeEquals(SecureBytes(copying: Array("abc".utf8))))
        #expect(!a.constantTimeEquals(SecureBytes(copying: Array("abd".utf8))))
        #expect(!a.constantTimeEquals(SecureBytes(copying: Array("abcd".utf8))))
        #expect(!a.description.contains("abc"))
    }

    struct InitializeFailed: Error {}

    @Test("regression: an initializer that throws releases its arena slot once, so two later secrets never share it")
    func throwingInitializerReleasesOnce() {
        for _ in 0..<4 {
            #expect(throws: InitializeFailed.self) {
                _ = try SecureBytes(count: 16) { (_) throws(InitializeFailed) in throw InitializeFailed() }
            }
        }
        // Released twice, a slot would sit twice on the free list and be handed to both of these.
        let first = SecureBytes(copying: [UInt8](repeating: 0xA1, count: 16))
        let second = SecureBytes(copying: [UInt8](repeating: 0xB2, count: 16))
        let third = SecureBytes(copying: [UInt8](repeating: 0xC3, count: 16))
        #expect(first.unprotectedCopy == [UInt8](repeating: 0xA1, count: 16))
        #expect(second.unprotectedCopy == [UInt8](repeating: 0xB2, count: 16))
        #expect(third.unprotectedCopy == [UInt8](repeating: 0xC3, count: 16))
    }
}
