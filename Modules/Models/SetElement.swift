import Foundation

/// One element of a set-valued key, of whatever type the key holds: what the change log's
/// record of element edits is keyed by.
package struct SetElement: Hashable, @unchecked Sendable {
  // Unchecked: the only initialiser takes a `Sendable` value, so the box holds nothing else.
  private let value: AnyHashable

  /// Wraps `element`.
  package init<Element: Hashable & Sendable>(_ element: Element) {
    value = AnyHashable(element)
  }

  /// The element as a store keeps it: a `UUID` (the members of a group) or a `String` as its
  /// text; `nil` for an element of another type.
  package var text: String? {
    if let uuid = value.base as? UUID { return uuid.uuidString }
    return value.base as? String
  }

  /// An element read back from its ``text``: a `UUID` where the text is one, else the text.
  package init(text: String) {
    if let uuid = UUID(uuidString: text) { self.init(uuid) } else { self.init(text) }
  }
}
