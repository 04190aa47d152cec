import Testing
@testable import KeychainCore

@Test("SecureBytes is zeroed by wipe")
func wipe() {
    let secret = SecureBytes(copying: Array("hunter2".utf8))
    secret.wipe()
    #expect(secret.withUnsafeBytes { Array($0) } == [UInt8](repeating: 0, count: 7))
}
