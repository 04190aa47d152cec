/// The swift-keychain release that every program of the project prints for `--version`
/// (`security`, `keychain-secret-service`, `docker-credential-keychain version`), kept in one place so
/// that the tools never disagree.
package enum ProjectVersion {
    /// The release, as `MAJOR.MINOR.PATCH`.
    package static let current = "0.1.0"
}
