import Foundation

/// Read access to the objects a context can see, as validation rules and relationship queries use
/// it.
public protocol ModelLookup {
  /// The object of type `type` with `id`, including unsaved edits, or `nil` if there is none.
  func object<Object: ModelObject>(_ type: Object.Type, id: UUID) -> Object?
}
