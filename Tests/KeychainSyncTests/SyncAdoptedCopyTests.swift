import Foundation
import KeychainCore
import KeychainSync
import KeychainTesting
import Testing

/// A keychain that syncs, copied to another installation and adopted there (README, "Copying the keychain file
/// itself, or losing the device key"): the copy is a new device, as iOS treats a restored device (issue 26).
@Suite("a keychain that syncs, copied to another installation")
struct SyncAdoptedCopyTests {
    /// How many generic passwords of `service` the device holds.
    func count(_ device: SyncDevice, service: String) throws -> Int {
        var authorizer = AccessAuthorizer(keystore: device.store, context: nil, ui: .fail, reason: nil)
        return try device.gateway.search(
            ItemQuery(
                itemClass: .genericPassword, filters: ["svce": .string(service)], scope: device.gateway.callerScope,
                synchronizable: .any),
            projection: [.attributes], release: &authorizer
        ).count
    }

    @Test(
        "The adopted copy forgets the original's sync identity; the original keeps syncing, and the copy joins as a new device without duplicates"
    )
    func adoptedCopyIsANewDevice() throws {
        let home = try TemporaryKeychain()
        let (devices, url) = try SyncKeychainTests().group(.folder, home: home)
        #expect(devices[1].security("sync", "enable").status == 0)
        try devices[1].add(service: "svc-before-copy", account: "acct", secret: "before")
        try devices[0].add(service: "svc-from-0", account: "acct", secret: "zero")
        SyncKeychainTests().syncAll(devices)
        let password = SecureBytes(copying: Array("the copied keychain's password".utf8))
        try devices[1].store.setPassword(password, current: nil, parameters: .testing)
        let originalID = try devices[1].store.syncDeviceID()

        let copy = try SyncDevice(copying: devices[1])
        #expect(try copy.store.unlockReportingAdoption(password: password).adopted)
        // The adoption withdrew the kernel keyring entries the two files shared (one user session in this test).
        try devices[1].store.unlock(password: password)
        let status = copy.security("sync", "status")
        #expect(status.status == 0)
        #expect(status.out == "not syncing (security sync init URL or security sync join URL sets it up)\n")
        #expect(copy.security("sync", "now").status == 1)
        #expect(copy.security("sync", "leave").status == 1)
        #expect(try copy.store.syncSecret(named: "sync.device-sign-key") == nil)
        #expect(try copy.store.syncState(named: Keystore.secretItemSyncStateName) == [1], "enablement is kept")
        #expect(try copy.secret(service: "svc-before-copy") == "before")

        // The original keeps its id, syncs, and is still listed.
        try devices[1].add(service: "svc-after-copy", account: "acct", secret: "original")
        SyncKeychainTests().syncAll(devices)
        #expect(try devices[1].store.syncDeviceID() == originalID)
        #expect(devices[0].security("sync", "devices").out.contains(originalID.description))
        #expect(try devices[0].secret(service: "svc-after-copy") == "original")

        // The copy joins by recovery under a new id: a fourth device, and no item twice anywhere.
        let joined = copy.security("sync", "join", "--recovery", url, stdin: SyncKeychainTests.passphrase)
        #expect(joined.status == 0, "\(joined)")
        let copyID = try copy.store.syncDeviceID()
        #expect(copyID != originalID)
        try copy.add(service: "svc-from-copy", account: "acct", secret: "copy")
        let all = devices + [copy]
        SyncKeychainTests().syncAll(all)
        let listed = devices[0].security("sync", "devices").out
        #expect(listed.split(separator: "\n").count == 4, "\(listed)")
        #expect(listed.contains(originalID.description) && listed.contains(copyID.description))
        let expected = [
            "svc-before-copy": "before", "svc-from-0": "zero", "svc-after-copy": "original", "svc-from-copy": "copy",
        ]
        for (index, device) in all.enumerated() {
            for (service, secret) in expected {
                #expect(try device.secret(service: service) == secret, "device \(index) \(service)")
                #expect(try count(device, service: service) == 1, "device \(index) \(service)")
            }
            #expect(try device.store.syncConflicts().isEmpty, "device \(index)")
        }
    }
}
