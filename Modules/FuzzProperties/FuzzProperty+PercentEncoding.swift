import Foundation
import HTTPRequest

extension FuzzProperty {
  /// Text put in a path segment or a query value by `HTTPRequest` comes back unchanged from
  /// `URLComponents`, and a path segment never holds an unescaped `/`, `?` or `#`.
  public static let percentEncoding = FuzzProperty(name: "percent-encoding") { bytes in
    guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
    return percentEncodingRoundTrip(text, encode: PercentEncoding.encode)
  }

  /// The percent-encoding property with `encode` as the encoder: a test gives it a broken one
  /// to prove that it can fail.
  public static func percentEncodingRoundTrip(_ text: String, encode: (String) -> String)
    -> String?
  {
    let encoded = encode(text)
    if let bad = encoded.first(where: { "/?#".contains($0) }) {
      return "'\(text)' encodes to '\(encoded)', which holds an unescaped '\(bad)'"
    }
    guard
      let components = URLComponents(string: "https://example.com/a/\(encoded)?q=\(encoded)")
    else {
      return "'\(text)' encodes to '\(encoded)', which URLComponents cannot read"
    }
    let segment = components.percentEncodedPath.split(
      separator: "/", omittingEmptySubsequences: false
    )
    .last.map(String.init)?.removingPercentEncoding
    if segment != text {
      return "'\(text)' as a path segment reads back as '\(segment ?? "nil")'"
    }
    let query = components.queryItems?.first?.value
    if query != text {
      return "'\(text)' as a query value reads back as '\(query ?? "nil")'"
    }
    return nil
  }
}
