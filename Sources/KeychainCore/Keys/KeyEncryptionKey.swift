/// A key-encryption key of one keybag slot: ``DeviceKEK``, ``PasscodeKEK`` or ``MigrationKEK``.
///
/// The slot a key wraps into, or unwraps from, follows from its type, so a KEK cannot be used with
/// another slot's rows (``Keybag/store(_:entry:kek:in:keychainID:)``, ``Keybag/unwrap(kek:in:keychainID:failure:)``).
protocol KeyEncryptionKey: Sendable {
    /// The slot whose rows this kind of KEK wraps.
    static var slot: Keybag.Slot { get }
    /// The key's 32 bytes.
    var bytes: SecureBytes { get }
}

extension DeviceKEK: KeyEncryptionKey {
    static var slot: Keybag.Slot { .device }
}

extension PasscodeKEK: KeyEncryptionKey {
    static var slot: Keybag.Slot { .passcode }
}

extension MigrationKEK: KeyEncryptionKey {
    static var slot: Keybag.Slot { .migration }
}
