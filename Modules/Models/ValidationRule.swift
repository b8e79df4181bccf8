import Foundation

/// A rule of the model layer that a save checks, named so an error says which one was broken.
public enum ValidationRule: Sendable, Hashable, CustomStringConvertible {
  /// A name (of a user or a conversation) must contain more than whitespace.
  case nameNotEmpty(EntityName)
  /// A connection's status may only change along the allowed transitions.
  case statusTransition(from: Connection.Status, to: Connection.Status)
  /// A connection joins two different users.
  case connectionToSelf
  /// A message belongs to a conversation that exists.
  case messageNeedsConversation(UUID)
  /// A message's text must contain more than whitespace.
  case messageTextNotEmpty
  /// The backend has no way to delete this object, so deleting it locally could never be
  /// synchronised; the reason says what to do instead.
  case deletionNotSynchronisable(EntityName, reason: String)
  /// A rule an entity declares for itself: a stable name and the sentence that explains it.
  case declared(name: String, description: String)

  /// The rule as a sentence, such as `status cannot change from cancelled to sent`.
  public var description: String {
    switch self {
    case .nameNotEmpty(let entity): "a \(entity.rawValue.lowercased())'s name must not be empty"
    case .statusTransition(let from, let to):
      "status cannot change from \(from.rawValue) to \(to.rawValue)"
    case .connectionToSelf: "a connection must join two different users"
    case .messageNeedsConversation(let id):
      "a message needs an existing conversation, and \(id.uuidString.lowercased()) does not exist"
    case .messageTextNotEmpty: "a message's text must not be empty"
    case .deletionNotSynchronisable(let entity, let reason):
      "a \(entity.rawValue.lowercased()) cannot be deleted: \(reason)"
    case .declared(_, let description): description
    }
  }
}

/// One broken rule on one object.
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
  /// The object that breaks the rule.
  public let object: ObjectReference
  /// The rule it breaks.
  public let rule: ValidationRule

  /// Creates a failure of `object` against `rule`.
  package init(object: ObjectReference, rule: ValidationRule) {
    self.object = object
    self.rule = rule
  }

  /// Reads as `Connection 3f2a…: status cannot change from cancelled to sent`.
  public var description: String { "\(object): \(rule)" }
}

/// Why a save did not happen; the context was rolled back to its last saved state.
public enum SaveError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The unsaved changes broke rules; every failure is listed, sorted by object.
  case invalid([ValidationFailure])
  /// The store refused the change set.
  case store(String)

  /// The broken rules, one per line, or the store's reason.
  public var description: String {
    switch self {
    case .invalid(let failures):
      "The save broke \(failures.count) \(failures.count == 1 ? "rule" : "rules"): "
        + failures.map(\.description).joined(separator: "; ")
    case .store(let reason): "The store refused the save: \(reason)"
    }
  }

  /// The validation failures, empty for a store error.
  public var failures: [ValidationFailure] {
    if case .invalid(let failures) = self { return failures }
    return []
  }
}

/// Why an edit could not be made in a context.
public enum ContextError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No object with this reference exists in the context.
  case notFound(ObjectReference)
  /// An object with this reference exists already, so it cannot be inserted again.
  case alreadyExists(ObjectReference)
  /// The stack was opened without this entity in its registry.
  case unknownEntity(EntityName)

  /// Names the object and what was wrong.
  public var description: String {
    switch self {
    case .notFound(let reference): "\(reference) does not exist"
    case .alreadyExists(let reference): "\(reference) exists already"
    case .unknownEntity(let name): "the stack does not know the entity \(name)"
    }
  }
}
