/// What a user's change of some keys of an object is measured against: the value the backend
/// was taken to hold for those keys when the user last changed them.
///
/// A change of members, say, is the members added and removed relative to it, so that news of
/// older changes by others do not undo it.
package struct EditBase<Object: ModelObject>: Sendable, Equatable {
  /// The keys the user changed.
  package internal(set) var keys: Set<Object.Key>
  /// The object whose values of ``keys`` the changes are measured against; its other keys mean
  /// nothing.
  package internal(set) var value: Object

  /// Creates the base of a change of `keys`, measured against `value`.
  package init(keys: Set<Object.Key>, value: Object) {
    self.keys = keys
    self.value = value
  }

  /// Adds a later change of `keys`, measured against `backend`: those keys take its values.
  mutating func add(_ keys: Set<Object.Key>, measuredAgainst backend: Object) {
    for key in keys { Object.field(key).copy(&value, backend) }
    self.keys.formUnion(keys)
  }
}
