import Foundation
internal import KeychainCrypto

/// Reads the key, certificate and PKCS #12 dictionaries of the `SecKey…` functions: `String`- or
/// `NSString`-keyed, values as Swift or Foundation types.
struct KeyParameters {
    private var values: [String: Any] = [:]

    init(_ dictionary: CFDictionary?) {
        dictionary?.enumerateKeysAndObjects { key, value, _ in
            if let key = key as? String {
                values[key] = value
            } else if let key = key as? NSString {
                values[String(describing: key)] = value
            }
        }
    }

    subscript(_ key: CFString) -> Any? { values[String(describing: key)] }

    func string(_ key: CFString) -> String? {
        switch self[key] {
        case let value as String: value
        case let value as NSString: String(describing: value)
        case let value as NSNumber: value.stringValue
        default: nil
        }
    }

    func int(_ key: CFString) -> Int? {
        switch self[key] {
        case let value as Int: value
        case let value as NSNumber: value.intValue
        case let value as String: Int(value)
        case let value as NSString: Int(String(describing: value))
        default: nil
        }
    }

    func bool(_ key: CFString) -> Bool? {
        switch self[key] {
        case let value as Bool: value
        case let value as NSNumber: value.boolValue
        default: nil
        }
    }

    func data(_ key: CFString) -> [UInt8]? {
        switch self[key] {
        case let value as Data: Array(value)
        case let value as NSData: Array(Data(referencing: value))
        default: nil
        }
    }

    func dictionary(_ key: CFString) -> KeyParameters? {
        switch self[key] {
        case let value as NSDictionary: KeyParameters(value)
        case let value as [String: Any]: KeyParameters(NSDictionary(dictionary: value))
        default: nil
        }
    }
}

extension CryptoError {
    /// Reports this error through a `CFErrorRef *` out-parameter (Apple's `SecError`: domain
    /// `kCFErrorDomainOSStatus`, the status as code, the message) and returns `nil`.
    func report<T>(to error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> T? {
        CFError.report(osStatus, description, to: error)
    }
}

/// `CFData` of `bytes`.
func cfData<Bytes: Sequence>(_ bytes: Bytes) -> CFData where Bytes.Element == UInt8 { NSData(data: Data(bytes)) }

/// The bytes of a `CFData`.
func bytes(of data: CFData) -> [UInt8] { Array(Data(referencing: data)) }
