import KeychainCore

/// `keychain-bench secret-service-populate N`: fills the login keychain (`$XDG_DATA_HOME/keychains`, as
/// `security` finds it) with `scripts/bench-secret-service`'s items up to `N`, in one write transaction,
/// so that a size such as 100,000 is reached without a `CreateItem` per item (each `CreateItem` sends the
/// collection's whole `Items` list: populating through it is quadratic).
///
/// The items are those the bench's python client makes through `CreateItem`: label `bench item I`,
/// attributes `bench` = `1` and `id` = `I`, secret `secret-I`, for I from the count already there to
/// N − 1. The content type and access list are copied from a template, the bench's item `id` = `0`,
/// which the client made through `CreateItem` (so its owner is the client, as the provider recorded it):
/// the client then reads these items exactly as it reads its own. The provider must not be running
/// meanwhile (it would announce every item); the bench stops it, runs this, and starts it again.
/// Prints the count reached and the seconds taken.
enum SecretServicePopulate {
    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 1, let target = Int(arguments[0]), target > 0 else {
            print("usage: keychain-bench secret-service-populate <items>")
            return 64
        }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let keystore = try Keystore(location: .login(), create: false)
            let have = try keystore.secretItems(matching: ["bench": "1"]).count
            guard let template = try keystore.secretItems(matching: ["bench": "1", "id": "0"]).first else {
                print("no template item (bench = 1, id = 0): make it through CreateItem first")
                return 1
            }
            let contentType = try keystore.secretItemSecret(template.number).contentType
            if target > have {
                _ = try keystore.createSecretItems(count: target - have) { offset in
                    let index = have + offset
                    return (
                        "bench item \(index)", ["bench": "1", "id": String(index)],
                        SecretItemSecret(
                            value: SecureBytes(copying: Array("secret-\(index)".utf8)), contentType: contentType),
                        template.access
                    )
                }
            }
            let tenths = Int(((clock.now - start) / .milliseconds(100)).rounded())
            print("\(max(have, target)) \(tenths / 10).\(tenths % 10)")
            return 0
        } catch {
            print("cannot populate: \(error)")
            return 1
        }
    }
}
