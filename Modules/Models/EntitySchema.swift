import Foundation

/// How the model layer handles one entity: its name, the field behind each key, its
/// relationships and the rules a save or a deletion must keep.
///
/// An entity declares its schema once, as ``ModelObject/schema``; the contexts, the stores and
/// the sync layer read it and nothing else, so none of them names entities one by one. It is a
/// class so that reading one part of it, as every save and merge does per key, retains one
/// reference instead of each part.
public final class EntitySchema<Object: ModelObject>: Sendable {
  /// The entity's name in messages, errors and stores.
  package let name: EntityName
  /// Reads and writes the value of a key, for per-key comparison and merging.
  package let field: @Sendable (Object.Key) -> Field<Object>
  /// The keys that hold sets, whose edits the change log follows element by element.
  package let setKeys: Set<Object.Key>
  /// The entity's references to other objects, each with an inverse index.
  package let relationships: [Relationship<Object>]
  /// Where an object stands among the objects of its parent, for a store that lists them in
  /// order from an index: the parent's id and a rank whose bytes sort in that order; `nil` for
  /// an entity whose objects a store lists by id alone.
  package let place: @Sendable (Object) -> (parent: UUID, rank: [UInt8])?
  /// The relationship whose target is the parent of each object's place; an entity that has one
  /// is paged: a context holds the objects of it that were read or changed, and reads the rest
  /// from the store, rather than loading them all when a stack opens.
  package let parent: Relationship<Object>?
  /// The rules an object breaks, given its previous saved value and the context it is saved in.
  package let violations:
    @Sendable (_ object: Object, _ previous: Object?, _ context: ModelContext) -> [ValidationRule]
  /// The rules a local deletion of an object breaks, such as an object the backend never
  /// deletes; server deletions are not checked.
  package let deletionViolations:
    @Sendable (_ object: Object, _ context: ModelContext) -> [ValidationRule]

  /// A schema named `name`, with `field` behind each key, `relationships`, the `place` of an
  /// object among its `parent`'s, and the rules a save (`violations`) and a local deletion
  /// (`deletionViolations`) check; no relationships, no places and no rules unless given.
  package init(
    name: EntityName,
    field: @escaping @Sendable (Object.Key) -> Field<Object>,
    relationships: [Relationship<Object>] = [],
    place: @escaping @Sendable (Object) -> (parent: UUID, rank: [UInt8])? = { _ in nil },
    parent: Relationship<Object>? = nil,
    violations: @escaping @Sendable (Object, Object?, ModelContext) -> [ValidationRule] = {
      _, _, _ in []
    },
    deletionViolations: @escaping @Sendable (Object, ModelContext) -> [ValidationRule] = {
      _, _ in []
    }
  ) {
    self.name = name
    self.field = field
    setKeys = Set(Object.Key.allCases.filter { field($0).holdsSet })
    self.relationships = relationships
    self.place = place
    self.parent = parent
    self.violations = violations
    self.deletionViolations = deletionViolations
  }
}
