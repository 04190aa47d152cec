import Foundation
import KeychainCore
import KeychainServices
import KeychainTesting

/// Runs every workload at one size N, our code and the floor interleaved operation by operation
/// (so that noise from other processes on the machine hits both alike).
struct SizeRun {
    let size: Int
    let options: Options
    let data: DataSet
    let directory: String
    var entries: [Entry] = []
    var rng: SplitMix64

    /// Durable single adds are measured on all N items below this size, on a sample above it.
    static let durableSampleThreshold = 100_000
    static let durableSample = 2_000

    init(size: Int, options: Options) {
        self.size = size
        self.options = options
        data = DataSet(size: size)
        directory = makeTemporaryDirectory("keychain-bench-\(size)")
        rng = SplitMix64(seed: options.seed &+ UInt64(size))
    }

    // MARK: - Helpers

    /// A keychain laid out as `security` finds it with `XDG_DATA_HOME`/`XDG_STATE_HOME` under `root`.
    static func location(root: String) -> KeychainLocation {
        KeychainLocation(
            databasePath: root + "/data/keychains/login.keychain-db",
            deviceKeyPath: root + "/state/keychains/device.key")
    }

    static func open(_ location: KeychainLocation) -> Keystore {
        do { return try Keystore(location: location) } catch { fatal("cannot open keychain: \(error)") }
    }

    static func context(_ keystore: Keystore) -> KeychainContext {
        KeychainContext(keystore: keystore, identity: .unsigned)
    }

    mutating func record(
        _ id: String, _ title: String, ours: Stat?, floor: Stat?, api: Stat? = nil, check: Check?, rss: Int? = nil,
        bytesOurs: Double? = nil, bytesFloor: Double? = nil, note: String? = nil
    ) {
        entries.append(
            Entry(
                size: size, id: id, title: title, ours: ours, floor: floor, apiFloor: api, check: check,
                peakRSSKiB: rss, bytesPerItemOurs: bytesOurs, bytesPerItemFloor: bytesFloor, note: note))
        log(progressLine(entries[entries.count - 1]))
    }

    /// Ours against C floor + API floor, both measured operation by operation beside ours: the check's
    /// value is our median over the median of the per-operation sums.
    static func bothFloorsCheck(_ ours: [UInt64], _ floor: [UInt64], _ api: [UInt64], limit: Double) -> (
        ours: Stat, floor: Stat, api: Stat, check: Check
    ) {
        let o = Stat(ours)
        let sum = Stat(zip(floor, api).map { $0 + $1 })
        return (
            o, Stat(floor), Stat(api),
            Check(
                target: "≤\(limit)x C+API floor", value: o.medianMicroseconds / max(sum.medianMicroseconds, 0.001),
                limit: limit, unit: "x")
        )
    }

    static func ratioCheck(_ ours: Stat, _ floor: Stat, limit: Double, what: String) -> Check {
        Check(
            target: "≤\(limit)x \(what)", value: ours.medianMicroseconds / max(floor.medianMicroseconds, 0.001),
            limit: limit, unit: "x")
    }

    func addQuery(_ i: Int) -> NSDictionary {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: data.service(i),
            kSecAttrAccount as String: data.account(i),
            kSecValueData as String: Data(data.secret(i)),
        ] as NSDictionary
    }

    func keyQuery(_ i: Int, extra: [String: Any] = [:]) -> NSDictionary {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: data.service(i),
            kSecAttrAccount as String: data.account(i),
        ]
        query.merge(extra) { $1 }
        return query as NSDictionary
    }

    func check(_ status: OSStatus, _ what: String) {
        if status != errSecSuccess { fatal("\(what) failed with OSStatus \(status)") }
    }

    // MARK: - Run

    /// Runs workloads 1–6 at this size.
    mutating func run() {
        log("== N = \(size) (\(directory))")
        let root = directory + "/ours"
        let location = Self.location(root: root)
        let keystore = Self.open(location)
        let floor = FloorStore(path: directory + "/floor.sqlite")

        let sampled = size >= Self.durableSampleThreshold
        if !sampled && options.wants("add.durable") { durableAdds(into: nil, floor: nil, range: 0..<size) }

        let refs = bulkAdd(keystore, floor, location: location)
        let context = Self.context(keystore)
        KeychainContext.withOverride(context) {
            reads(refs: refs.ours, floorRefs: refs.floor, floor: floor)
            if options.wants("read.enumerate") { enumerate(floor: floor, withData: false) }
            if options.wants("read.enumerate.data") { enumerate(floor: floor, withData: true) }
            if sampled && options.wants("add.durable") {
                durableAdds(into: keystore, floor: floor, range: size..<(size + Self.durableSample))
            }
            updatesAndDeletes(floor: floor)
        }
        if options.cli && options.wants("cli") { cli(root: root, location: location) }
        if options.password && options.wants("password") { password(keystore) }
        try? keystore.withdrawAllClassKeys()
        if !options.keep { removeTree(directory) }
    }

    // MARK: - 1. Adds

    /// Durable single adds (SecItemAdd, one transaction and fsync each) against durable floor inserts.
    /// `nil` stores mean: fresh, empty keychain and floor database.
    mutating func durableAdds(into keystore: Keystore?, floor existingFloor: FloorStore?, range: Range<Int>) {
        let fresh = directory + "/durable"
        let store = keystore ?? Self.open(Self.location(root: fresh))
        let floor = existingFloor ?? FloorStore(path: directory + "/durable-floor.sqlite")
        var ours: [UInt64] = []
        var base: [UInt64] = []
        ours.reserveCapacity(range.count)
        base.reserveCapacity(range.count)
        let rssReset = resetPeakRSS()
        KeychainContext.withOverride(Self.context(store)) {
            for i in range {
                let query = addQuery(i)
                let status = timed(&ours) { SecItemAdd(query, nil) }
                check(status, "SecItemAdd")
                let service = data.service(i)
                let account = data.account(i)
                let secret = data.secret(i)
                timed(&base) { floor.durableInsert(service: service, account: account, secret: secret) }
            }
        }
        let oursStat = Stat(ours)
        let floorStat = Stat(base)
        let note =
            keystore == nil
            ? "all \(range.count) adds into an empty keychain"
            : "sample: \(range.count) durable adds on top of the \(size) bulk-loaded items"
        record(
            "add.durable", "add, durable (SecItemAdd)", ours: oursStat, floor: floorStat,
            check: Self.ratioCheck(oursStat, floorStat, limit: 1.3, what: "floor commit"),
            rss: rssReset ? peakRSSKiB() : nil, note: note)
        if keystore == nil && !options.keep {
            removeTree(fresh)
            removeTree(directory + "/durable-floor.sqlite")
            removeTree(directory + "/durable-floor.sqlite-wal")
            removeTree(directory + "/durable-floor.sqlite-shm")
        }
    }

    /// Bulk add of all N items in one transaction (`Keystore.write`, as import does) against one floor transaction.
    mutating func bulkAdd(_ keystore: Keystore, _ floor: FloorStore, location: KeychainLocation) -> (
        ours: [Data], floor: [[UInt8]]
    ) {
        let data = self.data
        let count = size
        let rssReset = resetPeakRSS()
        var ours: [UInt64] = []
        ours.reserveCapacity(count)
        let start = nanoseconds()
        let refs: [[UInt8]]
        do {
            var t0: UInt64 = 0
            refs = try ItemGateway(keystore: keystore, identity: .unsigned).addAll(
                count,
                item: { i in
                    t0 = nanoseconds()
                    return NewItem(
                        .genericPassword,
                        attributes: .init(named: [
                            .service: .string(data.service(i)), .account: .string(data.account(i)),
                            .accessGroup: .string("unsigned"),
                        ]),
                        secret: SecureBytes(copying: data.secret(i)))
                },
                added: { _ in ours.append(nanoseconds() - t0) })
        } catch {
            fatal("bulk add failed: \(error)")
        }
        let oursWall = nanoseconds() - start
        let oursRSS = rssReset ? peakRSSKiB() : nil

        var base: [UInt64] = []
        base.reserveCapacity(count)
        var floorRefs: [[UInt8]] = []
        floorRefs.reserveCapacity(count)
        let floorStart = nanoseconds()
        floor.begin()
        for i in 0..<count {
            let t0 = nanoseconds()
            floorRefs.append(floor.insert(service: data.service(i), account: data.account(i), secret: data.secret(i)))
            base.append(nanoseconds() - t0)
        }
        floor.commit()
        let floorWall = nanoseconds() - floorStart

        let oursStat = Stat(ours, wallNanoseconds: oursWall)
        let floorStat = Stat(base, wallNanoseconds: floorWall)
        // Compare whole transactions (commit included): ops/s is N / wall time.
        let check = Check(
            target: "≤2x floor bulk", value: floorStat.opsPerSecond / max(oursStat.opsPerSecond, 0.001), limit: 2,
            unit: "x")
        record(
            "add.bulk", "add, bulk (Keystore.write, 1 txn)", ours: oursStat, floor: floorStat, check: check,
            rss: oursRSS, bytesOurs: Double(checkpointedSize(location.databasePath)) / Double(count),
            bytesFloor: Double(checkpointedSize(floor.path)) / Double(count),
            note: "per-item times inside the transaction; ops/s and ratio include the commit")
        // The SecItem read workloads pass them as kSecValuePersistentRef: made into Data after the timing.
        return (refs.map { Data($0) }, floorRefs)
    }

    // MARK: - 2. Reads

    mutating func reads(refs: [Data], floorRefs: [[UInt8]], floor: FloorStore) {
        let count = min(options.reads, size)
        var order = Array(0..<size)
        order.shuffle(using: &rng)
        let picks = Array(order.prefix(count))
        var buffer = [UInt8](repeating: 0, count: 64)

        // By service + account, returning data.
        if options.wants("read.data") {
            var ours: [UInt64] = []
            var base: [UInt64] = []
            var api: [UInt64] = []
            let rssReset = resetPeakRSS()
            for i in picks {
                let query = keyQuery(i, extra: [kSecReturnData as String: true])
                var result: CFTypeRef?
                let status = timed(&ours) { SecItemCopyMatching(query, &result) }
                check(status, "SecItemCopyMatching(data)")
                let expected = data.secret(i)
                guard (result as? Data).map(Array.init) == expected else { fatal("wrong secret for item \(i)") }
                let service = data.service(i)
                let account = data.account(i)
                let length = timed(&base) { floor.lookup(service: service, account: account, into: &buffer) }
                guard length == expected.count else { fatal("floor: wrong secret for item \(i)") }
                let made = timed(&api) { APIFloor.copyData(query, secret: expected) }
                guard (made as? Data)?.count == expected.count else { fatal("API floor: no data for item \(i)") }
            }
            let r = Self.bothFloorsCheck(ours, base, api, limit: 1.5)
            record(
                "read.data", "copy by svce+acct → data", ours: r.ours, floor: r.floor, api: r.api, check: r.check,
                rss: rssReset ? peakRSSKiB() : nil, note: "\(count) random items")
        }
        // Attributes only.
        if options.wants("read.attributes") {
            var ours: [UInt64] = []
            var base: [UInt64] = []
            var api: [UInt64] = []
            var shape: (keys: [NSObject], kinds: [APIFloor.ValueKind])?
            let rssReset = resetPeakRSS()
            for i in picks.reversed() {
                let query = keyQuery(i, extra: [kSecReturnAttributes as String: true])
                var result: CFTypeRef?
                let status = timed(&ours) { SecItemCopyMatching(query, &result) }
                check(status, "SecItemCopyMatching(attributes)")
                guard let attributes = result as? [String: Any],
                    attributes[kSecAttrAccount as String] as? String == data.account(i)
                else { fatal("wrong attributes for item \(i)") }
                let service = data.service(i)
                let account = data.account(i)
                let length = timed(&base) { floor.lookupAttributes(service: service, account: account, into: &buffer) }
                guard length > 0 else { fatal("floor: attributes of item \(i) did not open") }
                let keys = shape ?? APIFloor.shape(of: attributes, service: service, account: account)
                shape = keys
                let made = timed(&api) {
                    APIFloor.copyAttributes(
                        query, keys: keys.keys, kinds: keys.kinds, service: service, account: account)
                }
                guard (made as? NSDictionary)?.count == attributes.count else { fatal("API floor: wrong shape") }
            }
            let r = Self.bothFloorsCheck(ours, base, api, limit: 2)
            record(
                "read.attributes", "copy by svce+acct → attributes", ours: r.ours, floor: r.floor, api: r.api,
                check: r.check, rss: rssReset ? peakRSSKiB() : nil,
                note: "both open the attributes; ours also unwraps the item key and decodes the record")
        }
        // By persistent reference.
        if options.wants("read.persistentRef") {
            var ours: [UInt64] = []
            var base: [UInt64] = []
            var api: [UInt64] = []
            let rssReset = resetPeakRSS()
            for i in picks {
                let query =
                    [
                        kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: refs[i],
                        kSecReturnData as String: true,
                    ]
                    as NSDictionary
                var result: CFTypeRef?
                let status = timed(&ours) { SecItemCopyMatching(query, &result) }
                check(status, "SecItemCopyMatching(persistent ref)")
                let expected = data.secret(i)
                guard (result as? Data).map(Array.init) == expected else { fatal("wrong secret by ref \(i)") }
                let ref = floorRefs[i]
                let length = timed(&base) { floor.lookup(persistentRef: ref, into: &buffer) }
                guard length == 24 else { fatal("floor: wrong secret by ref \(i)") }
                let made = timed(&api) { APIFloor.copyData(query, secret: expected) }
                guard (made as? Data)?.count == expected.count else { fatal("API floor: no data by ref \(i)") }
            }
            let r = Self.bothFloorsCheck(ours, base, api, limit: 1.5)
            record(
                "read.persistentRef", "copy by persistent ref → data", ours: r.ours, floor: r.floor, api: r.api,
                check: r.check, rss: rssReset ? peakRSSKiB() : nil)
        }
        // As iOS code writes it: a `[String: Any]` bridged to `CFDictionary` inside the call's time.
        if options.wants("read.ios") {
            var ours: [UInt64] = []
            var base: [UInt64] = []
            var api: [UInt64] = []
            let rssReset = resetPeakRSS()
            for i in picks {
                let service = data.service(i)
                let account = data.account(i)
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                    kSecAttrAccount as String: account, kSecReturnData as String: true,
                ]
                var result: CFTypeRef?
                let status = timed(&ours) { SecItemCopyMatching(query as CFDictionary, &result) }
                check(status, "SecItemCopyMatching(iOS-style query)")
                let expected = data.secret(i)
                guard (result as? Data).map(Array.init) == expected else { fatal("wrong secret for item \(i)") }
                let length = timed(&base) { floor.lookup(service: service, account: account, into: &buffer) }
                guard length == expected.count else { fatal("floor: wrong secret for item \(i)") }
                let made = timed(&api) { APIFloor.copyData(query as CFDictionary, secret: expected) }
                guard (made as? Data)?.count == expected.count else { fatal("API floor: no data for item \(i)") }
            }
            let r = Self.bothFloorsCheck(ours, base, api, limit: 1.5)
            record(
                "read.ios", "copy, iOS-style [String: Any] → data", ours: r.ours, floor: r.floor, api: r.api,
                check: r.check, rss: rssReset ? peakRSSKiB() : nil,
                note: "\(count) random items; the bridging of the query is inside ours and the API floor")
        }
    }

    // MARK: - 4. Enumerate

    /// Enumerations of the 1,000-item service with kSecMatchLimitAll and attributes, with data when
    /// `withData`, against the C floor (the SELECT and the opens) and the API floor (the result array).
    mutating func enumerate(floor: FloorStore, withData: Bool) {
        let expected = data.enumerateCount
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: DataSet.enumerateService,
            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ]
        if withData { query[kSecReturnData as String] = true }
        let bridged = query as NSDictionary
        // The floor's items: the same accounts and secrets, in the same (rowid) order as ours.
        let accounts = (0..<expected).map(data.account)
        let secrets = withData ? (0..<expected).map { data.secret($0, version: updated.contains($0) ? 1 : 0) } : nil
        var shape: (keys: [NSObject], kinds: [APIFloor.ValueKind])?
        var ours: [UInt64] = []
        var base: [UInt64] = []
        var api: [UInt64] = []
        let rssReset = resetPeakRSS()
        for _ in 0..<options.enumerateRepeats {
            var result: CFTypeRef?
            let status = timed(&ours) { SecItemCopyMatching(bridged, &result) }
            check(status, "SecItemCopyMatching(all attributes)")
            guard let items = result as? [[String: Any]], items.count == expected else {
                fatal("enumeration returned a wrong count")
            }
            let opened = timed(&base) { floor.enumerate(service: DataSet.enumerateService, withSecret: withData) }
            guard opened == expected else { fatal("floor enumeration returned \(opened)") }
            let keys =
                shape ?? APIFloor.shape(of: items[0], service: DataSet.enumerateService, account: data.account(0))
            shape = keys
            let made = timed(&api) {
                APIFloor.enumerate(bridged, keys: keys.keys, kinds: keys.kinds, accounts: accounts, secrets: secrets)
            }
            guard made.count == expected else { fatal("API floor enumeration made \(made.count)") }
        }
        let r = Self.bothFloorsCheck(ours, base, api, limit: 2)
        record(
            withData ? "read.enumerate.data" : "read.enumerate",
            "enumerate 1 service (\(expected) items)\(withData ? " + data" : "")", ours: r.ours, floor: r.floor,
            api: r.api, check: r.check, rss: rssReset ? peakRSSKiB() : nil,
            note: "µs per whole enumeration, \(options.enumerateRepeats) runs")
    }

    // MARK: - 3. Update and delete

    mutating func updatesAndDeletes(floor: FloorStore) {
        let tenth = max(1, size / 10)
        let count = size >= Self.durableSampleThreshold ? min(tenth, Self.durableSample) : tenth
        var order = Array(0..<size)
        order.shuffle(using: &rng)
        let updates = order.prefix(count)
        let deletes = order.dropFirst(count).prefix(count)
        deleted = Set(deletes)
        updated = Set(updates)
        let sampleNote =
            count == tenth ? "10% of items (\(count))" : "sample of \(count) durable calls (10% would be \(tenth))"

        if options.wants("update") {
            var ours: [UInt64] = []
            var base: [UInt64] = []
            let rssReset = resetPeakRSS()
            for i in updates {
                let query = keyQuery(i)
                let changes = [kSecValueData as String: Data(data.secret(i, version: 1))] as NSDictionary
                let status = timed(&ours) { SecItemUpdate(query, changes) }
                check(status, "SecItemUpdate")
                let service = data.service(i)
                let account = data.account(i)
                let secret = data.secret(i, version: 1)
                timed(&base) { floor.durableUpdate(service: service, account: account, secret: secret) }
            }
            let o = Stat(ours)
            let f = Stat(base)
            record(
                "update.durable", "update data, durable (SecItemUpdate)", ours: o, floor: f,
                check: Self.ratioCheck(o, f, limit: 1.3, what: "floor commit"), rss: rssReset ? peakRSSKiB() : nil,
                note: sampleNote)
        }
        if options.wants("delete") {
            var ours: [UInt64] = []
            var base: [UInt64] = []
            let rssReset = resetPeakRSS()
            for i in deletes {
                let query = keyQuery(i)
                let status = timed(&ours) { SecItemDelete(query) }
                check(status, "SecItemDelete")
                let service = data.service(i)
                let account = data.account(i)
                timed(&base) { floor.durableDelete(service: service, account: account) }
            }
            let o = Stat(ours)
            let f = Stat(base)
            record(
                "delete.durable", "delete, durable (SecItemDelete)", ours: o, floor: f,
                check: Self.ratioCheck(o, f, limit: 1.3, what: "floor commit"), rss: rssReset ? peakRSSKiB() : nil,
                note: sampleNote)
        }
    }

    /// Items deleted by workload 3 (the CLI looks up survivors only).
    var deleted: Set<Int> = []
    /// Items whose secret workload 3 changed to version 1.
    var updated: Set<Int> = []

    // MARK: - 5. Password change

    /// Changes the password `repeats` times with `parameters`; returns the change times and, interleaved,
    /// the times of the two Argon2id runs a change needs (current and new password) done back to back.
    /// `previous` is the cost the current password was set with (the first change checks it with that cost).
    func changePasswords(
        _ keystore: Keystore, parameters: KDFParameters, previous: KDFParameters, repeats: Int, first: Int
    ) -> (
        changes: [UInt64], kdf: [UInt64]
    ) {
        func password(_ n: Int) -> SecureBytes { SecureBytes(copying: Array("bench-password-\(n)".utf8)) }
        var changes: [UInt64] = []
        var kdf: [UInt64] = []
        for n in first..<(first + repeats) {
            do {
                try timed(&changes) {
                    try keystore.setPassword(password(n + 1), current: password(n), parameters: parameters)
                }
            } catch {
                fatal("setPassword (change) failed: \(error)")
            }
            let old = n == first ? previous : parameters
            kdf.append(
                timeKDF(opsLimit: old.opsLimit, memLimit: old.memLimit)
                    + timeKDF(opsLimit: parameters.opsLimit, memLimit: parameters.memLimit))
        }
        return (changes, kdf)
    }

    mutating func password(_ keystore: Keystore) {
        let parameters = options.kdf
        let repeats = options.passwordRepeats(size)
        do {
            try keystore.setPassword(
                SecureBytes(copying: Array("bench-password-0".utf8)), current: nil, parameters: .testing)
        } catch {
            fatal("setPassword failed: \(error)")
        }
        // Cost minus KDF, measured directly: changes with the cheapest Argon2id (its ~0.1 ms is subtracted).
        // With the default KDF the difference of two ~1 s medians is dominated by noise on a busy machine.
        let cheap = changePasswords(keystore, parameters: .testing, previous: .testing, repeats: 10, first: 0)
        let cheapChange = Stat(cheap.changes)
        let cheapKDF = Stat(cheap.kdf)
        let overhead = (cheapChange.medianMicroseconds - cheapKDF.medianMicroseconds) / 1_000
        record(
            "password.change.overhead", "change password: cost − KDF", ours: cheapChange, floor: cheapKDF,
            check: Check(target: "≤ KDF + 50 ms", value: overhead, limit: 50, unit: "ms"),
            note: "10 changes with the cheapest Argon2id (floor column: its 2 runs); checked value = cost − KDF")

        let rssReset = resetPeakRSS()
        let full = changePasswords(keystore, parameters: parameters, previous: .testing, repeats: repeats, first: 10)
        let rss = rssReset ? peakRSSKiB() : nil
        let change = Stat(full.changes)
        let kdfStat = Stat(full.kdf)
        record(
            "password.change", "change password (setPassword)", ours: change, floor: kdfStat, check: nil, rss: rss,
            note: String(
                format:
                    "KDF %@ (ops %llu, %d MiB); floor = the change's 2 Argon2id runs (the first checks a cheap one); median cost − KDF = %.0f ms; %d runs",
                options.kdfName, parameters.opsLimit, parameters.memLimit >> 20,
                (change.medianMicroseconds - kdfStat.medianMicroseconds) / 1_000, repeats))
    }
}
