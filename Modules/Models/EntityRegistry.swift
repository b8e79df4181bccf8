/// The entities a stack knows, in the order it goes through them: every per-entity container and
/// operation (tables, edits, change sets, the change log, merging, validation) iterates it.
///
/// Adding an entity to Courier is its type, its rules, and one line in ``standard``. A test or an
/// app can also open a stack with more entities without changing this file:
///
/// ```swift
/// let stack = ModelStack.inMemory(entities: EntityRegistry.standard.adding(Reaction.self))
/// ```
public struct EntityRegistry: Sendable {
  /// The entity types, in order.
  public let types: [any ModelObject.Type]

  /// Creates a registry of `types`; a type listed twice counts once.
  public init(_ types: [any ModelObject.Type]) {
    var seen: Set<ObjectIdentifier> = []
    self.types = types.filter { seen.insert(ObjectIdentifier($0)).inserted }
  }

  /// Courier's entities.
  public static let standard = EntityRegistry([
    User.self, Connection.self, Conversation.self, Message.self,
  ])

  /// This registry with `type` added at the end.
  public func adding(_ type: any ModelObject.Type) -> EntityRegistry {
    EntityRegistry(types + [type])
  }

  /// The names of the entities, in order.
  public var names: [EntityName] { types.map { $0.entityName } }

  /// The type of the entity called `name`, if the registry has it.
  public func type(named name: EntityName) -> (any ModelObject.Type)? {
    types.first { $0.entityName == name }
  }

  /// Whether the registry holds `type`.
  public func contains(_ type: any ModelObject.Type) -> Bool {
    types.contains { ObjectIdentifier($0) == ObjectIdentifier(type) }
  }
}
