import Foundation

/// A store that adds something to another store's commits (refusing some, noting each) and
/// reads everything through it, so that the other store's fast reads stay fast.
package protocol WrappingStore: ModelStore {
  /// The store every read goes to.
  var wrapped: any ModelStore { get }
}

extension WrappingStore {
  /// What the wrapped store holds.
  package func load() throws -> StoredState { try wrapped.load() }

  /// What the wrapped store opens a stack with.
  package func loadForOpening() throws -> StoredState { try wrapped.loadForOpening() }

  /// The wrapped store's objects of `type`.
  package func objects<Object: ModelObject>(_ type: Object.Type) throws -> [UUID: Object] {
    try wrapped.objects(type)
  }

  /// The wrapped store's object of `type` with `id`.
  package func object<Object: ModelObject>(_ type: Object.Type, id: UUID) throws -> Object? {
    try wrapped.object(type, id: id)
  }

  /// The wrapped store's page of `type` under `parent`.
  package func children<Object: ModelObject>(
    _ type: Object.Type, of parent: UUID, limit: Int, before: Object?
  ) throws -> [Object] {
    try wrapped.children(type, of: parent, limit: limit, before: before)
  }
}
