import Foundation
import JSON

/// One page of a paged listing: the elements that parsed, the ones that did not, and whether more
/// pages follow.
///
/// Elements parse one by one, so a bad element does not drop the good ones, and its index and
/// errors are kept in ``failures``: nothing is lost silently.
public struct Page<Element: PayloadConvertible>: Sendable {
  /// An element that could not be parsed, with its index in the page and why.
  public struct Failure: Sendable, Hashable, CustomStringConvertible {
    /// The element's position in the page's array.
    public let index: Int
    /// Why it was rejected.
    public let error: PayloadError
    /// The element as it arrived, so it can be logged or retried.
    public let raw: JSONValue

    /// `element 3: payload has 1 bad field: …`.
    public var description: String { "element \(index): \(error)" }
  }

  /// The elements that parsed, in page order.
  public let elements: [Element]
  /// The elements that did not parse.
  public let failures: [Failure]
  /// Whether the backend has more pages.
  public let hasMore: Bool

  /// Creates a page.
  public init(elements: [Element], failures: [Failure], hasMore: Bool) {
    self.elements = elements
    self.failures = failures
    self.hasMore = hasMore
  }

  /// Parses a page `{"<listKey>": [...], "has_more": Bool}` from raw bytes.
  ///
  /// Throws only when the page itself is malformed (not JSON, no list, no `has_more`); bad
  /// elements end up in ``failures``.
  public static func parse(
    _ data: Data, listKey: String, limits: JSONParseLimits = .standard
  ) throws(PayloadError) -> Page {
    try parse(PayloadError.decode(data, limits: limits), listKey: listKey)
  }

  /// Parses a page from an already decoded JSON value.
  public static func parse(_ value: JSONValue, listKey: String) throws(PayloadError) -> Page {
    guard case .object(let members) = value else { throw .notAnObject(found: value.kind) }
    var reader = ObjectReader(members)
    let hasMore = reader.bool("has_more")
    let list = reader.required(listKey, expected: "array")
    if let list, list.arrayValue == nil {
      reader.record(listKey, .wrongType, expected: "array", found: list)
    }
    guard let hasMore, let items = list?.arrayValue, reader.errors.isEmpty else {
      throw reader.failure
    }
    var elements: [Element] = []
    elements.reserveCapacity(items.count)
    var failures: [Failure] = []
    for (index, item) in items.enumerated() {
      do {
        elements.append(try Element.parse(item, path: "\(listKey)[\(index)]"))
      } catch {
        failures.append(Failure(index: index, error: error, raw: item))
      }
    }
    return Page(elements: elements, failures: failures, hasMore: hasMore)
  }

  /// The page as the backend writes it, with `listKey` naming the list.
  public func jsonValue(listKey: String) -> JSONValue {
    .object([listKey: .array(elements.map(\.jsonValue)), "has_more": .bool(hasMore)])
  }
}

extension Page: Equatable where Element: Equatable {}
