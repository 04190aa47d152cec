internal import KeychainCore

/// `security sync now`: pull, verify, merge, push (docs/SYNC.md, "A sync run").
extension SyncEngine {
    /// Runs one sync: pulls, verifies the trust list and every other device's new segments against its head
    /// and the chain, applies what verified in one store transaction, then packs this device's new local
    /// changes into segments and pushes them.
    ///
    /// A device whose log fails verification (bad signature, dropped, replayed or reordered segment, a head
    /// rolled back or forked, a device not in the trust list) contributes nothing; the others still apply,
    /// and the run then throws `.verification` listing each failure. An unreachable remote or a refused push
    /// throws `.remote` and loses nothing: the segments wait in the outbox for the next run.
    /// - Returns: the report.
    /// - Throws: ``SyncError``.
    package func syncNow() throws(SyncError) -> SyncNowReport {
        let transport = try configuredTransport()
        if try isJoining() {
            guard try completeJoin() else {
                throw SyncError(.state, "waiting for approval: run security sync approve CODE on a trusted device")
            }
        }
        try transport.pull()
        try reached("fetched")
        let trust = try currentTrust(transport)
        let ring = try keyRing()
        let me = try deviceID()
        var report = SyncNowReport()

        // Read and verify the other devices' logs.
        var seen = try seenLogs()
        let removed = try removedDevices()
        var verified: [(device: SyncDeviceID, log: VerifiedLog)] = []
        for folder in try transport.folders("devices") where folder != me.description {
            guard let id = SyncDeviceID(hex: folder) else {
                report.failures.append("devices/\(folder): not a device id")
                continue
            }
            if trust.device(id) == nil && removed.contains(id) { continue }
            guard let device = trust.device(id) else {
                report.failures.append("device \(id): unknown device, not in the trust list: nothing applied from it")
                continue
            }
            do throws(SyncError) {
                if let log = try readLog(of: device, transport: transport, seen: seen.entries[id], ring: ring) {
                    verified.append((id, log))
                }
            } catch {
                report.failures.append("device \(id): \(error.message): nothing applied from it")
            }
        }
        // Apply segment by segment, so a first sync of a large keychain never holds every payload at once;
        // each device's position moves after each segment (a crash re-applies at most one, which the store ignores).
        for (id, log) in verified {
            report.devicesRead += 1
            for (index, segment) in log.segments.enumerated() {
                if log.segments.count > 1 {
                    progress?("applying segment \(index + 1) of \(log.segments.count) from \(id)")
                }
                let changes: [SyncChange]
                do throws(SyncFormatError) {
                    guard let key = ring[segment.segment.epoch] else { throw .undecryptable("segment") }
                    changes = try SyncSegmentBody.decode(try segment.segment.open(key: key))
                } catch {
                    report.failures.append("device \(id): segment \(segment.segment.sequence): \(error)")
                    break
                }
                do {
                    let applied = try replica.applySyncChanges(changes)
                    report.applied.applied += applied.applied
                    report.applied.ignored += applied.ignored
                    report.applied.conflicts += applied.conflicts
                    report.applied.waiting = applied.waiting
                } catch {
                    throw SyncError(error, while: "applying changes from the remote")
                }
                CrashPoint.reach("sync.merging")
                seen.entries[id] = (segment.segment.sequence, segment.hash)
                try setState(seen.encoded, SyncSeenLogs.name)
            }
        }
        try reached("merged")

        // This device's own log: the remote must still hold what it last published.
        var local = try localState()
        if local.outbox.isEmpty, local.sequence > 0 {
            let head = try transport.read("devices/\(me)/head").flatMap { try? SyncHead(decoding: $0) }
            if head?.sequence != local.sequence || head?.segmentHash != local.lastHash {
                report.failures.append(
                    "this device's own log on the remote is at segment \(head?.sequence ?? 0), not \(local.sequence)"
                        + " (rolled back or altered)")
            }
        }
        if local.outbox.isEmpty {
            var files: [SyncOutboxFile] = []
            var cursor = local.cursor
            while true {
                let pending: (changes: [SyncChange], through: UInt64)
                do { pending = try replica.syncChanges(after: cursor, limit: Self.changesPerBatch) } catch {
                    throw SyncError(error, while: "reading local changes")
                }
                cursor = pending.through
                if pending.changes.isEmpty { break }
                guard let key = ring[trust.epoch] else {
                    throw SyncError(.state, "this device lacks the current sync key")
                }
                files += try packSegments(pending.changes, after: &local, epoch: trust.epoch, key: key, device: me)
                report.changesPushed += pending.changes.count
                if pending.changes.count < Self.changesPerBatch { break }
                progress?("sealed \(report.changesPushed) local changes in \(files.count) segments so far")
            }
            if !files.isEmpty {
                let head = SyncHead(
                    device: me, sequence: local.sequence, segmentHash: local.lastHash,
                    signingSeed: try deviceSeeds().signing)
                local.outbox = files + [SyncOutboxFile(path: "devices/\(me)/head", bytes: head.encoded)]
            }
            if cursor != local.cursor || !local.outbox.isEmpty {
                local.cursor = cursor
                try setState(local.encoded, SyncLocalState.name)
            }
        }
        try reached("committed")
        if !local.outbox.isEmpty {
            report.segmentsPushed = local.outbox.count - 1
            report.bytesPushed = local.outbox.reduce(0) { $0 + $1.bytes.count }
            if report.segmentsPushed > 1 {
                progress?("pushing \(report.segmentsPushed) segments (\(report.bytesPushed) bytes)")
            }
            try transport.write(local.outbox.map { ($0.path, $0.bytes) })
        }
        try reached("written")
        try transport.publish(message: "sync: \(me) segment \(local.sequence)")
        try reached("pushed")
        if !local.outbox.isEmpty {
            local.outbox = []
            try setState(local.encoded, SyncLocalState.name)
        }
        var stamp = SyncByteWriter()
        stamp.append(Self.nowMilliseconds())
        try setState(stamp.bytes, Self.lastSyncName)
        if !report.failures.isEmpty {
            throw SyncError(.verification, report.failures.joined(separator: "\n"))
        }
        return report
    }

    // MARK: - Internal

    /// The end of a step of ``syncNow()``: the crash suite's point `sync.<name>` (``CrashPoint``), then
    /// ``step``.
    private func reached(_ name: String) throws(SyncError) {
        CrashPoint.reach("sync." + name)
        try step?(name)
    }

    /// A device's new segments, verified (signatures, sequence, chain, head) but not yet opened.
    struct VerifiedLog {
        var segments: [(segment: SyncSegment, hash: [UInt8])]
    }

    /// Local changes read per `syncChanges` call while packing.
    package static let changesPerBatch = 2000

    /// Reads a device's segments after `seen` up to its head and verifies each, before anything is applied.
    /// - Returns: the verified segments, or nil when there is nothing new.
    func readLog(
        of device: SyncTrustedDevice, transport: any SyncTransport, seen: (sequence: UInt64, hash: [UInt8])?,
        ring: SyncKeyRing
    ) throws(SyncError) -> VerifiedLog? {
        let folder = "devices/\(device.id)"
        let start = seen ?? (0, [UInt8](repeating: 0, count: 32))
        guard let headBytes = try transport.read(folder + "/head") else {
            if start.sequence > 0 { throw SyncError(.verification, "its head is missing (rolled back)") }
            return nil
        }
        let head: SyncHead
        do { head = try SyncHead(decoding: headBytes) } catch { throw SyncError(.verification, "\(error)") }
        guard head.device == device.id, head.verify(publicKey: device.signingKey) else {
            throw SyncError(.verification, "bad signature on its head")
        }
        if head.sequence < start.sequence {
            throw SyncError(
                .verification,
                "its head was rolled back to segment \(head.sequence); this device has read \(start.sequence)")
        }
        if head.sequence == start.sequence {
            guard head.segmentHash == start.hash else {
                throw SyncError(
                    .verification, "its head names another segment \(head.sequence) than the one read (fork)")
            }
            return nil
        }
        var previous = start.hash
        var log = VerifiedLog(segments: [])
        for sequence in (start.sequence + 1)...head.sequence {
            guard let bytes = try transport.read(folder + "/\(Self.hex16(sequence)).seg") else {
                throw SyncError(.verification, "segment \(sequence) is missing (dropped)")
            }
            let segment: SyncSegment
            do { segment = try SyncSegment(decoding: bytes) } catch {
                throw SyncError(.verification, "segment \(sequence): \(error)")
            }
            guard segment.verify(publicKey: device.signingKey) else {
                throw SyncError(.verification, "bad signature on segment \(sequence)")
            }
            guard segment.device == device.id, segment.sequence == sequence else {
                throw SyncError(
                    .verification, "segment \(sequence) holds segment \(segment.sequence) (replayed or reordered)")
            }
            guard segment.previousHash == previous else {
                throw SyncError(
                    .verification, "segment \(sequence) does not follow segment \(sequence - 1) (fork or reorder)")
            }
            guard ring[segment.epoch] != nil else {
                throw SyncError(
                    .verification,
                    "segment \(sequence) is under sync key epoch \(segment.epoch), which this device lacks")
            }
            previous = SyncCrypto.hash(bytes)
            log.segments.append((segment, previous))
        }
        guard previous == head.segmentHash else {
            throw SyncError(.verification, "its head does not match segment \(head.sequence) (altered or forked)")
        }
        return log
    }

    /// Packs `changes` into segments of at most ``segmentBodyLimit`` body bytes (the caller adds the head).
    func packSegments(
        _ changes: [SyncChange], after local: inout SyncLocalState, epoch: UInt32, key: SecureBytes,
        device: SyncDeviceID
    ) throws(SyncError) -> [SyncOutboxFile] {
        let seed = try deviceSeeds().signing
        var chunks: [[SyncChange]] = [[]]
        var size = 0
        for change in changes {
            let bytes = SyncSegmentBody.size(of: change)
            if size + bytes > Self.segmentBodyLimit && !chunks[chunks.count - 1].isEmpty {
                chunks.append([])
                size = 0
            }
            chunks[chunks.count - 1].append(change)
            size += bytes
        }
        var files: [SyncOutboxFile] = []
        for chunk in chunks {
            local.sequence += 1
            let segment = SyncSegment(
                device: device, sequence: local.sequence, epoch: epoch, previousHash: local.lastHash,
                body: SyncSegmentBody.encode(chunk), key: key, signingSeed: seed)
            let bytes = segment.encoded
            files.append(SyncOutboxFile(path: "devices/\(device)/\(Self.hex16(local.sequence)).seg", bytes: bytes))
            local.lastHash = SyncCrypto.hash(bytes)
        }
        return files
    }
}
