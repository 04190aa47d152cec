internal import COpenSSL

/// Small helpers over libcrypto shared by the files of this module. Only this module imports
/// `COpenSSL`, and only with `internal import`, so no OpenSSL type leaves it.
enum OpenSSL {
    /// The oldest queued OpenSSL error as text (for `CryptoError.library`), clearing the queue.
    static func drainErrors() -> String {
        var first: String?
        while true {
            let code = libcrypto.ERR_get_error()
            if code == 0 { break }
            if first == nil, let reason = libcrypto.ERR_reason_error_string(code) { first = String(cString: reason) }
        }
        return first ?? "no OpenSSL error queued"
    }

    /// Clears the error queue and returns whether any queued error has `reason` in library `library`.
    static func drainErrors(matching library: Int32, reason: Int32) -> Bool {
        var found = false
        while true {
            let code = libcrypto.ERR_get_error()
            if code == 0 { break }
            if copenssl_err_lib(code) == library && copenssl_err_reason(code) == reason { found = true }
        }
        return found
    }

    /// Throws `CryptoError.library` naming `operation` unless `result` is 1 (OpenSSL's success).
    static func check(_ result: Int32, _ operation: String) throws(CryptoError) {
        if result != 1 { throw .library("\(operation): \(drainErrors())") }
    }

    /// A memory BIO reading `bytes` (copied), freed by the caller with `BIO_free`.
    static func readBIO(_ bytes: [UInt8]) throws(CryptoError) -> OpaquePointer {
        let bio = libcrypto.BIO_new(libcrypto.BIO_s_mem())
        guard let bio else { throw .library("BIO_new: \(drainErrors())") }
        let written = bytes.withUnsafeBytes { libcrypto.BIO_write(bio, $0.baseAddress, Int32($0.count)) }
        guard written == Int32(bytes.count) || bytes.isEmpty else {
            _ = libcrypto.BIO_free(bio)
            throw .library("BIO_write: \(drainErrors())")
        }
        return bio
    }

    /// The bytes written into a memory BIO.
    static func contents(of bio: OpaquePointer) -> [UInt8] {
        var data: UnsafeMutablePointer<CChar>?
        let count = copenssl_bio_mem_data(bio, &data)
        guard let data, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }

    /// The DER of an object through its `i2d_…` function.
    static func der(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws(CryptoError)
        -> [UInt8]
    {
        let length = encode(nil)
        guard length > 0 else { throw .library("i2d: \(drainErrors())") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else { throw .library("i2d: \(drainErrors())") }
        return bytes
    }

    /// Decodes DER with a `d2i_…` function and insists that it use every byte.
    static func decode(
        _ bytes: [UInt8], what: String,
        _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    ) throws(CryptoError) -> (object: OpaquePointer, free: Bool) {
        guard !bytes.isEmpty else { throw .decode("\(what): no bytes") }
        let result: (OpaquePointer?, Int) = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let object = decode(&cursor, buffer.count)
            let used = cursor.map { $0 - buffer.baseAddress! } ?? 0
            return (object, used)
        }
        guard let object = result.0 else {
            _ = drainErrors()
            throw .decode(what)
        }
        return (object, result.1 == bytes.count)
    }

    /// A message digest from Apple's hash names.
    static func digest(_ hash: HashFunction) -> OpaquePointer {
        switch hash {
        case .md5: libcrypto.EVP_md5()!
        case .sha1: libcrypto.EVP_sha1()!
        case .sha224: libcrypto.EVP_sha224()!
        case .sha256: libcrypto.EVP_sha256()!
        case .sha384: libcrypto.EVP_sha384()!
        case .sha512: libcrypto.EVP_sha512()!
        }
    }

    /// `hash` of `message`.
    static func hash(_ hash: HashFunction, _ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: hash.byteCount)
        var length: UInt32 = 0
        let result = message.withUnsafeBytes { input in
            output.withUnsafeMutableBufferPointer { out in
                libcrypto.EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, digest(hash), nil)
            }
        }
        try check(result, "EVP_Digest")
        return output
    }

    /// A big number's big-endian bytes, left-padded to `width`.
    static func bytes(of number: OpaquePointer, width: Int) throws(CryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: width)
        let written = output.withUnsafeMutableBufferPointer {
            libcrypto.BN_bn2binpad(number, $0.baseAddress, Int32(width))
        }
        guard written == Int32(width) else { throw .library("BN_bn2binpad: \(drainErrors())") }
        return output
    }
}

/// The hash functions of Apple's algorithm names.
package enum HashFunction: String, CaseIterable, Sendable {
    case md5 = "MD5"
    case sha1 = "SHA1"
    case sha224 = "SHA224"
    case sha256 = "SHA256"
    case sha384 = "SHA384"
    case sha512 = "SHA512"

    /// The digest length in bytes.
    package var byteCount: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The digest of `message`.
    package func hash(_ message: [UInt8]) throws(CryptoError) -> [UInt8] { try OpenSSL.hash(self, message) }
}
