import Foundation
import FuzzProperties
import JSON
import LoopbackServer
import ParsingCore
import TestSupport
import Testing

@Suite("FuzzProperty", .tags(.parsing, .encoding, .robustness), .timeBudget(.seconds(10)))
struct FuzzPropertyTests {
  /// The inputs committed for `property`: its seed corpus and every input that ever failed.
  static func committedInputs(of property: FuzzProperty) throws -> [(String, [UInt8])] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    var inputs: [(String, [UInt8])] = []
    for folder in ["corpus", "crashes"] {
      let directory = root.appendingPathComponent("Tools/fuzz-targets/\(property.name)/\(folder)")
      let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      for name in names.sorted() where !name.hasPrefix(".") {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        inputs.append(("\(folder)/\(name)", Array(data)))
      }
    }
    return inputs
  }

  @Test(
    "Every committed input of a target, seeds and past crashes, keeps its property",
    arguments: FuzzProperty.all.map(\.name))
  func committedInputsHold(name: String) throws {
    // given
    let property = try #require(FuzzProperty.all.first { $0.name == name })
    let inputs = try Self.committedInputs(of: property)

    // when
    let failures = inputs.compactMap { input in property.check(input.1).map { "\(input.0): \($0)" }
    }

    // then
    #expect(!inputs.isEmpty)
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test("The JSON property fails for a writer that loses a byte")
  func jsonCanFail() {
    // given
    let input = Array(#"{"a":[1,2]}"#.utf8)

    // when
    let failure = FuzzProperty.jsonRoundTrip(input) { Array($0.serialized().dropLast()) }
    let held = FuzzProperty.json.check(input)

    // then
    #expect(failure != nil)
    #expect(held == nil)
  }

  @Test("The percent-encoding property fails for an encoder that lets '/' through")
  func percentEncodingCanFail() {
    // when
    let slash = FuzzProperty.percentEncodingRoundTrip("a/b") { $0 }
    let space = FuzzProperty.percentEncodingRoundTrip("a b") {
      $0.replacingOccurrences(of: " ", with: "+")
    }
    let held = FuzzProperty.percentEncoding.check(Array("a/b c?#".utf8))

    // then
    #expect(slash?.contains("unescaped '/'") == true)
    #expect(space != nil)
    #expect(held == nil)
  }

  @Test("The request property fails for a writer that drops a header and for a reader that splits")
  func requestsCanFail() {
    // given
    let input = Array("GET /a HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n".utf8)
    let forgetful: (ServerRequest) -> [UInt8] = { request in
      FuzzProperty.writeRequest(
        ServerRequest(
          method: request.method, target: request.target, version: request.version,
          headers: request.headers.dropLast(), body: request.body))
    }
    // A reader that sees only its first read: what it gives depends on how the bytes are split.
    let firstReadOnly: ([UInt8], Int, ServerLimits) -> RequestParser.Result = {
      bytes, readSize, limits in
      RequestParser(limits: limits).parse(Array(bytes.prefix(readSize)))
    }

    // when
    let dropped = FuzzProperty.requestsRoundTrip(
      input, limits: ServerLimits(), parse: FuzzProperty.parseRequests, write: forgetful)
    let split = FuzzProperty.requestsRoundTrip(
      input, limits: ServerLimits(), parse: firstReadOnly, write: FuzzProperty.writeRequest)
    let held = FuzzProperty.requests.check(input)

    // then
    #expect(
      dropped?.contains("wrote them out and read back") == true, "\(String(describing: dropped))")
    #expect(split?.contains("at a time") == true, "\(String(describing: split))")
    #expect(held == nil)
  }

  @Test("The payload property fails for a payload whose encoding loses a field")
  func payloadsCanFail() {
    // given
    let input = Data(#"{"name": "Ann", "age": 3}"#.utf8)

    // when
    let failure = FuzzProperty.payloadRoundTrip(Forgetful.self, input)
    let refused = FuzzProperty.payloadRoundTrip(Forgetful.self, Data("[]".utf8))

    // then
    #expect(failure?.contains("refuses its own encoding") == true, "\(String(describing: failure))")
    #expect(refused == nil)
  }
}

/// A payload whose encoding leaves out a required field: the property must notice.
private struct Forgetful: PayloadConvertible, Equatable {
  let name: String
  let age: Int

  static func read(from reader: inout ObjectReader) -> Forgetful? {
    let name = reader.string("name")
    let age = reader.integer("age")
    guard let name, let age else { return nil }
    return Forgetful(name: name, age: age)
  }

  var jsonValue: JSONValue { ["name": .string(name)] }
}
