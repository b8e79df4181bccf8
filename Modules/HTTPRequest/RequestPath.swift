import Foundation
import JSON

/// The path of a request, held as raw segments and percent-encoded one segment at a time.
///
/// Build it from segments, or from a template literal whose interpolations are typed values:
///
/// ```swift
/// let path: RequestPath = "/conversations/\(conversationID)/members"
/// ```
///
/// Literal text is split on `/`; an interpolated value always stays inside one segment, so a `/`,
/// `?` or `#` in it is escaped rather than read as structure. Empty, `.` and `..` segments are
/// refused when the request is built.
public struct RequestPath: Sendable, Hashable, CustomStringConvertible {
  /// The decoded segments, in order; the root path has none.
  public private(set) var segments: [String]
  private var literalProblem: HTTPRequestError?

  /// Creates a path from decoded segments; `["users", "42"]` is `/users/42`.
  public init(segments: [String]) {
    self.segments = segments
  }

  /// The path as it goes on the wire: `/` followed by the encoded segments.
  public var encoded: String {
    "/" + segments.map(PercentEncoding.encode).joined(separator: "/")
  }

  /// The encoded path.
  public var description: String { encoded }

  /// Throws if a segment is empty, `.` or `..`, or if the literal did not start with `/`.
  public func validate() throws(HTTPRequestError) {
    if let literalProblem { throw literalProblem }
    for segment in segments where segment.isEmpty || segment == "." || segment == ".." {
      throw .invalidPathSegment(segment)
    }
  }

  /// Returns this path with `segment` appended.
  public func appending(_ segment: String) -> RequestPath {
    var copy = self
    copy.segments.append(segment)
    return copy
  }
}

extension RequestPath: ExpressibleByStringInterpolation {
  /// Creates a path from a literal such as `"/self"`.
  public init(stringLiteral value: String) {
    var interpolation = StringInterpolation(
      literalCapacity: value.utf8.count, interpolationCount: 0)
    interpolation.appendLiteral(value)
    self.init(stringInterpolation: interpolation)
  }

  /// Creates a path from a template whose interpolations each land inside one segment.
  public init(stringInterpolation: StringInterpolation) {
    var segments = stringInterpolation.segments
    if stringInterpolation.startsWithSlash { segments.removeFirst() }
    if segments.count == 1 && segments[0].isEmpty { segments = [] }
    self.segments = segments
    self.literalProblem =
      stringInterpolation.startsWithSlash
      ? nil : .pathNotAbsolute(stringInterpolation.source)
  }

  /// Collects a path template: literal `/` separates segments, interpolated values never do.
  public struct StringInterpolation: StringInterpolationProtocol {
    fileprivate var segments: [String] = [""]
    fileprivate var startsWithSlash = false
    fileprivate var source = ""
    private var started = false

    /// Prepares an empty template.
    public init(literalCapacity: Int, interpolationCount: Int) {
      // Most paths hold a few segments: room for them up front saves regrowing the array.
      segments.reserveCapacity(4)
    }

    /// Appends literal text, starting a new segment at each `/`.
    public mutating func appendLiteral(_ literal: String) {
      guard !literal.isEmpty else { return }
      let slash = UInt8(ascii: "/")
      if !started {
        started = true
        startsWithSlash = literal.utf8.first == slash
      }
      // The source is kept only to name a path that is not absolute in the error.
      if !startsWithSlash { source += literal }
      // A `/` is one byte in UTF-8 and never part of another character, so the literal splits
      // on its bytes: each `/` ends the current segment and starts an empty one.
      let bytes = literal.utf8
      var start = bytes.startIndex
      var index = start
      while index != bytes.endIndex {
        if bytes[index] == slash {
          Self.append(literal[start..<index], to: &segments[segments.count - 1])
          segments.append("")
          start = bytes.index(after: index)
        }
        index = bytes.index(after: index)
      }
      Self.append(literal[start..<bytes.endIndex], to: &segments[segments.count - 1])
    }

    /// Appends `piece` to `segment` as a string: an empty segment takes it whole, and a string
    /// appends without the generic path a substring takes.
    private static func append(_ piece: Substring, to segment: inout String) {
      guard !piece.isEmpty else { return }
      if segment.isEmpty {
        segment = String(piece)
      } else {
        segment += String(piece)
      }
    }

    /// Appends a string value inside the current segment, escaping any `/` it holds.
    public mutating func appendInterpolation(_ value: String) {
      started = true
      if !startsWithSlash { source += value }
      segments[segments.count - 1] += value
    }

    /// Appends a UUID, lowercased as the backend writes ids.
    public mutating func appendInterpolation(_ value: UUID) {
      appendInterpolation(value.lowercasedText)
    }

    /// Appends a whole number.
    public mutating func appendInterpolation(_ value: Int) {
      appendInterpolation(String(value))
    }
  }
}
