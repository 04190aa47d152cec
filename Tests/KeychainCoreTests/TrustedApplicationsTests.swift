import CSQLite
import Foundation
import KeychainTesting
import Synchronization
import Testing

@testable import KeychainCore

/// Trusted-application lists on SecItem items (`security add-generic-password -T appPath`, issue 27):
/// the `tapp` record entry (docs/RECORD-FORMAT.md, "Trusted applications") and the releasing search's
/// question for a process not on the list (Deny → errSecAuthFailed, no prompter →
/// errSecInteractionNotAllowed, Always Allow adds the process).
@Suite("Trusted-application lists on SecItem items")
struct TrustedApplicationsTests {
    /// A prompter that answers each question with the next of `answers` and counts the questions.
    final class Answers: Prompter, Sendable {
        let answers: Mutex<[AccessConfirmation.Answer]>
        let asked = Mutex<[AccessConfirmation]>([])
        init(_ answers: [AccessConfirmation.Answer]) { self.answers = Mutex(answers) }

        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            throw KeychainFailure(.interactionNotAllowed, "no passwords in this test")
        }

        func confirm(_ confirmation: AccessConfirmation) throws(KeychainFailure) -> AccessConfirmation.Answer {
            asked.withLock { $0.append(confirmation) }
            return answers.withLock { $0.isEmpty ? .deny : $0.removeFirst() }
        }

        var count: Int { asked.withLock { $0.count } }
    }

    /// A prompter that can ask nothing (only the protocol's default `confirm`).
    struct NoPrompt: Prompter {
        func requestPassword(_ prompt: PasswordPrompt) throws(KeychainFailure) -> SecureBytes {
            throw KeychainFailure(.interactionNotAllowed, "no prompt in this test")
        }
    }

    static let other = "exe:/usr/bin/some-other-program"

    /// A keychain holding one generic password `svc`/`me` labelled "Mail" with `list` (none for `nil`).
    func keychain(_ list: TrustedApplications?) throws -> (TemporaryKeychain, ItemGateway) {
        let temp = try TemporaryKeychain()
        let gateway = ItemGateway(keystore: try temp.open(), identity: .unsigned)
        var attributes: [String: AttributeValue] = [
            "svce": .string("svc"), "acct": .string("me"), "labl": .string("Mail"),
        ]
        if let list { attributes[AttributeName.trustedApplications] = .data(list.encoded) }
        _ = try gateway.add(NewItem(.genericPassword, attributes: attributes, secret: SecureBytes(copying: [7, 7])))
        return (temp, gateway)
    }

    /// The releasing search SecItemCopyMatching makes for `kSecReturnData` alone (the access entries read
    /// without the other attributes), under `prompter`.
    func read(_ gateway: ItemGateway, _ prompter: any Prompter, ui: AccessAuthorizer.UI = .allow)
        -> Result<[StoredItem], KeychainStatus>
    {
        Prompters.withOverride(prompter) {
            var authorizer = AccessAuthorizer(keystore: gateway.keystore, context: nil, ui: ui, reason: nil)
            let query = ItemQuery(itemClass: .genericPassword, scope: gateway.callerScope)
            do throws(KeychainFailure) {
                return .success(try gateway.search(query, projection: [], release: &authorizer))
            } catch {
                return .failure(error.status)
            }
        }
    }

    func storedList(_ gateway: ItemGateway) throws -> TrustedApplications.Lookup {
        let query = ItemQuery(itemClass: .genericPassword, scope: gateway.callerScope)
        return TrustedApplications.of(try #require(try gateway.search(query, projection: .attributes).first).attributes)
    }

    // MARK: - The entry

    @Test("the list encodes as RECORD-FORMAT.md gives it and decodes back")
    func encoding() throws {
        let list = TrustedApplications(["exe:/usr/bin/git"])
        #expect(Array(list.encoded) == [1, 0, 1, 0, 16] + Array("exe:/usr/bin/git".utf8))
        #expect(TrustedApplications(encoded: list.encoded) == list)
        #expect(TrustedApplications([]).encoded == [1, 0, 0])
        #expect(TrustedApplications(encoded: [1, 0, 0]) == TrustedApplications([]))
        #expect(TrustedApplications(["a", "b", "a"]).identities == ["a", "b"])
    }

    @Test(
        "a malformed list is refused: other version, short, trailing bytes, empty or repeated identity, not UTF-8",
        arguments: [
            [2, 0, 0], [1, 0], [1, 0, 1, 0, 2, 65], [1, 0, 0, 0], [1, 0, 1, 0, 0],
            [1, 0, 2, 0, 1, 65, 0, 1, 65], [1, 0, 1, 0, 1, 0xFF],
        ] as [[UInt8]])
    func malformed(_ bytes: [UInt8]) {
        #expect(TrustedApplications(encoded: bytes) == nil)
    }

    @Test("the list is stored in the sealed record, read back whole and by the secret-only search")
    func storedAndRead() throws {
        let list = TrustedApplications([Self.other, CallerIdentity.current.string])
        let (keychain, gateway) = try keychain(list)
        defer { withExtendedLifetime(keychain) {} }
        #expect(try storedList(gateway) == .present(list))
        // The search SecItemCopyMatching makes for kSecReturnData alone reads the entry too.
        let query = ItemQuery(itemClass: .genericPassword, scope: gateway.callerScope)
        let reads = try gateway.keystore.search(query, projection: [.secret, .accessControl])
        #expect(TrustedApplications.of(try #require(reads.first).attributes) == .present(list))
    }

    @Test("this process's identity is its executable, as the Secret Service identifies callers")
    func currentIdentity() throws {
        let identity = CallerIdentity.current
        guard case .executable(let path, _) = identity.kind else {
            Issue.record("not an executable identity: \(identity)")
            return
        }
        #expect(path.hasPrefix("/"))
        #expect(identity.string.hasPrefix("exe:" + path))
        #expect(CallerIdentity.program(atPath: path) == CallerIdentity(kind: identity.kind))
        #expect(CallerIdentity.program(atPath: "/nonexistent/swkc-program") == nil)
    }

    @Test("an identity's string follows its kind and script when they change after it was made")
    func identityStringFollowsChanges() {
        var identity = CallerIdentity(kind: .executable(path: "/usr/bin/python3", sha256: nil), unit: "a.scope")
        #expect(identity.string == "exe:/usr/bin/python3")
        identity.script = "/home/u/tool.py"
        #expect(identity.string == "exe:/usr/bin/python3 script:/home/u/tool.py")
        identity.kind = .executable(path: "/home/u/python3", sha256: "ab12")
        #expect(identity.string == "exe:/home/u/python3@sha256:ab12 script:/home/u/tool.py")
        identity.kind = .flatpak(appID: "org.example.App")
        identity.script = nil
        #expect(identity.string == "flatpak:org.example.App")
        #expect(identity.description == identity.string)
        #expect(identity == CallerIdentity(kind: .flatpak(appID: "org.example.App"), unit: "a.scope"))
    }

    @Test("tampering with the sealed list in the file is detected: the item reads as errSecDecode")
    func tampering() throws {
        let (keychain, gateway) = try keychain(TrustedApplications([Self.other]))
        var db: OpaquePointer?
        #expect(sqlite3_open(keychain.location.databasePath, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        var select: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT rowid, attributes FROM items", -1, &select, nil)
        #expect(sqlite3_step(select) == SQLITE_ROW)
        let rowid = sqlite3_column_int64(select, 0)
        var bytes = [UInt8](
            UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 1), count: Int(sqlite3_column_bytes(select, 1))))
        sqlite3_finalize(select)
        bytes[bytes.count / 2] ^= 1
        var update: OpaquePointer?
        sqlite3_prepare_v2(db, "UPDATE items SET attributes = ? WHERE rowid = \(rowid)", -1, &update, nil)
        _ = bytes.withUnsafeBytes { sqlite3_bind_blob(update, 1, $0.baseAddress, Int32($0.count), nil) }
        #expect(sqlite3_step(update) == SQLITE_DONE)
        sqlite3_finalize(update)
        #expect(read(gateway, Answers([.allowOnce])).failure == .decode)
    }

    // MARK: - The question

    @Test("an item without a list, or whose list names this process, is released without asking")
    func noQuestion() throws {
        for list in [nil, TrustedApplications([CallerIdentity.current.string])] {
            let (keychain, gateway) = try keychain(list)
            defer { withExtendedLifetime(keychain) {} }
            let answers = Answers([])
            #expect(read(gateway, answers).success?.first?.secret?.constantTimeEquals([7, 7]) == true)
            #expect(answers.count == 0)
        }
    }

    @Test("a process not on the list is asked, naming itself and the item; Deny is errSecAuthFailed")
    func deny() throws {
        let (keychain, gateway) = try keychain(TrustedApplications([Self.other]))
        defer { withExtendedLifetime(keychain) {} }
        let answers = Answers([.deny])
        #expect(read(gateway, answers).failure == .authFailed)
        #expect(
            answers.asked.withLock { $0 }
                == [AccessConfirmation(application: CallerIdentity.current.string, itemLabel: "Mail")])
        #expect(try storedList(gateway) == .present(TrustedApplications([Self.other])))
    }

    @Test("Allow releases the secret once: the next read asks again")
    func allowOnce() throws {
        let (keychain, gateway) = try keychain(TrustedApplications([Self.other]))
        defer { withExtendedLifetime(keychain) {} }
        let answers = Answers([.allowOnce, .deny])
        #expect(read(gateway, answers).success?.first?.secret?.constantTimeEquals([7, 7]) == true)
        #expect(read(gateway, answers).failure == .authFailed)
        #expect(answers.count == 2)
        #expect(try storedList(gateway) == .present(TrustedApplications([Self.other])))
    }

    @Test("Always Allow adds this process to the list: the next read does not ask")
    func alwaysAllow() throws {
        let (keychain, gateway) = try keychain(TrustedApplications([Self.other]))
        defer { withExtendedLifetime(keychain) {} }
        let answers = Answers([.alwaysAllow])
        #expect(read(gateway, answers).success?.first?.secret?.constantTimeEquals([7, 7]) == true)
        #expect(read(gateway, answers).success?.first?.secret?.constantTimeEquals([7, 7]) == true)
        #expect(answers.count == 1)
        #expect(
            try storedList(gateway) == .present(TrustedApplications([Self.other, CallerIdentity.current.string])))
    }

    @Test("an empty list (-T \"\") trusts no application: every read asks")
    func emptyList() throws {
        let (keychain, gateway) = try keychain(TrustedApplications([]))
        defer { withExtendedLifetime(keychain) {} }
        let answers = Answers([.allowOnce, .allowOnce])
        #expect(read(gateway, answers).success?.count == 1)
        #expect(read(gateway, answers).success?.count == 1)
        #expect(answers.count == 2)
    }

    @Test(
        "no prompter, or kSecUseAuthenticationUIFail, is errSecInteractionNotAllowed; UISkip leaves the item out")
    func cannotAsk() throws {
        let (keychain, gateway) = try keychain(TrustedApplications([Self.other]))
        defer { withExtendedLifetime(keychain) {} }
        #expect(read(gateway, NoPrompt()).failure == .interactionNotAllowed)
        let answers = Answers([.allowOnce])
        #expect(read(gateway, answers, ui: .fail).failure == .interactionNotAllowed)
        #expect(read(gateway, answers, ui: .skip).success?.isEmpty == true)
        #expect(answers.count == 0)
    }
}

extension Result {
    fileprivate var success: Success? { if case .success(let value) = self { value } else { nil } }
    fileprivate var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
