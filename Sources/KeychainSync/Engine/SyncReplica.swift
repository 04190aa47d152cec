package import KeychainCore

/// What the protocol needs of a keychain: the store side of sync (`Sources/KeychainCore/Sync/`), which
/// ``Keystore`` provides. A protocol so the engine's tests can also run against a stand-in.
package protocol SyncReplica: AnyObject {
    func syncDeviceID() throws(KeychainFailure) -> SyncDeviceID
    func syncChanges(after serial: UInt64, limit: Int) throws(KeychainFailure) -> (
        changes: [SyncChange], through: UInt64
    )
    func applySyncChanges(_ changes: [SyncChange]) throws(KeychainFailure) -> SyncApplyReport
    func syncConflicts() throws(KeychainFailure) -> [SyncConflict]
    /// How many received changes wait for a newer build (``Keystore/waitingSyncChangeCount()``).
    func waitingSyncChangeCount() throws(KeychainFailure) -> Int
    func resolveSyncConflict(_ copy: SyncItemID, keep: SyncConflictChoice) throws(KeychainFailure)
    func syncSecret(named name: String) throws(KeychainFailure) -> SecureBytes?
    func setSyncSecret(_ value: SecureBytes?, named name: String) throws(KeychainFailure)
    func syncState(named name: String) throws(KeychainFailure) -> [UInt8]?
    func setSyncState(_ value: [UInt8]?, named name: String) throws(KeychainFailure)
}

extension Keystore: SyncReplica {}

extension SyncReplica {
    /// None: a replica that stores no waiting changes (the tests' in-memory one).
    package func waitingSyncChangeCount() throws(KeychainFailure) -> Int { 0 }
}
