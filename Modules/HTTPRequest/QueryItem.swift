/// One `name=value` pair of a request's query, kept in the order it was added.
public struct QueryItem: Sendable, Hashable {
  /// The decoded name.
  public var name: String
  /// The decoded value; an empty value is written as `name=`.
  public var value: String

  /// Creates a query item from its decoded name and value.
  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }

  /// The item as it goes on the wire, with name and value percent-encoded.
  public var encoded: String {
    PercentEncoding.encode(name) + "=" + PercentEncoding.encode(value)
  }
}
