/// What the git and docker credential helpers share, and what their failures print: each helper's
/// library depends only on this support target, never on the other helper's.
package enum CredentialHelpers {
    /// The git helper's name, as its messages start.
    package static let gitName = "git-credential-keychain"
    /// The label of every item the docker helper writes (docker-credential-helpers'
    /// `credentials.CredsLabel`); the git helper never selects such items.
    package static let dockerLabel = "Docker Credentials"
    /// docker's "not found" message (docker-credential-helpers' `credentials.ErrCredentialsNotFound`).
    package static let dockerNotFound = "credentials not found in native keychain"
}
