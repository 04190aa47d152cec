/// Which of a sealed row's three ciphertexts an associated data is for (``AssociatedData``), the same
/// for every item kind: the item key wrapped by the class key, the content sealed by the item key (a
/// SecItem's attributes; a Secret Service item's label, attributes and dates), and the secret sealed
/// by the item key. The raw values are stored in every row's associated data: permanent.
enum SealedPart: UInt8 {
    case key = 1
    case attributes = 2
    case secret = 3
}
