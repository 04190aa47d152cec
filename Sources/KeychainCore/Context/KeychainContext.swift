internal import Synchronization

/// The keychain and identity that SecItem calls and the high-level API act on.
///
/// By default: the login keychain (``KeychainLocation/login(environment:)``), opened on first use,
/// and the identity from `$KEYCHAIN_ENTITLEMENTS`. A process may set either before first use.
/// Tests bind their own context per task with ``withOverride(_:_:)``, so parallel tests never share one.
package struct KeychainContext: Sendable {
    package let keystore: Keystore
    package let identity: ApplicationIdentity

    package init(keystore: Keystore, identity: ApplicationIdentity) {
        self.keystore = keystore
        self.identity = identity
    }

    @TaskLocal private static var override: KeychainContext?

    private struct Configuration {
        var location: KeychainLocation?
        var identity: ApplicationIdentity?
        var opened: KeychainContext?
    }

    private static let shared = Mutex(Configuration())

    /// The context for the current task: an override, or the process-wide default (opened on first use).
    /// - Throws: the failure to open the keychain or read the entitlements; the next call tries again.
    package static func current() throws(KeychainFailure) -> KeychainContext {
        if let override { return override }
        return try shared.withLock { (configuration: inout Configuration) throws(KeychainFailure) -> KeychainContext in
            if let opened = configuration.opened { return opened }
            let identity: ApplicationIdentity
            if let configured = configuration.identity {
                identity = configured
            } else {
                identity = try .fromEnvironment()
            }
            let keystore = try Keystore(location: configuration.location ?? .login())
            let context = KeychainContext(keystore: keystore, identity: identity)
            configuration.opened = context
            return context
        }
    }

    /// The identity for the current task: an override's, the one set with ``setProcessIdentity(_:)``,
    /// or `$KEYCHAIN_ENTITLEMENTS`'s. Does not open the keychain.
    /// - Throws: the failure to read the entitlements; the next call tries again.
    package static func currentIdentity() throws(KeychainFailure) -> ApplicationIdentity {
        if let override { return override.identity }
        return try shared.withLock { (configuration: inout Configuration) throws(KeychainFailure) in
            if let opened = configuration.opened { return opened.identity }
            if let configured = configuration.identity { return configured }
            let identity = try ApplicationIdentity.fromEnvironment()
            configuration.identity = identity
            return identity
        }
    }

    /// Sets the process's identity (instead of `$KEYCHAIN_ENTITLEMENTS`); takes effect for calls after it.
    package static func setProcessIdentity(_ identity: ApplicationIdentity) {
        shared.withLock { configuration in
            configuration.identity = identity
            if let opened = configuration.opened {
                configuration.opened = KeychainContext(keystore: opened.keystore, identity: identity)
            }
        }
    }

    /// Sets the keychain file the process uses (instead of the login keychain).
    package static func setProcessLocation(_ location: KeychainLocation) {
        shared.withLock { configuration in
            configuration.location = location
            configuration.opened = nil
        }
    }

    /// Runs `body` with `context` as the current context of this task and its children.
    package static func withOverride<R>(_ context: KeychainContext, _ body: () throws -> R) rethrows -> R {
        try $override.withValue(context, operation: body)
    }

    /// Async variant of ``withOverride(_:_:)``.
    package static func withOverride<R>(_ context: KeychainContext, _ body: () async throws -> R) async rethrows -> R {
        try await $override.withValue(context, operation: body)
    }
}
