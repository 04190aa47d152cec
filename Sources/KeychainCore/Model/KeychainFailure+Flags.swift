// The two flags KeychainFailure had before its Reason, for the front ends until they read the reason;
// removed by the commit that changes them.
extension KeychainFailure {
    package init(_ status: KeychainStatus, _ detail: String?, isAdvice: Bool) {
        self.init(status, detail, reason: isAdvice ? .advice : .failed)
    }

    package var isOrphanedItem: Bool { reason == .orphanedItem }
}
