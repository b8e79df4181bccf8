/// One element of a set-valued key, of whatever type the key holds: what the change log's
/// record of element edits is keyed by.
package struct SetElement: Hashable, @unchecked Sendable {
  // Unchecked: the only initialiser takes a `Sendable` value, so the box holds nothing else.
  private let value: AnyHashable

  /// Wraps `element`.
  package init<Element: Hashable & Sendable>(_ element: Element) {
    value = AnyHashable(element)
  }
}
