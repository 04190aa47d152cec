internal import KeychainCore
internal import KeychainToolSupport

/// Prints an item as macOS `security` does (`print_keychain_item_attributes` in Apple's
/// `keychain_utilities.c`): the keychain path, `version: 512`, the class, and one line per
/// attribute of the class's CSSM record in Apple's order, `<NULL>` for attributes without a value.
///
/// `0x00000007` is the label (PrintName) and `0x00000008` the alias, which Apple prints by number.
/// Attributes this keychain does not keep (`cusi`, `prot`, `scrp`, the alias) print as `<NULL>`.
///
/// A synchronizable item (`kSecAttrSynchronizable`, issue 26) also shows `"sync"<uint32>=0x00000001` in
/// the attribute's alphabetical place, before `"type"`: macOS's file keychains have no such attribute (their
/// `security` never prints it), while the SecItem-side `security item` of Apple's tool
/// (`keychain_find.m`, `display_item`) lists `sync : 1` among the item's attributes. Other items print as
/// before.
enum ItemPrinter {
    private enum Format: String {
        case blob = "<blob>", uint32 = "<uint32>", sint32 = "<sint32>", timedate = "<timedate>"
    }

    private static let genericLayout: [(tag: String, name: String?, format: Format)] = [
        ("0x00000007 ", "labl", .blob), ("0x00000008 ", nil, .blob), ("\"acct\"", "acct", .blob),
        ("\"cdat\"", "cdat", .timedate), ("\"crtr\"", "crtr", .uint32), ("\"cusi\"", nil, .sint32),
        ("\"desc\"", "desc", .blob), ("\"gena\"", "gena", .blob), ("\"icmt\"", "icmt", .blob),
        ("\"invi\"", "invi", .sint32), ("\"mdat\"", "mdat", .timedate), ("\"nega\"", "nega", .sint32),
        ("\"prot\"", nil, .blob), ("\"scrp\"", nil, .sint32), ("\"svce\"", "svce", .blob),
        ("\"type\"", "type", .uint32),
    ]

    private static let internetLayout: [(tag: String, name: String?, format: Format)] = [
        ("0x00000007 ", "labl", .blob), ("0x00000008 ", nil, .blob), ("\"acct\"", "acct", .blob),
        ("\"atyp\"", "atyp", .blob), ("\"cdat\"", "cdat", .timedate), ("\"crtr\"", "crtr", .uint32),
        ("\"cusi\"", nil, .sint32), ("\"desc\"", "desc", .blob), ("\"icmt\"", "icmt", .blob),
        ("\"invi\"", "invi", .sint32), ("\"mdat\"", "mdat", .timedate), ("\"nega\"", "nega", .sint32),
        ("\"path\"", "path", .blob), ("\"port\"", "port", .uint32), ("\"prot\"", nil, .blob),
        ("\"ptcl\"", "ptcl", .uint32), ("\"scrp\"", nil, .sint32), ("\"sdmn\"", "sdmn", .blob),
        ("\"srvr\"", "srvr", .blob), ("\"type\"", "type", .uint32),
    ]

    /// The attribute block of `item` in keychain `path`, ending with a newline.
    static func attributes(of item: StoredItem, keychainPath: String) -> String {
        var text = "keychain: " + AppleFormat.buffer(Array(keychainPath.utf8)) + "\n"
        text += "version: 512\n"
        text += "class: " + AppleFormat.buffer(Array(item.itemClass.rawValue.utf8)) + "\n"
        text += "attributes:\n"
        let layout = item.itemClass == .genericPassword ? genericLayout : internetLayout
        for entry in layout {
            if entry.name == "type", isSynchronizable(item) {
                text += "    \"sync\"<uint32>=" + AppleFormat.uint32(1) + "\n"
            }
            text += "    " + entry.tag + entry.format.rawValue + "="
            text += value(entry.name.flatMap { item.attributes[$0] }, entry.name, entry.format)
            text += "\n"
        }
        return text
    }

    private static func isSynchronizable(_ item: StoredItem) -> Bool {
        switch item.attributes["sync"] {
        case .bool(let flag): return flag
        case .integer(let number): return number != 0
        default: return false
        }
    }

    private static func value(_ value: AttributeValue?, _ name: String?, _ format: Format) -> String {
        guard let value else { return "<NULL>" }
        switch (format, value) {
        case (.timedate, .date(let date)):
            return AppleFormat.buffer(AppleFormat.timeDate(date))
        case (.uint32, .integer(let number)):
            if name != "port" && number == 0 { return "<NULL>" }
            return AppleFormat.uint32(UInt32(truncatingIfNeeded: number))
        case (.uint32, _):
            // The protocol is kept as its four-character string; macOS stores the code.
            let bytes = value.matchBytes
            if bytes.isEmpty { return AppleFormat.uint32(0) }
            return AppleFormat.buffer(bytes)
        case (.sint32, .bool(let flag)):
            return flag ? AppleFormat.uint32(1) : "<NULL>"
        case (.sint32, .integer(let number)):
            return number == 0 ? "<NULL>" : AppleFormat.uint32(UInt32(truncatingIfNeeded: number))
        case (.blob, _):
            let bytes = value.matchBytes
            if bytes.isEmpty { return name == "atyp" ? AppleFormat.uint32(0) : "<NULL>" }
            return AppleFormat.buffer(bytes)
        default:
            return AppleFormat.buffer(value.matchBytes)
        }
    }
}
