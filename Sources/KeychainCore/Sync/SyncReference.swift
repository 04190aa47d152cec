/// What a sync journal entry's `persistref` column names on this device, for each kind of item that syncs: a
/// SecItem row by its persistent reference (a four-letter class code and 16 random bytes: 20 bytes), or a Secret
/// Service item by its number (`ssit` ‖ number, u64 big-endian: 12 bytes, which no persistent reference is).
///
/// Every place that follows a journal entry to its item switches over this, so a new kind of item that syncs does
/// not compile until each says how it is read, written and deleted.
enum SyncReference: Equatable {
    /// A SecItem row (`items.persistref`).
    case item([UInt8])
    /// A Secret Service item (`ss_items.id`).
    case secretItem(Int64)

    private static let secretItemPrefix: [UInt8] = Array("ssit".utf8)

    /// The reference stored as `bytes`.
    init(_ bytes: [UInt8]) {
        if bytes.count == Self.secretItemPrefix.count + 8, bytes.starts(with: Self.secretItemPrefix) {
            self = .secretItem(bytes.dropFirst(Self.secretItemPrefix.count).reduce(0) { $0 << 8 | Int64($1) })
        } else {
            self = .item(bytes)
        }
    }

    /// The bytes stored in `sync_items.persistref`.
    var bytes: [UInt8] {
        switch self {
        case .item(let persistentRef): persistentRef
        case .secretItem(let number): Self.secretItemPrefix + withUnsafeBytes(of: number.bigEndian, Array.init)
        }
    }
}
