public import Foundation
package import KeychainCrypto

/// An X.509 certificate.
///
/// Follows Apple's `SecCertificate` (SecCertificate.h;
/// https://developer.apple.com/documentation/security/seccertificate). Create one from DER with
/// ``SecCertificateCreateWithData(_:_:)``. Two certificates are equal when their DER is equal, as
/// Apple's `CFEqual` compares them.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The parsed certificate.
    package let certificate: Certificate

    init(_ certificate: Certificate) { self.certificate = certificate }

    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.certificate == rhs.certificate }
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }

    /// As Apple's: `<cert(0x…) s: subject summary i: issuer …>` without key material.
    public var description: String { "<cert s: \(certificate.subjectSummary ?? "")>" }
}

/// Returns the type identifier of `SecCertificate` objects.
///
/// Follows SecCertificate.h `SecCertificateGetTypeID`. The value is stable within a process.
public func SecCertificateGetTypeID() -> CFTypeID {
    CFTypeID(bitPattern: ObjectIdentifier(SecCertificate.self).hashValue)
}

/// Creates a certificate from its DER encoding.
///
/// Follows Apple's `SecCertificateCreateWithData` (SecCertificate.h): DER only (PEM returns `nil`,
/// as on Apple platforms).
///
/// ```swift
/// guard let certificate = SecCertificateCreateWithData(nil, derData as CFData) else { … }
/// ```
/// - Parameters:
///   - allocator: ignored (`nil` or `kCFAllocatorDefault`).
///   - data: one DER-encoded X.509 certificate, nothing before or after it.
/// - Returns: the certificate, or `nil` when `data` is not one.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    (try? Certificate(der: bytes(of: data))).map(SecCertificate.init)
}

/// Returns a certificate's DER encoding.
///
/// Follows Apple's `SecCertificateCopyData` (SecCertificate.h).
/// - Parameter certificate: the certificate.
/// - Returns: the DER it was created from.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData { cfData(certificate.certificate.der) }

/// Returns a short human-readable summary of the certificate's subject.
///
/// Follows Apple's `SecCertificateCopySubjectSummary` (SecCertificate.h): the subject's common
/// name; without one its first email address, organizational unit or organization; else the
/// whole subject.
/// - Parameter certificate: the certificate.
/// - Returns: the summary, or `nil` for an empty subject.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.certificate.subjectSummary.map { NSString(string: $0) }
}

/// Returns the common name of the certificate's subject.
///
/// Follows Apple's `SecCertificateCopyCommonName` (SecCertificate.h): the last common name of the
/// subject, as Security's implementation returns the last of `SecCertificateCopyCommonNames`.
/// - Parameters:
///   - certificate: the certificate.
///   - commonName: receives the common name (create rule).
/// - Returns: `errSecSuccess`, or `errSecInternal` (-26276) when the subject has no common name
///   (`commonName` is then `nil`).
public func SecCertificateCopyCommonName(
    _ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>
) -> OSStatus {
    guard let name = certificate.certificate.commonName else {
        commonName.pointee = nil
        return errSecInternal
    }
    commonName.pointee = NSString(string: name)
    return errSecSuccess
}

/// Returns the email addresses of the certificate.
///
/// Follows Apple's `SecCertificateCopyEmailAddresses` (SecCertificate.h): the subject's
/// `emailAddress` attributes and the `rfc822Name`s of the subject alternative name.
/// - Parameters:
///   - certificate: the certificate.
///   - emailAddresses: receives an array of strings, empty when there are none (create rule).
/// - Returns: `errSecSuccess`.
public func SecCertificateCopyEmailAddresses(
    _ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    emailAddresses.pointee = NSArray(array: certificate.certificate.emailAddresses.map { NSString(string: $0) })
    return errSecSuccess
}

/// Returns the certificate's public key.
///
/// Follows Apple's `SecCertificateCopyKey` (SecCertificate.h).
/// - Parameter certificate: the certificate.
/// - Returns: the public key, or `nil` when it is neither an EC (P-256/384/521) nor an RSA key.
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    (try? certificate.certificate.publicKey()).map { SecKey($0) }
}

/// Returns the certificate's serial number.
///
/// Follows Apple's `SecCertificateCopySerialNumberData` (SecCertificate.h): the content octets of
/// the DER `INTEGER` (a positive number whose top bit is set keeps its leading `00`).
/// - Parameters:
///   - certificate: the certificate.
///   - error: on failure, a `CFError` in `kCFErrorDomainOSStatus`.
/// - Returns: the serial number, or `nil` with `error` set to `errSecDecode` (-26275).
public func SecCertificateCopySerialNumberData(
    _ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    do { return cfData(try certificate.certificate.serialNumber) } catch let failure {
        return failure.report(to: error)
    }
}

/// Returns the normalized issuer of the certificate, the `kSecAttrIssuer` of certificate items.
///
/// Follows Apple's `SecCertificateCopyNormalizedIssuerSequence` (SecCertificate.h; normalized as
/// Security's `createNormalizedX501Name`: `PrintableString` values upper-cased with blank runs
/// collapsed and ends trimmed, everything else unchanged).
/// - Parameter certificate: the certificate.
/// - Returns: the DER of the normalized name (a `SEQUENCE`), or `nil` if the name is malformed.
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    (try? certificate.certificate.normalizedIssuerSequence).map { cfData($0) }
}

/// Returns the normalized subject of the certificate, the `kSecAttrSubject` of certificate items.
///
/// Follows Apple's `SecCertificateCopyNormalizedSubjectSequence` (SecCertificate.h), normalized as
/// ``SecCertificateCopyNormalizedIssuerSequence(_:)``.
/// - Parameter certificate: the certificate.
/// - Returns: the DER of the normalized name (a `SEQUENCE`), or `nil` if the name is malformed.
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    (try? certificate.certificate.normalizedSubjectSequence).map { cfData($0) }
}
