import Foundation
import Testing

@testable import KeychainCore

/// Entitlements property lists read with libplist (tracker issue 23): every outcome of Foundation's
/// `PropertyListDecoder`, which read them before, in XML and binary, with the same messages.
@Suite("Entitlements property lists")
struct EntitlementsPlistTests {
    static let invalid = "the entitlements file is not a valid entitlements property list"

    static var full: [String: Any] {
        [
            "keychain-access-groups": ["$(AppIdentifierPrefix)shared", "TEAM1.second"],
            "application-identifier": "TEAM1.com.example.app",
            "com.apple.security.application-groups": ["group.com.example"],
            "com.apple.developer.other": 7,
        ]
    }

    /// What the engine decoded with Foundation's `PropertyListDecoder` before (the reference).
    struct FoundationEntitlements: Decodable {
        var applicationIdentifier: String?
        var keychainAccessGroups: [String]?
        var applicationGroups: [String]?

        enum CodingKeys: String, CodingKey {
            case applicationIdentifier = "application-identifier"
            case keychainAccessGroups = "keychain-access-groups"
            case applicationGroups = "com.apple.security.application-groups"
        }
    }

    static func plist(_ value: Any, _ format: PropertyListSerialization.PropertyListFormat) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(fromPropertyList: value, format: format, options: 0))
    }

    /// The detail of the failure `bytes` give, or `nil` when they parse.
    static func failure(_ bytes: [UInt8]) -> KeychainFailure? {
        do {
            _ = try ApplicationIdentity(entitlementsPlist: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("XML and binary lists give the three keys in Apple's order; other keys are ignored")
    func bothFormats() throws {
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let bytes = try Self.plist(Self.full, format)
            let identity = try ApplicationIdentity(entitlementsPlist: bytes)
            let reference = try PropertyListDecoder().decode(FoundationEntitlements.self, from: Data(bytes))
            #expect(
                identity
                    == ApplicationIdentity(
                        applicationIdentifier: reference.applicationIdentifier,
                        keychainAccessGroups: reference.keychainAccessGroups ?? [],
                        applicationGroups: reference.applicationGroups ?? []))
            #expect(
                identity.accessGroups == ["TEAM1.shared", "TEAM1.second", "TEAM1.com.example.app", "group.com.example"])
        }
    }

    @Test("an Xcode .entitlements file (doctype, comments, entities, non-ASCII) reads as Foundation read it")
    func xcodeFile() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <!-- made by Xcode -->
            <dict>
            \t<key>keychain-access-groups</key>
            \t<array>
            \t\t<string>$(AppIdentifierPrefix)a&amp;b</string>
            \t\t<string>TEAM1.ünï</string>
            \t</array>
            \t<key>application-identifier</key>
            \t<string>TEAM1.com.example.app</string>
            \t<key>com.apple.security.application-groups</key>
            \t<array/>
            </dict>
            </plist>

            """
        let ours = try ApplicationIdentity(entitlementsPlist: Array(text.utf8))
        #expect(ours.accessGroups == ["TEAM1.a&b", "TEAM1.ünï", "TEAM1.com.example.app"])
        let decoded = try #require(
            try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: Any])
        #expect((decoded["keychain-access-groups"] as? [String])?.first == "$(AppIdentifierPrefix)a&b")
    }

    @Test("a list without any of the keys gives no access groups; an empty dictionary too")
    func noKeys() throws {
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            #expect(
                try ApplicationIdentity(entitlementsPlist: try Self.plist(["other": true], format)).accessGroups == [])
            #expect(
                try ApplicationIdentity(entitlementsPlist: try Self.plist([String: Any](), format)).accessGroups == [])
        }
    }

    @Test("a key of the wrong type, or a top level that is not a dictionary, is refused with the same message")
    func wrongTypes() throws {
        let values: [Any] = [
            ["application-identifier": 5], ["application-identifier": ["TEAM1.app"]],
            ["keychain-access-groups": "TEAM1.shared"], ["keychain-access-groups": ["TEAM1.shared", 3]],
            ["com.apple.security.application-groups": [Data([1])]], ["keychain-access-groups": [["nested"]]],
            ["TEAM1.shared"], "a string",
        ]
        for value in values {
            for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
                let bytes = try Self.plist(value, format)
                #expect(throws: (any Error).self) {
                    _ = try PropertyListDecoder().decode(FoundationEntitlements.self, from: Data(bytes))
                }
                let failure = Self.failure(bytes)
                #expect(failure?.status == .missingEntitlement, "\(value) \(format)")
                #expect(failure?.detail == Self.invalid, "\(value) \(format)")
            }
        }
    }

    @Test("empty, garbage and every truncation of a list are refused with the same message")
    func malformed() throws {
        #expect(Self.failure([])?.detail == Self.invalid)
        #expect(Self.failure(Array("not a property list".utf8))?.detail == Self.invalid)
        #expect(Self.failure(Array("<plist><dict><key>a</key><string>b</dict></plist>".utf8))?.detail == Self.invalid)
        let whole = try ApplicationIdentity(entitlementsPlist: try Self.plist(Self.full, .binary))
        for format in [PropertyListSerialization.PropertyListFormat.xml, .binary] {
            let bytes = try Self.plist(Self.full, format)
            // libplist 2.2 stops reading XML at the end of the root value: a cut inside the closing
            // `</plist>` (which Foundation refused) loses nothing and reads whole. Every other cut is refused.
            let closing = Array("</dict>".utf8)
            let rootEnd =
                format == .xml
                ? try #require((0...(bytes.count - closing.count)).last { bytes[$0...].starts(with: closing) })
                    + closing.count
                : bytes.count
            for length in 0..<bytes.count {
                let failure = Self.failure(Array(bytes.prefix(length)))
                if length >= rootEnd {
                    #expect(failure == nil, "\(format) length \(length)")
                    #expect(try ApplicationIdentity(entitlementsPlist: bytes.prefix(length)) == whole)
                    continue
                }
                #expect(failure?.status == .missingEntitlement, "\(format) length \(length)")
                #expect(failure?.detail == Self.invalid, "\(format) length \(length)")
            }
        }
    }

    @Test(
        "an XML key without a value at the end of a dictionary is dropped by libplist 2.2 (Foundation refused the list)"
    )
    func keyWithoutValue() throws {
        // Fewer groups, never more; a key followed by another key is refused.
        let text =
            "<plist><dict><key>application-identifier</key><string>T.app</string><key>keychain-access-groups</key></dict></plist>"
        let refused = "<plist><dict><key>keychain-access-groups</key><key>application-identifier</key></dict></plist>"
        #expect(Self.failure(Array(refused.utf8))?.detail == Self.invalid)
        #expect(throws: (any Error).self) {
            _ = try PropertyListDecoder().decode(FoundationEntitlements.self, from: Data(text.utf8))
        }
        #expect(try ApplicationIdentity(entitlementsPlist: Array(text.utf8)).accessGroups == ["T.app"])
    }

    @Test("KEYCHAIN_ENTITLEMENTS naming a missing file or a malformed one fails with the same messages")
    func fromEnvironment() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swkc-ent-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ApplicationIdentity.fromEnvironment([:]) == .unsigned)
        #expect(try ApplicationIdentity.fromEnvironment(["KEYCHAIN_ENTITLEMENTS": ""]) == .unsigned)
        do {
            _ = try ApplicationIdentity.fromEnvironment(["KEYCHAIN_ENTITLEMENTS": folder.path + "/missing.plist"])
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.status == .missingEntitlement)
            #expect(
                error.detail
                    == "cannot read the entitlements file named by KEYCHAIN_ENTITLEMENTS, \(folder.path)/missing.plist: "
                    + "No such file or directory")
        }
        let broken = folder.appendingPathComponent("broken.entitlements")
        try Data(try Self.plist(Self.full, .xml).dropLast(20)).write(to: broken)
        do {
            _ = try ApplicationIdentity.fromEnvironment(["KEYCHAIN_ENTITLEMENTS": broken.path])
            Issue.record("a truncated file was accepted")
        } catch {
            #expect(error.detail == Self.invalid)
        }
        let good = folder.appendingPathComponent("good.entitlements")
        try Data(try Self.plist(Self.full, .binary)).write(to: good)
        #expect(try ApplicationIdentity.fromEnvironment(["KEYCHAIN_ENTITLEMENTS": good.path]).accessGroups.count == 4)
    }
}
