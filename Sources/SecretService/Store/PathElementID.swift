internal import KeychainDBus

/// An identifier that is one element of a D-Bus object path: non-empty, at most 255 bytes, made of
/// `[A-Za-z0-9_]` (D-Bus Specification, "Valid Object Paths"). `Kind` tells collections' ids from items'
/// (``CollectionID``, ``ItemID``), so that one cannot be passed for the other; both are validated here once.
package struct PathElementID<Kind: PathElementKind>: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    /// Accepts a non-empty D-Bus path element of at most 255 bytes; `nil` otherwise.
    package init?(_ rawValue: String) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 255, Self.isPathElement(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    package var description: String { rawValue }

    /// Whether every byte of `text` is `[A-Za-z0-9_]` (``isPathElementByte(_:)``, inlined), over its
    /// contiguous UTF-8 when it has it: several paths are checked per D-Bus call, and `utf8.allSatisfy`
    /// went through the view's iterator (tracker issue 29, item 4).
    private static func isPathElement(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPathElementByte) }
            ?? text.utf8.allSatisfy(isPathElementByte)
    }
}

/// What a ``PathElementID`` names: a collection or an item.
package protocol PathElementKind: Sendable {}

/// The kind of ``CollectionID``.
package enum CollectionKind: PathElementKind {}

/// The kind of ``ItemID``.
package enum ItemKind: PathElementKind {}

/// A collection's identifier: the last element of its object path (`/org/freedesktop/secrets/collection/<id>`).
package typealias CollectionID = PathElementID<CollectionKind>

/// An item's identifier inside its collection: the last element of its object path. Stable for the item's
/// whole life (Secret Service API, "Object Paths").
package typealias ItemID = PathElementID<ItemKind>
