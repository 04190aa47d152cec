import Foundation
import Testing

@testable import KeychainCore

/// `Sodium.base64`, the PEM body of `security export` since the tool lost Foundation (issue 23): RFC 4648's
/// published vectors, and the same text `Data.base64EncodedString()` gave before.
@Suite("Base64 through libsodium")
struct SodiumBase64Tests {
    @Test(
        "RFC 4648 section 10's vectors encode as published",
        arguments: [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ])
    func rfc4648(_ input: String, _ expected: String) {
        #expect(Sodium.base64(Array(input.utf8)) == expected)
    }

    @Test("Every byte value and every padding length encode as Foundation's base64EncodedString did")
    func matchesFoundation() {
        let bytes = (0..<256).map { UInt8($0) } + (0..<256).map { UInt8(255 - $0) }
        for count in 0...bytes.count {
            let prefix = Array(bytes.prefix(count))
            #expect(Sodium.base64(prefix) == Data(prefix).base64EncodedString(), "\(count) bytes")
        }
    }
}
