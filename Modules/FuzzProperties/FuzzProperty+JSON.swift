import JSON

extension FuzzProperty {
  /// `JSONParser` never traps, and a value it reads writes back to text that reads as the same
  /// value.
  public static let json = FuzzProperty(name: "json") { bytes in
    jsonRoundTrip(bytes, write: { $0.serialized() })
  }

  /// The JSON property with `write` as the writer: a test gives it a broken one to prove that
  /// it can fail.
  public static func jsonRoundTrip(_ bytes: [UInt8], write: (JSONValue) -> [UInt8]) -> String? {
    let value: JSONValue
    do {
      value = try JSONParser.parse(bytes)
    } catch {
      return nil  // a typed refusal is a correct answer
    }
    let written = write(value)
    do {
      let reread = try JSONParser.parse(written)
      return reread == value
        ? nil : "read \(value), wrote \(String(decoding: written, as: UTF8.self)), reread \(reread)"
    } catch {
      return "read \(value), wrote text it refuses: \(error)"
    }
  }
}
