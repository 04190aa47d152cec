internal import Glibc
package import KeychainCore

/// The sync protocol over one keychain (docs/SYNC.md): device keys and trust, reading and verifying the other
/// devices' logs, merging through the store (``SyncReplica/applySyncChanges(_:)``), writing this device's own.
///
/// Every call is one short run, as `security sync …` makes it: state lives in the keychain (`syncState`,
/// `syncSecret`) and in the remote, never in the engine.
package final class SyncEngine {
    // State names in the keychain (docs/SYNC.md, "Local state").
    static let remoteName = "sync.remote"
    static let trustName = "sync.trust"
    static let removedName = "sync.removed"
    static let joiningName = "sync.joining"
    static let lastSyncName = "sync.last"
    static let enabledName = Keystore.secretItemSyncStateName
    static let signingSeedName = "sync.device-sign-key"
    static let boxSecretName = "sync.device-box-key"

    /// The largest body one segment carries before the changes go on in the next (1 MiB).
    package static let segmentBodyLimit = 1 << 20

    let replica: any SyncReplica
    let environment: [String: String]
    /// Reports progress lines of a long ``syncNow()`` (a first sync, join or push of a large keychain): `applying
    /// segment I of N from DEVICE` for each segment of a device that sent several, `sealed N local changes in N
    /// segments so far` after each full batch of ``changesPerBatch`` local changes, and `pushing N segments (N bytes)`;
    /// nil: silent. The caller decides where they go and how often (`security sync` prints them on a terminal only).
    package var progress: ((String) -> Void)?
    /// Called between steps of ``syncNow()`` with the step's name (`fetched`, `merged`, `committed`,
    /// `written`, `pushed`); a throw stops the run there, as a crash would, so tests can check the next run.
    package var step: ((String) throws(SyncError) -> Void)?

    package init(replica: any SyncReplica, environment: [String: String]) {
        self.replica = replica
        self.environment = environment
    }

    // MARK: - Identity

    /// This keychain's device id.
    package func deviceID() throws(SyncError) -> SyncDeviceID {
        do { return try replica.syncDeviceID() } catch { throw SyncError(error, while: "reading this device's id") }
    }

    /// The device's secret seeds, made on first use.
    func deviceSeeds() throws(SyncError) -> (signing: SecureBytes, box: SecureBytes) {
        do throws(KeychainFailure) {
            let signing = try seed(named: Self.signingSeedName)
            let box = try seed(named: Self.boxSecretName)
            guard signing.count == SyncCrypto.seedBytes, box.count == SyncCrypto.seedBytes else {
                throw KeychainFailure(.decode, "the device's sync keys are damaged")
            }
            return (signing, box)
        } catch { throw SyncError(error, while: "reading this device's sync keys") }
    }

    private func seed(named name: String) throws(KeychainFailure) -> SecureBytes {
        if let seed = try replica.syncSecret(named: name) { return seed }
        let seed = SecureBytes.random(count: SyncCrypto.seedBytes)
        try replica.setSyncSecret(seed, named: name)
        return seed
    }

    /// This device as the trust list lists it.
    func thisDevice() throws(SyncError) -> SyncTrustedDevice {
        let seeds = try deviceSeeds()
        return SyncTrustedDevice(
            id: try deviceID(), signingKey: SyncCrypto.signingPublicKey(seed: seeds.signing),
            boxKey: SyncCrypto.boxPublicKey(secret: seeds.box), name: Self.hostName())
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "device" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: - Remote

    /// The remote this keychain syncs with, or nil before init/join.
    package func remoteURL() throws(SyncError) -> String? {
        try state(Self.remoteName).map { String(decoding: $0, as: UTF8.self) }
    }

    /// `url` as the remote is stored: a local path made absolute and normalised
    /// (``FileSystem/absolutePath(_:currentDirectory:)``), as keychain paths are, so that it names the same
    /// folder or repository from wherever `sync now` runs later (a relative `../sync.git`, or
    /// `/home/u/t/sub/../sync.git`, would stop working once `sub` moves); a URL or an scp-style
    /// `user@host:path` as given.
    ///
    /// Local is told apart as git does (`url_is_local_not_ssh`, git's connect.c): no `:`, or a `/` before the
    /// first `:` (`./a:b` and `/x/y:z` are paths; `host:repo.git`, `user@host:path` and `https://…` are not).
    /// - Parameters:
    ///   - url: the remote as given to `security sync init` or `join`.
    ///   - currentDirectory: the folder a relative path is taken from; the process's current folder by default.
    /// - Returns: the absolute normalised path for a local path; `url` otherwise (also when it is empty).
    package static func storedRemote(_ url: String, currentDirectory: String? = nil) -> String {
        guard !url.isEmpty else { return url }
        // A URL's scheme ends at a `:` before any `/`, as an scp-style host does.
        if let colon = url.firstIndex(of: ":"), url.firstIndex(of: "/").map({ $0 > colon }) ?? true { return url }
        return FileSystem.absolutePath(url, currentDirectory: currentDirectory)
    }

    /// The transport for `url`: a folder for a plain directory, git for anything else (ssh, https, file://,
    /// a path to a git repository).
    package func transport(for url: String) throws(SyncError) -> any SyncTransport {
        if url.hasPrefix("/"), FileSystem.exists(url), !FileSystem.exists(url + "/HEAD"),
            !FileSystem.exists(url + "/.git")
        {
            return FolderTransport(root: url)
        }
        let device = try deviceID()
        return GitTransport(
            url: url, clone: GitTransport.clonePath(device: device, environment: environment), device: device,
            environment: environment)
    }

    func configuredTransport() throws(SyncError) -> any SyncTransport {
        guard let url = try remoteURL() else {
            throw SyncError(.state, "this keychain does not sync: run security sync init URL or security sync join URL")
        }
        return try transport(for: url)
    }

    // MARK: - State helpers

    func state(_ name: String) throws(SyncError) -> [UInt8]? {
        do { return try replica.syncState(named: name) } catch { throw SyncError(error, while: "reading sync state") }
    }

    func setState(_ value: [UInt8]?, _ name: String) throws(SyncError) {
        do { try replica.setSyncState(value, named: name) } catch { throw SyncError(error, while: "saving sync state") }
    }

    func localState() throws(SyncError) -> SyncLocalState {
        guard let bytes = try state(SyncLocalState.name) else { return SyncLocalState() }
        do { return try SyncLocalState(decoding: bytes) } catch {
            throw SyncError(.keychain(.decode), "this keychain's sync state is damaged: \(error)")
        }
    }

    func seenLogs() throws(SyncError) -> SyncSeenLogs {
        guard let bytes = try state(SyncSeenLogs.name) else { return SyncSeenLogs() }
        do { return try SyncSeenLogs(decoding: bytes) } catch {
            throw SyncError(.keychain(.decode), "this keychain's sync state is damaged: \(error)")
        }
    }

    func keyRing() throws(SyncError) -> SyncKeyRing {
        do {
            guard let secret = try replica.syncSecret(named: SyncKeyRing.name) else { return SyncKeyRing() }
            return try SyncKeyRing(decoding: secret)
        } catch let failure as KeychainFailure {
            throw SyncError(failure, while: "reading the sync keys")
        } catch {
            throw SyncError(.keychain(.decode), "the sync keys are damaged")
        }
    }

    func saveKeyRing(_ ring: SyncKeyRing) throws(SyncError) {
        do { try replica.setSyncSecret(ring.encoded, named: SyncKeyRing.name) } catch {
            throw SyncError(error, while: "saving the sync keys")
        }
    }

    /// The trust list this device accepted last, or nil before init/join.
    func pinnedTrust() throws(SyncError) -> SyncTrustList? {
        guard let bytes = try state(Self.trustName) else { return nil }
        do { return try SyncTrustList(decoding: bytes) } catch {
            throw SyncError(.keychain(.decode), "this keychain's trust list is damaged: \(error)")
        }
    }

    /// Unix time in milliseconds.
    package static func nowMilliseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1000 + UInt64(time.tv_nsec) / 1_000_000
    }

    static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
