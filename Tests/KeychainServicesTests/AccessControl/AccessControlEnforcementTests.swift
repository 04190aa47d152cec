import Foundation
import KeychainCore
import KeychainServices
import KeychainTestProcess
import KeychainTesting
import LocalAuthentication
import Testing

/// kSecAttrAccessControl enforced on use (SecAccessControl.h; "Restricting keychain item
/// accessibility", https://developer.apple.com/documentation/security/restricting-keychain-item-accessibility;
/// kSecUseAuthenticationUI and kSecUseAuthenticationContext in SecItem.h). On Linux the keychain
/// password, typed into pinentry, stands in for the device passcode (docs/ARCHITECTURE.md).
@Suite("Access control on use")
struct AccessControlEnforcementTests {
    let readData: [String: Any] = [kSecReturnData as String: kCFBooleanTrue!]

    func protected(_ flags: SecAccessControlCreateFlags, account: String = "acct") -> [String: Any] {
        genericPassword(account: account, [kSecAttrAccessControl as String: accessControl(flags)])
    }

    @Test("A .devicePasscode item asks for the keychain password to read its data, once per use")
    func passcodePerUse() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            #expect(fixture.pinentry.prompts == 0, "adding asks nothing")
            #expect(secret(genericPassword()) == "s")
            #expect(secret(genericPassword()) == "s")
            #expect(fixture.pinentry.prompts == 2)
        }
    }

    @Test("Attributes of an access-controlled item are read, and the item deleted, without asking")
    func attributesAndDeleteWithoutPrompt() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.userPresence), secret: "s") == errSecSuccess)
            let found = attributes(genericPassword())
            #expect((found?[kSecAttrAccessControl as String] as? SecAccessControl) == accessControl(.userPresence))
            #expect(delete(genericPassword()) == errSecSuccess)
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    @Test("kSecUseOperationPrompt is shown in the prompt")
    func operationPrompt() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.userPresence), secret: "s") == errSecSuccess)
            #expect(secret(genericPassword([kSecUseOperationPrompt as String: "Sign in to Example"])) == "s")
            #expect(fixture.pinentry.descriptions == ["Sign in to Example"])
        }
    }

    @Test("kSecUseAuthenticationUIFail gives errSecInteractionNotAllowed (-25308) without asking")
    func uiFail() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            let query = genericPassword(
                readData.merging([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]) { $1 })
            #expect(copy(query).status == errSecInteractionNotAllowed)
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    // A nil result drops only the result (Apple's SecItem.c): the data is still authorized first.
    @Test("kSecReturnData with a nil result pointer still asks for an access-controlled item's data")
    func nilResultStillAuthorizes() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            let failing = genericPassword(
                readData.merging([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]) { $1 })
            #expect(SecItemCopyMatching(failing as CFDictionary, nil) == errSecInteractionNotAllowed)
            #expect(fixture.pinentry.prompts == 0)
            #expect(SecItemCopyMatching(genericPassword(readData) as CFDictionary, nil) == errSecSuccess)
            #expect(fixture.pinentry.prompts == 1)
        }
    }

    @Test("kSecUseAuthenticationUISkip leaves access-controlled items out of the results")
    func uiSkip() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.devicePasscode, account: "guarded"), secret: "g") == errSecSuccess)
            #expect(add(genericPassword(account: "plain"), secret: "p") == errSecSuccess)
            var query = genericPassword(account: nil, readData)
            query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            let (status, result) = copy(query)
            #expect(status == errSecSuccess)
            #expect((result as? [Data]) == [Data("p".utf8)])
            #expect(
                copy(
                    genericPassword(
                        account: "guarded",
                        [
                            kSecReturnData as String: true,
                            kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
                        ])
                ).status == errSecItemNotFound)
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    @Test("An evaluated LAContext passed as kSecUseAuthenticationContext reads without asking again")
    func evaluatedContext() async throws {
        let fixture = try PasswordKeychain()
        try await fixture.run {
            #expect(add(protected(.userPresence), secret: "s") == errSecSuccess)
            let context = LAContext()
            let evaluated = try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock")
            #expect(evaluated)
            let query = genericPassword(readData.merging([kSecUseAuthenticationContext as String: context]) { $1 })
            #expect(copy(query).result as? Data == Data("s".utf8))
            #expect(copy(query).result as? Data == Data("s".utf8))
            #expect(fixture.pinentry.prompts == 1)
            context.invalidate()
            #expect(copy(query).status == errSecAuthFailed, "an invalidated context proves nothing")
        }
    }

    @Test("A context that asked once for an item does not ask again; without it each use asks")
    func contextCarriesAuthentication() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            let context = LAContext()
            let query = genericPassword(readData.merging([kSecUseAuthenticationContext as String: context]) { $1 })
            #expect(copy(query).status == errSecSuccess)
            #expect(copy(query).status == errSecSuccess)
            #expect(fixture.pinentry.prompts == 1)
        }
    }

    @Test("LAContext.interactionNotAllowed gives errSecInteractionNotAllowed (-25308)")
    func contextInteractionNotAllowed() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            let context = LAContext()
            context.interactionNotAllowed = true
            #expect(
                copy(genericPassword(readData.merging([kSecUseAuthenticationContext as String: context]) { $1 })).status
                    == errSecInteractionNotAllowed)
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    @Test("A wrong keychain password, three times, gives errSecAuthFailed (-25293)")
    func wrongPassword() throws {
        let fixture = try PasswordKeychain(pin: "wrong")
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            #expect(copy(genericPassword(readData)).status == errSecAuthFailed)
            #expect(fixture.pinentry.prompts == DeviceOwnerAuthentication.attempts)
        }
    }

    @Test("Canceling the prompt gives errSecUserCanceled (-128)")
    func canceled() throws {
        let fixture = try PasswordKeychain(cancel: true)
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            #expect(copy(genericPassword(readData)).status == errSecUserCanceled)
        }
    }

    /// Linux behaves as an Apple device with no enrolled biometry: biometry can never be satisfied.
    @Test(
        "Biometry-only constraints fail with errSecAuthFailed (-25293) without asking",
        arguments: [
            SecAccessControlCreateFlags.biometryAny, .biometryCurrentSet, [.biometryAny, .and, .devicePasscode],
        ])
    func biometryOnly(flags: SecAccessControlCreateFlags) throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected(flags), secret: "s") == errSecSuccess)
            #expect(copy(genericPassword(readData)).status == errSecAuthFailed)
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    @Test("Biometry .or device passcode is satisfied by the keychain password")
    func biometryOrPasscode() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(protected([.biometryAny, .or, .devicePasscode]), secret: "s") == errSecSuccess)
            #expect(secret(genericPassword()) == "s")
            #expect(fixture.pinentry.prompts == 1)
        }
    }

    @Test("A keychain without a password is a device without a passcode: errSecAuthFailed (-25293)")
    func noPasscode() throws {
        let fixture = try PasswordKeychain(withPassword: false)
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            #expect(copy(genericPassword(readData)).status == errSecAuthFailed)
        }
    }

    @Test(".applicationPassword takes the password set on the context with setCredential")
    func applicationPassword() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            let context = LAContext()
            #expect(context.setCredential(Data("app-secret".utf8), type: .applicationPassword))
            var item = protected(.applicationPassword)
            item[kSecUseAuthenticationContext as String] = context
            #expect(add(item, secret: "s") == errSecSuccess)

            let reader = LAContext()
            reader.setCredential(Data("app-secret".utf8), type: .applicationPassword)
            #expect(
                copy(genericPassword(readData.merging([kSecUseAuthenticationContext as String: reader]) { $1 })).result
                    as? Data
                    == Data("s".utf8))

            let wrong = LAContext()
            wrong.setCredential(Data("other".utf8), type: .applicationPassword)
            #expect(
                copy(genericPassword(readData.merging([kSecUseAuthenticationContext as String: wrong]) { $1 })).status
                    == errSecAuthFailed)
            #expect(
                copy(
                    genericPassword(
                        readData.merging([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]) { $1 })
                ).status
                    == errSecInteractionNotAllowed)
            #expect(fixture.pinentry.prompts == 0)
        }
    }

    @Test("Regression (review of issue 17): SecItemAdd of an .applicationPassword item with kSecReturnData asks once")
    func addReturningDataAsksOnce() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            var item = protected(.applicationPassword)
            item[kSecValueData as String] = Data("s".utf8)
            item[kSecReturnData as String] = kCFBooleanTrue
            var result: CFTypeRef?
            #expect(SecItemAdd(item as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("s".utf8))
            #expect(fixture.pinentry.prompts == 1, "the password chosen for the item also releases its data")
            // The password chosen there protects the item: a later read asks for it, and it opens the item.
            #expect(secret(genericPassword()) == "s")
            #expect(fixture.pinentry.prompts == 2)
        }
    }

    @Test("kSecUseAuthenticationContext that is not an LAContext is errSecParam (-50)")
    func contextWrongType() throws {
        try withKeychain {
            #expect(copy(genericPassword([kSecUseAuthenticationContext as String: "context"])).status == errSecParam)
            #expect(copy(genericPassword([kSecUseAuthenticationUI as String: "maybe"])).status == errSecParam)
        }
    }

    @Test("With no pinentry and no terminal a constrained read is errSecInteractionNotAllowed (-25308)")
    func noPrompter() throws {
        let fixture = try PasswordKeychain()
        let empty = fixture.keychain.root + "/empty-path"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let environment = ["PATH": empty, "HOME": fixture.keychain.root]
        #expect(throws: KeychainFailure.self) { try Pinentry.fromEnvironment(environment, terminal: nil) }
        try fixture.run {
            #expect(add(protected(.devicePasscode), secret: "s") == errSecSuccess)
            let status = Prompters.withOverride(EnvironmentPrompter(environment: environment)) {
                copy(genericPassword(readData)).status
            }
            #expect(status == errSecInteractionNotAllowed)
        }
    }
}

/// The prompter a process with `environment` and no terminal gets.
struct EnvironmentPrompter: Prompter {
    let environment: [String: String]
    func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
        try Pinentry.fromEnvironment(environment, terminal: nil).requestPassword(prompt)
    }
}

@Suite("Access control on update")
struct AccessControlUpdateTests {
    @Test("Removing an item's constraints through SecItemUpdate needs them satisfied first")
    func removingConstraintsAsks() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            let item = genericPassword([kSecAttrAccessControl as String: accessControl(.devicePasscode)])
            #expect(add(item, secret: "s") == errSecSuccess)
            let plain = [kSecAttrAccessControl as String: accessControl([])]
            #expect(
                update(genericPassword([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]), plain)
                    == errSecInteractionNotAllowed)
            #expect(fixture.pinentry.prompts == 0)
            #expect(update(genericPassword(), plain) == errSecSuccess)
            #expect(fixture.pinentry.prompts == 1)
            #expect(secret(genericPassword()) == "s")
            #expect(fixture.pinentry.prompts == 1, "no constraints any more")
        }
    }

    @Test("Constraints added to a plain item through SecItemUpdate guard its data from the next read on")
    func addingConstraintsGuards() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(add(genericPassword(), secret: "s") == errSecSuccess)
            #expect(secret(genericPassword()) == "s")
            #expect(fixture.pinentry.prompts == 0)
            // An update in place: the item key is wrapped again with the access entry (issue 29), so a
            // read of the data opens the attributes and finds the constraint.
            let guarded = [kSecAttrAccessControl as String: accessControl(.devicePasscode)]
            #expect(update(genericPassword(), guarded) == errSecSuccess)
            #expect(fixture.pinentry.prompts == 0)
            #expect(secret(genericPassword()) == "s")
            #expect(fixture.pinentry.prompts == 1)
        }
    }

    @Test("Changing only the secret or a label of an access-controlled item asks nothing")
    func plainChanges() throws {
        let fixture = try PasswordKeychain()
        try fixture.run {
            #expect(
                add(genericPassword([kSecAttrAccessControl as String: accessControl(.devicePasscode)]), secret: "s")
                    == errSecSuccess)
            #expect(
                update(genericPassword(), [kSecAttrLabel as String: "l", kSecValueData as String: Data("t".utf8)])
                    == errSecSuccess)
            #expect(fixture.pinentry.prompts == 0)
            #expect(secret(genericPassword()) == "t")
        }
    }
}

/// The prompter another process gets from its environment: `KEYCHAIN_PINENTRY` names the program;
/// without it, no terminal and no display mean nothing can be asked.
@Suite("Access control in another process")
struct AccessControlProcessTests {
    @Test("A helper process with KEYCHAIN_PINENTRY reads a .userPresence item through that pinentry")
    func pinentryFromEnvironment() throws {
        let fixture = try PasswordKeychain()
        defer { try? fixture.keystore.withdrawAllClassKeys() }
        // Unlocked (as setting the password leaves it) for the helper: only the constraint should ask.
        KeychainContext.withOverride(fixture.context) {
            let item = genericPassword(
                service: "svc", account: "acct", [kSecAttrAccessControl as String: accessControl(.userPresence)])
            #expect(add(item, secret: "from-another-process") == errSecSuccess)
        }
        var environment = fixture.keychain.environment
        environment[PinentryLocator.overrideVariable] = fixture.pinentry.program
        let output = try HelperProcess.run(["get", "svc", "acct"], environment: environment)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "0 from-another-process")
        #expect(fixture.pinentry.prompts == 1)
    }

    @Test("With no pinentry, no terminal and no display, another process gets errSecInteractionNotAllowed")
    func nothingToAsk() throws {
        let fixture = try PasswordKeychain()
        defer { try? fixture.keystore.withdrawAllClassKeys() }
        KeychainContext.withOverride(fixture.context) {
            let item = genericPassword(
                service: "svc", account: "acct", [kSecAttrAccessControl as String: accessControl(.devicePasscode)])
            #expect(add(item, secret: "s") == errSecSuccess)
            #expect(add(genericPassword(service: "svc", account: "plain"), secret: "p") == errSecSuccess)
        }
        let empty = fixture.keychain.root + "/no-programs"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        var environment = fixture.keychain.environment
        environment.merge([
            PinentryLocator.overrideVariable: "", "PATH": empty, "DISPLAY": "", "WAYLAND_DISPLAY": "", "GPG_TTY": "",
            "GNUPGHOME": empty,
        ]) { $1 }
        let output = try HelperProcess.run(["get", "svc", "acct"], environment: environment)
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(errSecInteractionNotAllowed)")
        let plain = try HelperProcess.run(["get", "svc", "plain"], environment: environment)
        #expect(plain.trimmingCharacters(in: .whitespacesAndNewlines) == "0 p", "the keychain itself is unlocked")
    }
}
