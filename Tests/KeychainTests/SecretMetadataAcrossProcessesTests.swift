import Foundation
import KeychainCore
import KeychainTestProcess
import KeychainTesting
import Testing

/// The engine remembers opened Secret Service metadata per connection (tracker issue 29); another
/// process's change to an item's label and attributes must still be read at once.
@Suite("Secret Service metadata across processes")
struct SecretMetadataAcrossProcessesTests {
    @Test("Another process's new label and attributes are read at once after this connection read the item")
    func otherProcessChangeSeen() throws {
        let temp = try TemporaryKeychain(opening: true)
        let keystore = try #require(temp.firstConnection)
        let number = try keystore.createSecretItem(
            label: "before", attributes: ["app": "mail"],
            secret: SecretItemSecret(value: SecureBytes(copying: Array("s".utf8)), contentType: ""), replace: false
        ).number
        #expect(try keystore.secretItem(number)?.label == "before")
        #expect(try keystore.secretItems(matching: ["app": "mail"]).count == 1)

        #expect(
            try HelperProcess.run(["ss-update", "\(number)", "after", "app", "chat"], environment: temp.environment)
                == "0")
        let item = try #require(try keystore.secretItem(number))
        #expect(item.label == "after")
        #expect(item.attributes == ["app": "chat"])
        #expect(try keystore.secretItems(matching: ["app": "mail"]).isEmpty)
        #expect(try keystore.secretItems(matching: ["app": "chat"]).map(\.label) == ["after"])
    }
}
