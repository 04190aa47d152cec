/// Why bytes from the remote were refused: the decoders' one error, naming the file kind and the cause.
package enum SyncFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes end before a field does.
    case truncated(String)
    /// Not this format's magic, or a version this build does not read.
    case unknownFormat(String)
    /// A field holds a value the format does not allow.
    case malformed(String, String)
    /// A signature does not verify.
    case badSignature(String)
    /// Decryption failed: damaged ciphertext, a wrong key or associated data that does not match.
    case undecryptable(String)

    package var description: String {
        switch self {
        case .truncated(let what): "\(what): truncated"
        case .unknownFormat(let what): "\(what): not a file of this format or version"
        case .malformed(let what, let why): "\(what): malformed: \(why)"
        case .badSignature(let what): "\(what): bad signature"
        case .undecryptable(let what): "\(what): cannot be decrypted (damaged, or not for this key)"
        }
    }
}
