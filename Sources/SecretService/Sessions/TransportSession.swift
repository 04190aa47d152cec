package import KeychainCore

/// A Secret Service session: how secrets travel between one client connection and the provider
/// (Secret Service API, "Sessions" and "Transfer of Secrets").
package final class TransportSession {
    /// The negotiated algorithm.
    package enum Algorithm {
        /// `plain`: secrets travel as they are; `parameters` are empty.
        case plain
        /// `dh-ietf1024-sha256-aes128-cbc-pkcs7`, with the derived AES-128 key.
        case dhAES(key: SecureBytes)
    }

    /// The spec's algorithm names.
    package static let plainName = "plain"
    package static let dhName = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The session's identifier (last element of `/org/freedesktop/secrets/session/<id>`).
    package let id: String
    /// The unique bus name of the connection that opened the session; only it may use the session.
    package let owner: String
    package let algorithm: Algorithm

    package init(id: String, owner: String, algorithm: Algorithm) {
        self.id = id
        self.owner = owner
        self.algorithm = algorithm
    }

    /// A secret as it travels: the spec's `(o session, ay parameters, ay value, s content_type)` minus the path.
    package struct Encoded {
        package var parameters: [UInt8]
        package var value: [UInt8]
    }

    /// Encodes a secret for this session: as is for `plain`; AES-128-CBC under a fresh IV for DH.
    /// - Throws: ``SessionCryptoError`` if OpenSSL fails.
    package func encode(_ secret: SecureBytes) throws(SessionCryptoError) -> Encoded {
        switch algorithm {
        case .plain:
            return Encoded(parameters: [], value: secret.withUnsafeBytes { Array($0) })
        case .dhAES(let key):
            let iv = AES128CBC.randomIV()
            let value = try secret.withUnsafeBytes { (plain) throws(SessionCryptoError) in
                try AES128CBC.encrypt(plain, key: key, iv: iv)
            }
            return Encoded(parameters: iv, value: value)
        }
    }

    /// Decodes a received secret into zeroising memory.
    /// - Throws: ``SessionCryptoError/invalidParameters`` or ``SessionCryptoError/undecryptable``.
    package func decode(parameters: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws(SessionCryptoError)
        -> SecureBytes
    {
        switch algorithm {
        case .plain: return SecureBytes(copying: value)
        case .dhAES(let key): return try AES128CBC.decrypt(value, key: key, iv: parameters)
        }
    }
}
