/// A typed search: which items a copy, update or delete acts on.
package struct ItemQuery: Sendable {
    /// The class searched.
    package var itemClass: ItemClass
    /// Attribute filters by raw name (exact, byte-wise match). `agrp`, `sync` and `pdmn` go in the
    /// dedicated fields below, not here.
    package var filters: [String: AttributeValue]
    /// The access groups searched: built only by ``ItemGateway`` (``ItemGateway/searchScope(named:)``,
    /// ``ItemGateway/callerScope``), every group only for the management identity.
    package var scope: GroupScope
    /// Items of this synchronizable state: `.no` (Apple's implicit default), `.yes`, or `.any` for both
    /// (`kSecAttrSynchronizableAny`).
    package var synchronizable: Synchronizable
    /// Only items of this protection class, when set.
    package var protection: ProtectionClass?
    /// Only the item with this persistent reference, when set.
    package var persistentRef: [UInt8]?
    /// At most this many results; `nil` for all.
    package var limit: Int?

    package init(
        itemClass: ItemClass, filters: [String: AttributeValue] = [:], scope: GroupScope,
        synchronizable: Synchronizable = .no, protection: ProtectionClass? = nil, persistentRef: [UInt8]? = nil,
        limit: Int? = nil
    ) {
        self.itemClass = itemClass
        self.filters = filters
        self.scope = scope
        self.synchronizable = synchronizable
        self.protection = protection
        self.persistentRef = persistentRef
        self.limit = limit
    }
}

/// What a search returns for each item.
package struct ItemProjection: Sendable, OptionSet {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }
    /// Decrypt and return the attributes.
    package static let attributes = ItemProjection(rawValue: 1)
    /// Decrypt and return the secret.
    package static let secret = ItemProjection(rawValue: 2)
    /// Decrypt the attributes only to return the access control (`accc`), when the item has one: what
    /// a read of the secret needs to decide whether it may be returned. Implied by ``attributes``.
    package static let accessControl = ItemProjection(rawValue: 4)
    /// With ``attributes``: hand out an item record (`docs/RECORD-FORMAT.md`) as its opened bytes
    /// (``StoredItem/record``) instead of decoding it into ``StoredItem/attributes``, which then holds only
    /// `pdmn`, `accc` and `tapp` (what releasing a secret and an access control object need). For a caller
    /// that makes its own objects from the record in one pass (``ItemRecordFormat/forEachEntry(in:_:)``):
    /// SecItem's result dictionaries. Items in the legacy format, and searches with filters that only the
    /// decoded attributes can check, are decoded as without it.
    package static let record = ItemProjection(rawValue: 8)
}
