package import KeychainCore

/// Setting up, joining, approving and removing devices: the trust list's generations (docs/SYNC.md, "Trust").
extension SyncEngine {
    // MARK: - Package

    /// `security sync init URL`: makes a new sync group at `url` with this device as its first member and a
    /// recovery key from `passphrase`, then runs a first ``syncNow()``.
    /// - Throws: ``SyncError`` `.state` when this keychain already syncs or `url` already holds a group;
    ///   `.remote` when the remote cannot be reached (nothing is set up then).
    package func initialize(url: String, passphrase: SecureBytes, parameters: KDFParameters) throws(SyncError)
        -> SyncNowReport
    {
        let url = Self.storedRemote(url)
        if let current = try remoteURL() { throw SyncError(.state, "this keychain already syncs with \(current)") }
        let transport = try transport(for: url)
        try transport.pull()
        guard try transport.list("trust").isEmpty else {
            throw SyncError(.state, "\(url) already holds a sync group: join it with security sync join \(url)")
        }
        let me = try thisDevice()
        let seeds = try deviceSeeds()
        let key = SecureBytes.random(count: Sodium.keyBytes)
        guard let recovery = SyncRecoveryKeys.make(passphrase: passphrase, parameters: parameters) else {
            throw SyncError(.state, "the recovery passphrase could not be hashed (out of memory?)")
        }
        var list = SyncTrustList(
            generation: 1, previousHash: [UInt8](repeating: 0, count: 32), epoch: 1,
            keyCheck: SyncTrustList.keyCheck(for: key), recovery: recovery.0, devices: [me],
            envelopes: Self.envelopes(key, devices: [me], recovery: recovery.0), previousKeys: [])
        list.sign(as: .device(me.id), seed: seeds.signing)
        var ring = SyncKeyRing()
        ring.insert(key, epoch: 1)
        try saveKeyRing(ring)
        try pin(list)
        try setState(Array(url.utf8), Self.remoteName)
        try transport.write([(Self.trustPath(list, writer: me.id), list.encoded)])
        try transport.publish(message: "sync: \(me.id) starts the group")
        return try syncNow()
    }

    /// `security sync join URL`: asks to join the group at `url`; a trusted device approves with the code
    /// this returns (``approve(code:)``), and ``completeJoin()`` (or ``syncNow()``) then finishes.
    /// - Returns: the code to type on the trusted device.
    /// - Throws: ``SyncError`` `.state` when this keychain already syncs or `url` holds no group; `.remote`.
    package func requestJoin(url: String) throws(SyncError) -> String {
        let url = Self.storedRemote(url)
        if let current = try remoteURL(), try state(Self.joiningName) == nil {
            throw SyncError(.state, "this keychain already syncs with \(current)")
        }
        let transport = try transport(for: url)
        try transport.pull()
        guard !(try transport.list("trust").isEmpty) else {
            throw SyncError(.state, "\(url) holds no sync group: start one with security sync init \(url)")
        }
        let me = try thisDevice()
        let request = SyncJoinRequest(device: me, signingSeed: try deviceSeeds().signing)
        try setState(Array(url.utf8), Self.remoteName)
        try setState([1], Self.joiningName)
        try transport.write([("requests/\(me.id).req", request.encoded)])
        try transport.publish(message: "sync: \(me.id) asks to join")
        return request.code
    }

    /// Whether a join asked with ``requestJoin(url:)`` is still waiting for approval.
    package func isJoining() throws(SyncError) -> Bool { try state(Self.joiningName) != nil }

    /// Finishes a join once a trusted device approved it: adopts the trust list and the sync keys.
    /// - Returns: false while no trust list names this device yet.
    package func completeJoin() throws(SyncError) -> Bool {
        let transport = try configuredTransport()
        try transport.pull()
        let me = try thisDevice()
        let walked = try walkTrust(transport, from: nil)
        guard walked.list.device(me.id) != nil else { return false }
        try adoptKeys(walked.list)
        try pin(walked.list)
        try saveRemoved(walked.removed)
        try resumeOwnLog(transport)
        try setState(nil, Self.joiningName)
        try transport.remove(["requests/\(me.id).req"])
        try transport.publish(message: "sync: \(me.id) joined")
        return true
    }

    /// `security sync join --recovery URL`: joins with the recovery passphrase, no other device needed. The
    /// passphrase's keys must match the trust list's recovery key, which authenticates the list.
    /// - Throws: ``SyncError`` `.state` for a wrong passphrase or no group at `url`; `.verification`; `.remote`.
    package func joinWithRecovery(url: String, passphrase: SecureBytes) throws(SyncError) -> SyncNowReport {
        let url = Self.storedRemote(url)
        if let current = try remoteURL(), try state(Self.joiningName) == nil {
            throw SyncError(.state, "this keychain already syncs with \(current)")
        }
        let transport = try transport(for: url)
        try transport.pull()
        guard !(try transport.list("trust").isEmpty) else {
            throw SyncError(.state, "\(url) holds no sync group: start one with security sync init \(url)")
        }
        let walked = try walkTrust(transport, from: nil)
        let list = walked.list
        guard
            let seeds = SyncRecoveryKeys.derive(
                passphrase: passphrase, salt: list.recovery.salt, parameters: list.recovery.parameters),
            SyncCrypto.signingPublicKey(seed: seeds.signing) == list.recovery.signingKey,
            SyncCrypto.boxPublicKey(secret: seeds.box) == list.recovery.boxKey,
            let envelope = list.envelope(for: .recovery),
            let key = SyncCrypto.openSealed(envelope, secret: seeds.box),
            SyncTrustList.keyCheck(for: key) == list.keyCheck
        else { throw SyncError(.state, "wrong recovery passphrase for the sync group at \(url)") }
        var ring = try keyRing()
        ring.insert(key, epoch: list.epoch)
        try addPreviousKeys(list, key: key, to: &ring)
        try saveKeyRing(ring)
        let me = try thisDevice()
        var accepted = list
        if list.device(me.id) == nil {
            accepted = Self.successor(
                of: list, devices: list.devices + [me], epoch: list.epoch, key: key, previousKeys: list.previousKeys)
            accepted.sign(as: .recovery, seed: seeds.signing)
            try transport.write([(Self.trustPath(accepted, writer: me.id), accepted.encoded)])
        }
        try pin(accepted)
        try saveRemoved(walked.removed)
        try resumeOwnLog(transport)
        try setState(Array(url.utf8), Self.remoteName)
        try setState(nil, Self.joiningName)
        try transport.publish(message: "sync: \(me.id) joined with the recovery key")
        return try syncNow()
    }

    /// `security sync approve CODE`: adds the device whose join request shows `code`.
    /// - Returns: the device added.
    /// - Throws: ``SyncError`` `.state` when no request has that code; `.verification`; `.remote`.
    package func approve(code: String) throws(SyncError) -> SyncTrustedDevice {
        let transport = try configuredTransport()
        try transport.pull()
        let trust = try currentTrust(transport)
        let wanted = code.filter(\.isNumber)
        var found: SyncTrustedDevice?
        for name in try transport.list("requests") where name.hasSuffix(".req") {
            guard let bytes = try transport.read("requests/" + name),
                let request = try? SyncJoinRequest(decoding: bytes),
                request.code.filter(\.isNumber) == wanted, name == "\(request.device.id).req"
            else { continue }
            found = request.device
        }
        guard let device = found else { throw SyncError(.state, "no device asks to join with code \(code)") }
        guard trust.device(device.id) == nil else { throw SyncError(.state, "device \(device.id) is already trusted") }
        let ring = try keyRing()
        guard let key = ring[trust.epoch] else { throw SyncError(.state, "this device lacks the current sync key") }
        var next = Self.successor(
            of: trust, devices: trust.devices + [device], epoch: trust.epoch, key: key, previousKeys: trust.previousKeys
        )
        let me = try deviceID()
        next.sign(as: .device(me), seed: try deviceSeeds().signing)
        try transport.write([(Self.trustPath(next, writer: me), next.encoded)])
        try pin(next)
        try transport.publish(message: "sync: \(me) approves \(device.id)")
        return device
    }

    /// `security sync remove-device ID`: drops a device and rotates the sync key, so it reads nothing
    /// written afterwards (older epochs' keys go along sealed under the new key, for the remaining devices).
    /// - Throws: ``SyncError`` `.state` for an unknown device or this device; `.verification`; `.remote`.
    package func removeDevice(_ id: SyncDeviceID) throws(SyncError) {
        let transport = try configuredTransport()
        try transport.pull()
        let trust = try currentTrust(transport)
        let me = try deviceID()
        guard id != me else { throw SyncError(.state, "a device cannot remove itself; remove it from another device") }
        guard trust.device(id) != nil else { throw SyncError(.state, "no trusted device \(id)") }
        var ring = try keyRing()
        let (next, key) = try rotatedSuccessor(of: trust, without: id, ring: ring)
        ring.insert(key, epoch: next.epoch)
        try saveKeyRing(ring)
        try transport.write([(Self.trustPath(next, writer: me), next.encoded)])
        try pin(next)
        try saveRemoved(trust.devices.filter { $0.id == id })
        try transport.publish(message: "sync: \(me) removes \(id)")
    }

    /// The trusted devices as this device last accepted them.
    package func trustedDevices() throws(SyncError) -> [SyncTrustedDevice] {
        try pinnedTrust()?.devices ?? []
    }

    // MARK: - Internal

    /// Pulls nothing; reads the remote's trust files past the pinned generation, verifies the chain, adopts
    /// the newest, and checks this device is still in it.
    func currentTrust(_ transport: any SyncTransport) throws(SyncError) -> SyncTrustList {
        let pinned = try pinnedTrust()
        let walked = try walkTrust(transport, from: pinned)
        let me = try deviceID()
        guard walked.list.device(me) != nil else {
            throw SyncError(
                .state, "this device was removed from the sync group (trust list generation \(walked.list.generation))")
        }
        if walked.list.generation != pinned?.generation {
            try adoptKeys(walked.list)
            try pin(walked.list)
            try saveRemoved(walked.removed)
        }
        return walked.list
    }

    /// Verifies the trust chain from `pinned` (nil: from generation 1) to the newest generation on the remote.
    /// - Throws: ``SyncError`` `.verification` for a missing generation, one not signed by the previous
    ///   generation's devices or recovery key, or a remote whose newest generation is older than `pinned`.
    func walkTrust(
        _ transport: any SyncTransport, from pinned: SyncTrustList?
    ) throws(SyncError) -> (list: SyncTrustList, removed: [SyncTrustedDevice]) {
        var byGeneration: [UInt64: [String]] = [:]
        for name in try transport.list("trust") where name.hasSuffix(".trust") {
            guard let generation = UInt64(name.prefix(16), radix: 16), name.count > 17 else { continue }
            byGeneration[generation, default: []].append(name)
        }
        let newest = byGeneration.keys.max() ?? 0
        if let pinned, newest < pinned.generation {
            throw SyncError(
                .verification,
                "the trust list was rolled back: the remote's newest is generation \(newest), this device has seen"
                    + " generation \(pinned.generation)")
        }
        var current = pinned
        var removed: [SyncTrustedDevice] = []
        var generation = (pinned?.generation ?? 0) + 1
        while generation <= newest {
            guard let names = byGeneration[generation] else {
                throw SyncError(.verification, "trust list generation \(generation) is missing from the remote")
            }
            var accepted: SyncTrustList?
            for name in names.sorted() {
                guard let bytes = try transport.read("trust/" + name), let list = try? SyncTrustList(decoding: bytes),
                    list.generation == generation,
                    list.previousHash
                        == (current.map { SyncCrypto.hash($0.encoded) } ?? [UInt8](repeating: 0, count: 32)),
                    let signer = list.signerKey(in: current), list.verify(publicKey: signer)
                else { continue }
                accepted = list
                break
            }
            guard let list = accepted else {
                throw SyncError(
                    .verification,
                    "trust list generation \(generation) (\(names.joined(separator: ", "))) is not signed by a trusted"
                        + " device: a device added without approval?")
            }
            if let current { removed += current.devices.filter { list.device($0.id) == nil } }
            current = list
            generation += 1
        }
        guard let current else { throw SyncError(.state, "the remote holds no trust list") }
        return (current, removed)
    }

    /// The next generation of `trust` without device `id`, under a new sync key (epoch + 1) sealed to the remaining
    /// devices and the recovery key, with every key of `ring` sealed under it (`previousKeys`), signed by this device
    /// (a member of `trust`, which is what the other devices check). Writes nothing: the caller keeps or drops the
    /// new key, then writes the list. Used by ``removeDevice(_:)`` and by ``leave()`` (`id` is this device then).
    /// - Returns: the list and its new key.
    /// - Throws: ``SyncError`` `.keychain` when this device's signing key cannot be read.
    func rotatedSuccessor(
        of trust: SyncTrustList, without id: SyncDeviceID, ring: SyncKeyRing
    ) throws(SyncError) -> (list: SyncTrustList, key: SecureBytes) {
        let key = SecureBytes.random(count: Sodium.keyBytes)
        let epoch = trust.epoch + 1
        let previous = Sodium.seal(ring.encoded, key: key, associatedData: Self.previousKeysAD(epoch))
        var next = Self.successor(
            of: trust, devices: trust.devices.filter { $0.id != id }, epoch: epoch, key: key, previousKeys: previous)
        next.sign(as: .device(try deviceID()), seed: try deviceSeeds().signing)
        return (next, key)
    }

    /// A device that left (``leave()`` forgets its own log's position) and joins again goes on with its log where the
    /// remote's copy of its head, signed by this device, says it ended, rather than at segment 1 again: the devices
    /// that read it before would see a fork. Its local changes go out again from the start (the others already have
    /// them). Nothing changes when this device already has a log position or the remote holds no head of it.
    /// - Throws: ``SyncError`` `.remote` when the head cannot be read; `.keychain`.
    func resumeOwnLog(_ transport: any SyncTransport) throws(SyncError) {
        var local = try localState()
        let me = try thisDevice()
        guard local.sequence == 0, local.outbox.isEmpty,
            let bytes = try transport.read("devices/\(me.id)/head"), let head = try? SyncHead(decoding: bytes),
            head.device == me.id, head.verify(publicKey: me.signingKey)
        else { return }
        local.sequence = head.sequence
        local.lastHash = head.segmentHash
        try setState(local.encoded, SyncLocalState.name)
    }

    /// Opens this device's envelope in `list` and adds its sync key (and the older ones) to the ring.
    func adoptKeys(_ list: SyncTrustList) throws(SyncError) {
        let me = try deviceID()
        guard let envelope = list.envelope(for: .device(me)),
            let key = SyncCrypto.openSealed(envelope, secret: try deviceSeeds().box),
            SyncTrustList.keyCheck(for: key) == list.keyCheck
        else {
            throw SyncError(
                .verification,
                "the sync key sealed to this device in trust list generation \(list.generation) does not open")
        }
        var ring = try keyRing()
        ring.insert(key, epoch: list.epoch)
        try addPreviousKeys(list, key: key, to: &ring)
        try saveKeyRing(ring)
    }

    func addPreviousKeys(_ list: SyncTrustList, key: SecureBytes, to ring: inout SyncKeyRing) throws(SyncError) {
        guard !list.previousKeys.isEmpty else { return }
        guard
            let plain = Sodium.openSecret(list.previousKeys, key: key, associatedData: Self.previousKeysAD(list.epoch)),
            let older = try? SyncKeyRing(decoding: plain)
        else {
            throw SyncError(
                .verification, "the older sync keys in trust list generation \(list.generation) do not open")
        }
        for (epoch, key) in older.keys where ring[epoch] == nil { ring.insert(key, epoch: epoch) }
    }

    func pin(_ list: SyncTrustList) throws(SyncError) { try setState(list.encoded, Self.trustName) }

    /// Devices removed from the group: their folders are skipped, not reported as unknown.
    func removedDevices() throws(SyncError) -> Set<SyncDeviceID> {
        let bytes = try state(Self.removedName) ?? []
        return Set(
            stride(from: 0, to: bytes.count - bytes.count % 16, by: 16).compactMap {
                SyncDeviceID(bytes: Array(bytes[$0..<($0 + 16)]))
            })
    }

    func saveRemoved(_ devices: [SyncTrustedDevice]) throws(SyncError) {
        guard !devices.isEmpty else { return }
        let all = try removedDevices().union(devices.map(\.id))
        try setState(all.sorted().flatMap(\.bytes), Self.removedName)
    }

    static func trustPath(_ list: SyncTrustList, writer: SyncDeviceID) -> String {
        "trust/\(hex16(list.generation))-\(writer).trust"
    }

    static func previousKeysAD(_ epoch: UInt32) -> [UInt8] {
        var writer = SyncByteWriter()
        writer.append(SyncTrustList.magic)
        writer.append(epoch)
        return writer.bytes
    }

    static func envelopes(
        _ key: SecureBytes, devices: [SyncTrustedDevice], recovery: SyncRecoveryKeys
    ) -> [(recipient: SyncSigner, box: [UInt8])] {
        devices.map { (SyncSigner.device($0.id), SyncCrypto.sealToKey(key, publicKey: $0.boxKey)) }
            + [(.recovery, SyncCrypto.sealToKey(key, publicKey: recovery.boxKey))]
    }

    /// The next generation of `list` with `devices`, the key of `epoch` sealed to each and to the recovery key.
    static func successor(
        of list: SyncTrustList, devices: [SyncTrustedDevice], epoch: UInt32, key: SecureBytes, previousKeys: [UInt8]
    ) -> SyncTrustList {
        SyncTrustList(
            generation: list.generation + 1, previousHash: SyncCrypto.hash(list.encoded), epoch: epoch,
            keyCheck: SyncTrustList.keyCheck(for: key), recovery: list.recovery, devices: devices,
            envelopes: envelopes(key, devices: devices, recovery: list.recovery), previousKeys: previousKeys)
    }
}
