import Foundation
import JSON
import ParsingCore

/// An element of a page that could not be read and was passed over: where it was in the page,
/// its id if that much could be read, and why.
public struct UnreadableElement: Sendable, Hashable, CustomStringConvertible {
  /// The element's position in the page.
  public let index: Int
  /// The element's id (for a connection, the other user's), if it could be read.
  public let id: UUID?
  /// Why the element could not be read.
  public let error: PayloadError

  /// Creates the record of an element that could not be read.
  public init(index: Int, id: UUID?, error: PayloadError) {
    self.index = index
    self.id = id
    self.error = error
  }

  /// `element 1 (3f2a…): payload has 1 bad field: …`.
  public var description: String {
    "element \(index)" + (id.map { " (\($0.lowercasedText))" } ?? "") + ": \(error)"
  }
}
