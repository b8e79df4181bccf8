/// The entities a stack knows, in the order it goes through them: every per-entity container and
/// operation (tables, edits, change sets, the change log, merging, validation) iterates it.
///
/// Adding an entity to Courier is its type, its schema, and one line in ``standard``. A test can
/// also open a stack with more entities without changing this file:
///
/// ```swift
/// let stack = ModelStack.inMemory(Tables(), entities: EntityRegistry.standard.adding(Reaction.self))
/// ```
package struct EntityRegistry: Sendable {
  /// The entity types, in order.
  package let types: [any ModelObject.Type]

  /// Creates a registry of `types`; a type listed twice counts once.
  package init(_ types: [any ModelObject.Type]) {
    var seen: Set<ObjectIdentifier> = []
    self.types = types.filter { seen.insert(ObjectIdentifier($0)).inserted }
  }

  /// Courier's entities.
  package static let standard = EntityRegistry([
    User.self, Connection.self, Conversation.self, Message.self,
  ])

  /// This registry with `type` added at the end.
  package func adding(_ type: any ModelObject.Type) -> EntityRegistry {
    EntityRegistry(types + [type])
  }

  /// The names of the entities, in order.
  package var names: [EntityName] { types.map { $0.entityName } }

  /// The type of the entity called `name`, if the registry has it.
  package func type(named name: EntityName) -> (any ModelObject.Type)? {
    types.first { $0.entityName == name }
  }

  /// Whether the registry holds `type`.
  package func contains(_ type: any ModelObject.Type) -> Bool {
    types.contains { ObjectIdentifier($0) == ObjectIdentifier(type) }
  }
}
