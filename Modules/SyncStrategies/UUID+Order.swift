import Foundation

extension UUID {
  /// Whether this id comes before `other` in byte order: a total order that allocates nothing,
  /// unlike comparing `uuidString`s.
  func precedes(_ other: UUID) -> Bool {
    withUnsafeBytes(of: uuid) { lhs in
      withUnsafeBytes(of: other.uuid) { rhs in
        lhs.lexicographicallyPrecedes(rhs)
      }
    }
  }
}
