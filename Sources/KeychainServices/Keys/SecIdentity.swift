public import Foundation
internal import KeychainCrypto

/// A certificate and its private key.
///
/// Follows Apple's `SecIdentity` (SecIdentity.h;
/// https://developer.apple.com/documentation/security/secidentity). Identities come from
/// ``SecPKCS12Import(_:_:_:)``. Two identities are equal when certificate and key are equal.
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The certificate.
    package let certificate: SecCertificate
    /// Its private key.
    package let privateKey: SecKey

    /// An identity; the key must be the private key of the certificate's public key.
    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }

    public var description: String { "<SecIdentityRef: \(certificate)>" }
}

/// Returns the type identifier of `SecIdentity` objects.
///
/// Follows SecIdentity.h `SecIdentityGetTypeID`. The value is stable within a process.
public func SecIdentityGetTypeID() -> CFTypeID {
    CFTypeID(bitPattern: ObjectIdentifier(SecIdentity.self).hashValue)
}

/// Returns an identity's certificate.
///
/// Follows Apple's `SecIdentityCopyCertificate` (SecIdentity.h).
/// - Parameters:
///   - identityRef: the identity.
///   - certificateRef: receives the certificate (create rule).
/// - Returns: `errSecSuccess`.
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// Returns an identity's private key.
///
/// Follows Apple's `SecIdentityCopyPrivateKey` (SecIdentity.h).
/// - Parameters:
///   - identityRef: the identity.
///   - privateKeyRef: receives the private key (create rule).
/// - Returns: `errSecSuccess`.
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>)
    -> OSStatus
{
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

/// Imports the identity of a PKCS #12 file.
///
/// Follows Apple's `SecPKCS12Import` (SecImportExport.h). `options` holds the passphrase under
/// ``kSecImportExportPassphrase``. There is one item per private key in
/// the file, each a dictionary with
/// ``kSecImportItemIdentity`` (a ``SecIdentity``), ``kSecImportItemCertChain`` (the certificates,
/// leaf first), ``kSecImportItemLabel`` (the `friendlyName`) and ``kSecImportItemKeyID`` (the
/// `localKeyID`) when the file has them. Differences from Apple: no `kSecImportItemTrust` (no
/// `SecTrust` on Linux); the chain is the leaf, then the file's other certificates (Apple builds it
/// by trust evaluation).
///
/// ```swift
/// var items: CFArray?
/// let status = SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase as String: "secret"] as CFDictionary, &items)
/// ```
/// - Parameters:
///   - pkcs12_data: the file.
///   - options: the passphrase (a missing one is the empty passphrase).
///   - items: receives the array of items.
/// - Returns: `errSecSuccess`; `errSecAuthFailed` (-25293) for a wrong passphrase; `errSecDecode`
///   (-26275) when the data is not PKCS #12 or holds no private key with its certificate;
///   `errSecUnimplemented` (-4) for keys other than EC P-256/384/521 and RSA.
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>)
    -> OSStatus
{
    let passphrase = KeyParameters(options).string(kSecImportExportPassphrase) ?? ""
    do {
        let identities = try PKCS12.parseAll(bytes(of: pkcs12_data), passphrase: passphrase)
        items.pointee = NSArray(
            array: identities.map { contents in
                let certificate = SecCertificate(contents.certificate)
                var item: [String: Any] = [
                    String(describing: kSecImportItemIdentity): SecIdentity(
                        certificate: certificate, privateKey: SecKey(contents.privateKey)),
                    String(describing: kSecImportItemCertChain): NSArray(
                        array: [certificate] + contents.chain.dropFirst().map(SecCertificate.init)),
                ]
                if let label = contents.label {
                    item[String(describing: kSecImportItemLabel)] = NSString(string: label)
                }
                if let keyID = contents.keyID { item[String(describing: kSecImportItemKeyID)] = cfData(keyID) }
                return NSDictionary(dictionary: item)
            })
        return errSecSuccess
    } catch {
        items.pointee = nil
        return error.osStatus
    }
}
