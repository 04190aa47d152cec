#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Turns items into sealed rows and back.
///
/// Per item: a fresh 256-bit item key seals the attributes and the secret separately
/// (XChaCha20-Poly1305); the item key is wrapped by its protection class key. The associated
/// data of all three binds the row: keychain id, persistent ref, class, protection class,
/// synchronizable flag and every digest column, so that editing any column, or moving a
/// ciphertext to another row, fails authentication and is reported as `errSecDecode`.
struct ItemCodec {
    let keychainID: [UInt8]
    let indexKey: SecureBytes

    /// The digest columns of an item.
    struct Digests: Equatable {
        var accessGroup: [UInt8]
        var primaryKey: [UInt8]
        var account: [UInt8]
        /// `svce` for generic passwords, `srvr` for internet passwords.
        var name: [UInt8]
    }

    enum Part: UInt8 { case key = 1, attributes = 2, secret = 3 }

    /// The attribute whose digest is in the `name` column.
    static func nameAttribute(_ itemClass: ItemClass) -> String {
        itemClass == .genericPassword ? "svce" : "srvr"
    }

    static func classCode(_ itemClass: ItemClass) -> Int64 { itemClass == .genericPassword ? 1 : 2 }

    static func itemClass(code: Int64) -> ItemClass? {
        switch code {
        case 1: .genericPassword
        case 2: .internetPassword
        default: nil
        }
    }

    /// 16-byte keyed digest of one attribute value, for the indexed columns.
    func digest(_ attribute: String, _ value: AttributeValue) -> [UInt8] {
        var message = Array(attribute.utf8)
        message.append(0)
        message += value.matchBytes
        return Sodium.keyedHash(message, key: indexKey, length: 16)
    }

    /// 32-byte keyed digest of the class and its whole primary key, in schema order.
    func primaryKeyDigest(_ itemClass: ItemClass, _ attributes: [String: AttributeValue]) -> [UInt8] {
        var message = Array(itemClass.rawValue.utf8)
        for descriptor in itemClass.primaryKey {
            let bytes = (attributes[descriptor.name] ?? descriptor.defaultValue).matchBytes
            message += Array(descriptor.name.utf8)
            message += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init)
            message += bytes
        }
        return Sodium.keyedHash(message, key: indexKey, length: 32)
    }

    func digests(_ itemClass: ItemClass, _ attributes: [String: AttributeValue]) -> Digests {
        let name = Self.nameAttribute(itemClass)
        return Digests(
            accessGroup: digest("agrp", attributes["agrp"] ?? .string("")),
            primaryKey: primaryKeyDigest(itemClass, attributes),
            account: digest("acct", attributes["acct"] ?? .string("")),
            name: digest(name, attributes[name] ?? .string("")))
    }

    func associatedData(
        _ part: Part, persistentRef: [UInt8], itemClass: ItemClass, protection: ProtectionClass, sync: Bool,
        digests: Digests
    ) -> [UInt8] {
        var ad: [UInt8] = Array("swkc.item.v1".utf8)
        ad.append(part.rawValue)
        ad += keychainID
        ad += persistentRef
        ad.append(UInt8(Self.classCode(itemClass)))
        ad.append(UInt8(protection.code))
        ad.append(sync ? 1 : 0)
        ad += digests.accessGroup
        ad += digests.primaryKey
        ad += digests.account
        ad += digests.name
        return ad
    }

    /// 32-byte keyed tag of a whole row as stored (every column but rowid and tag), for the accumulator.
    func rowTag(_ columns: [SQLValue]) -> [UInt8] {
        var message = Array("swkc.row.v1".utf8)
        for column in columns {
            let bytes: [UInt8]
            switch column {
            case .null: bytes = []
            case .integer(let value): bytes = withUnsafeBytes(of: value.bigEndian, Array.init)
            case .blob(let value): bytes = value
            case .text(let value): bytes = Array(value.utf8)
            }
            message += withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init)
            message += bytes
        }
        return Sodium.keyedHash(message, key: indexKey, length: 32)
    }

    /// The binary plist of `attributes` that `PropertyListDecoder` reads (see ``AttributePlistWriter``).
    static func encodeAttributes(_ attributes: [String: AttributeValue]) -> [UInt8] {
        AttributePlistWriter.encode(attributes)
    }

    static func decodeAttributes(_ bytes: [UInt8]) -> [String: AttributeValue]? {
        // Fast path for the shape encodeAttributes writes; anything else goes through PropertyListDecoder.
        if let attributes = AttributePlistReader.decode(bytes) { return attributes }
        return try? PropertyListDecoder().decode([String: AttributeValue].self, from: Data(bytes))
    }
}
