public import Foundation
internal import KeychainCore

/// The attributes of one stored item, without its secret.
///
/// Returned by ``Keychain/allItems()-7jjmg`` and in a ``MigrationReport``. Nothing here is secret; the
/// ``key`` (account) is, however, personal data: log it with care.
public struct KeychainItem: Sendable, Hashable {
    /// The item's key (`kSecAttrAccount`).
    public let key: String
    /// The generic-password service (`kSecAttrService`), or `nil` for an internet password.
    public let service: String?
    /// The internet-password server (`kSecAttrServer`), or `nil` for a generic password.
    public let server: String?
    /// The access group the item lives in (`kSecAttrAccessGroup`).
    public let accessGroup: String
    /// When the secret can be read (`kSecAttrAccessible`).
    public let accessibility: Accessibility
    /// Whether the item is synchronizable (`kSecAttrSynchronizable`).
    public let isSynchronizable: Bool
    /// The user-visible label (`kSecAttrLabel`), if any.
    public let label: String?
    /// The comment (`kSecAttrComment`), if any.
    public let comment: String?
    /// When the item was created (`kSecAttrCreationDate`).
    public let creationDate: Date?
    /// When the item was last changed (`kSecAttrModificationDate`).
    public let modificationDate: Date?

    // MARK: - Internal

    init(_ record: StoredItem) {
        let attributes = record.attributes
        key = Self.text(attributes[.account]) ?? ""
        service = record.itemClass == .genericPassword ? Self.text(attributes[.service]) ?? "" : nil
        server = record.itemClass == .internetPassword ? Self.text(attributes[.server]) ?? "" : nil
        accessGroup = record.accessGroup
        accessibility = Accessibility(record.protection)
        if case .bool(let flag)? = attributes[.synchronizable] {
            isSynchronizable = flag
        } else {
            isSynchronizable = false
        }
        label = Self.text(attributes[.label])
        comment = Self.text(attributes[.comment])
        creationDate = Self.date(attributes[.creationDate])
        modificationDate = Self.date(attributes[.modificationDate])
    }

    /// A date attribute as Foundation's `Date` (the engine's `AbsoluteTime` counts from the same
    /// reference date), or `nil` when it is not a date.
    static func date(_ value: AttributeValue?) -> Date? {
        guard case .date(let time)? = value else { return nil }
        return Date(timeIntervalSinceReferenceDate: time.secondsSinceReferenceDate)
    }

    /// A string attribute, or a `Data` one read as UTF-8 (Apple keeps the type an attribute was stored with).
    static func text(_ value: AttributeValue?) -> String? {
        switch value {
        case .string(let string)?: string
        case .data(let data)?: String(decoding: data, as: UTF8.self)
        default: nil
        }
    }
}
