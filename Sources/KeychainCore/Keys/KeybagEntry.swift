/// One key of the keybag (the `keybag` table's `entry` column): the index key, or the class key of
/// one protection class.
///
/// The stored numbers are permanent: 0 for the index key, ``ProtectionClass/code`` (1…7) for the
/// class keys. They are bound into each wrapped row's associated data, name the keys set aside by an
/// adoption in `meta`, and number the class keys in the kernel keyring's payload (``ClassKeyStore``).
enum KeybagEntry: Hashable, Sendable, CustomStringConvertible {
    /// The index key (``IndexKey``): entry 0.
    case index
    /// The class key (``ClassKey``) of one protection class: entry ``ProtectionClass/code``.
    case classKey(ProtectionClass)

    /// Every entry a keychain has, index key first.
    static let all: [KeybagEntry] = [.index] + ProtectionClass.allCases.map(KeybagEntry.classKey)

    /// The stored number.
    var code: Int64 {
        switch self {
        case .index: 0
        case .classKey(let protection): protection.code
        }
    }

    /// The entry stored as `code`, or `nil` for a number this build does not know.
    init?(code: Int64) {
        if code == 0 {
            self = .index
        } else if let protection = ProtectionClass(code: code) {
            self = .classKey(protection)
        } else {
            return nil
        }
    }

    /// The protection class of a class-key entry; `nil` for the index key.
    var protection: ProtectionClass? {
        switch self {
        case .index: nil
        case .classKey(let protection): protection
        }
    }

    var description: String { "\(code)" }

    /// The class keys among unwrapped keybag entries, typed.
    static func classKeys(_ entries: [KeybagEntry: SecureBytes]) -> [ProtectionClass: ClassKey] {
        var keys: [ProtectionClass: ClassKey] = [:]
        for (entry, bytes) in entries {
            if let protection = entry.protection { keys[protection] = ClassKey(bytes) }
        }
        return keys
    }
}
