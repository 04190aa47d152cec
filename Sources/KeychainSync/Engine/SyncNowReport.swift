package import KeychainCore

/// What one ``SyncEngine/syncNow()`` did: the store's apply report, what went out, and what was refused.
package struct SyncNowReport: Sendable {
    package var applied = SyncApplyReport(applied: 0, ignored: 0, conflicts: 0)
    /// Other devices whose new segments were read and applied.
    package var devicesRead = 0
    /// Local changes pushed, in how many segments and bytes (segments and head).
    package var changesPushed = 0
    package var segmentsPushed = 0
    package var bytesPushed = 0
    /// One line per device whose log failed verification (nothing of it applied).
    package var failures: [String] = []

    package init() {}
}
