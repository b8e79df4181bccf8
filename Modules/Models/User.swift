import Foundation

/// A person on Courier; exactly one user of a store is the self user, the one signed in.
public struct User: ModelObject {
  /// The keys of a user that can change.
  public enum Key: String, Sendable, DeclarationOrdered {
    /// ``User/name``.
    case name
    /// ``User/handle``.
    case handle
    /// ``User/accentID``.
    case accentID
    /// ``User/email``.
    case email
  }

  /// The user's id, the backend's once known.
  public let id: UUID
  /// Whether this is the signed-in user.
  public let isSelf: Bool
  /// The display name; never empty once saved.
  public var name: String
  /// The unique handle, if the user chose one.
  public var handle: String?
  /// The colour the user picked, as the backend numbers it.
  public var accentID: Int
  /// The email address, if visible to the self user.
  public var email: String?

  /// Creates a user.
  public init(
    id: UUID, isSelf: Bool = false, name: String, handle: String? = nil, accentID: Int = 0,
    email: String? = nil
  ) {
    self.id = id
    self.isSelf = isSelf
    self.name = name
    self.handle = handle
    self.accentID = accentID
    self.email = email
  }

  /// A user's name, fields and rules: a save may not give a user a blank name (a blank name the
  /// backend gave it before does not stop a change of another key), and the self user is never
  /// deleted (other users are only forgotten locally).
  public static let schema = EntitySchema<User>(
    name: .user,
    field: { key in
      switch key {
      case .name: Field(get: { $0.name }, set: { $0.name = $1 })
      case .handle: Field(get: { $0.handle }, set: { $0.handle = $1 })
      case .accentID: Field(get: { $0.accentID }, set: { $0.accentID = $1 })
      case .email: Field(get: { $0.email }, set: { $0.email = $1 })
      }
    },
    violations: { user, previous, _ in
      user.name.isBlank && previous?.name != user.name ? [.nameNotEmpty(.user)] : []
    },
    deletionViolations: { user, _ in
      user.isSelf
        ? [.deletionNotSynchronisable(.user, reason: "the signed-in user is never deleted")] : []
    })
}

extension EntityName {
  /// ``User``.
  public static let user: EntityName = "User"
}

extension String {
  /// Whether the string holds nothing but whitespace.
  var isBlank: Bool { allSatisfy(\.isWhitespace) }
}
