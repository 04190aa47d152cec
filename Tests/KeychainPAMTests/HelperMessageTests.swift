import KeychainCore
import KeychainPAM
import Testing

/// The module-to-helper message (docs/PAM.md): what is accepted, and each malformed case refused with its cause.
@Suite("keychain-pam-helper's message")
struct HelperMessageTests {
    func parse(_ bytes: [UInt8]) throws(HelperMessage.Refusal) -> HelperMessage {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HelperMessage.Refusal) in try HelperMessage.parse(raw) }
        }
        return try result.get()
    }

    @Test("A change message carries the old and the new password, byte for byte")
    func change() throws {
        let message = try parse([1, 2, 2, 0, 0, 0, 3] + Array("old".utf8) + [0, 0, 0, 4] + Array("n\u{0}w!".utf8))
        #expect(message.operation == .change)
        #expect(message.tokens.map { $0.withUnsafeBytes { Array($0) } } == [Array("old".utf8), Array("n\u{0}w!".utf8)])
    }

    @Test(
        "Malformed messages are refused with their cause",
        arguments: [
            ([], HelperMessage.Refusal.empty),
            ([2, 1, 1], .unsupportedVersion(2)),
            ([1, 9, 0], .unknownOperation(9)),
            ([1, 1, 2], .wrongTokenCount(operation: .unlock, count: 2)),
            ([1, 1, 1, 0, 0, 0, 5, 65], .truncated),
            ([1, 1, 1, 0, 0, 0x10, 1], .tokenTooLong(4097)),
            ([1, 4, 0, 0], .trailingBytes(1)),
            ([1, 1], .truncated),
        ] as [([UInt8], HelperMessage.Refusal)])
    func refused(bytes: [UInt8], refusal: HelperMessage.Refusal) {
        #expect(throws: refusal) { try parse(bytes) }
    }
}
