// CFBase.h's allocator type. On Linux memory is Swift's; allocators are accepted and ignored.

/// A Core Foundation memory allocator. Functions that take one (`SecAccessControlCreateWithFlags`,
/// `CFErrorCreate`) accept `kCFAllocatorDefault` or `nil` and use Swift's memory.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator. As on Apple platforms (CFBase.h: `kCFAllocatorDefault` is `NULL`), its
/// value is `nil`, typed `CFAllocator!`.
public let kCFAllocatorDefault: CFAllocator! = nil
