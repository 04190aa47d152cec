/// One keychain item as the engine hands it out.
package struct StoredItem: Sendable {
    package var itemClass: ItemClass
    /// Every stored attribute by raw name, including `agrp`, `sync`, `pdmn`, `cdat` and `mdat`,
    /// and every primary-key attribute (filled with its default when it was not given).
    package var attributes: [String: AttributeValue]
    /// Opaque, stable across processes: the class's 4 raw bytes and 16 random bytes.
    package var persistentRef: [UInt8]
    /// The secret (`kSecValueData`), present only when it was asked for.
    package var secret: SecureBytes?

    /// The opened item record (`docs/RECORD-FORMAT.md`) when the search asked for it
    /// (``ItemProjection/record``): every attribute is there, and ``attributes`` holds only `pdmn`, `accc`
    /// and `tapp`. `nil` otherwise: then ``attributes`` holds them all.
    package var record: [UInt8]?

    package init(
        itemClass: ItemClass, attributes: [String: AttributeValue], persistentRef: [UInt8], secret: SecureBytes?,
        record: [UInt8]? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.persistentRef = persistentRef
        self.secret = secret
        self.record = record
    }

    /// The protection class stored with the item.
    package var protection: ProtectionClass {
        ProtectionClass(attribute: attributes[.accessible]) ?? .whenUnlocked
    }

    /// The item's access group.
    package var accessGroup: String {
        attributes.string(.accessGroup) ?? ""
    }
}
