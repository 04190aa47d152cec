/// The kinds of sealed row a keychain file holds: SecItem items (`items`, ``ItemRow``) and
/// freedesktop Secret Service items (`ss_items`, ``SecretItemSchema``), and the sync journal's rows
/// (`sync_items`, `sync_conflicts`, `sync_state`, ``SyncSchema``), which are not items but carry tags the same way.
///
/// What differs per kind is answered by an exhaustive `switch` here, so a new kind does not compile
/// until each answer (its table, its integrity accumulator) is given, and every feature written over
/// `RowKind.allCases` (flushing the accumulators, checking them) covers it. `package`, so that the tools'
/// own per-kind paths (`security dump-keychain`) switch over it too.
///
/// The paths that switch over it: integrity (``Keystore/verifyIntegrity()``), backups, the accumulators,
/// a password change or removal (``StoreSession/rekeyRows(_:passwordRemoved:)``), keychain deletion
/// (``Keystore/releaseBeforeDeletion()``) and `dump-keychain`.
package enum RowKind: CaseIterable, Sendable {
    case secItem
    case secretService
    case sync

    /// The table the rows live in.
    var table: String {
        switch self {
        case .secItem: "items"
        case .secretService: SecretItemSchema.itemsTable
        case .sync: SyncSchema.itemsTable
        }
    }

    /// The `meta` entry holding the XOR of every row's tag (``IntegrityAccumulator``).
    var accumulatorMeta: String {
        switch self {
        case .secItem: "accumulator"
        case .secretService: SecretItemSchema.accumulatorMeta
        case .sync: SyncSchema.accumulatorMeta
        }
    }
}
