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

  /// `User`.
  public static var entityName: EntityName { .user }

  /// The field behind each key.
  public static func field(_ key: Key) -> Field<User> {
    switch key {
    case .name: Field(\.name)
    case .handle: Field(\.handle)
    case .accentID: Field(\.accentID)
    case .email: Field(\.email)
    }
  }

  /// A user breaks the rule when the save gives it a name that is blank; a blank name it had
  /// before (the backend's) does not stop a change of another key.
  public func violations(previous: User?, in lookup: any ModelLookup) -> [ValidationRule] {
    name.isBlank && previous?.name != name ? [.nameNotEmpty(.user)] : []
  }

  /// The self user cannot be deleted; other users are only forgotten locally.
  public func deletionViolations(in lookup: any ModelLookup) -> [ValidationRule] {
    isSelf ? [.deletionNotSynchronisable(.user, reason: "the signed-in user is never deleted")] : []
  }
}

extension EntityName {
  /// ``User``.
  public static let user: EntityName = "User"
}

extension String {
  /// Whether the string holds nothing but whitespace.
  var isBlank: Bool { allSatisfy(\.isWhitespace) }
}
