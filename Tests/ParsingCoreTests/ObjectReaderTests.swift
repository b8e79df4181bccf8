import Foundation
import JSON
import ParsingCore
import TestSupport
import Testing

@Suite("ObjectReader", .tags(.parsing), .timeBudget(.seconds(5)))
struct ObjectReaderTests {
  @Test("It collects every bad field instead of stopping at the first")
  func collectsAllErrors() {
    // given
    var reader = ObjectReader(["a": 1, "b": "x", "c": .null])

    // when
    _ = (reader.string("a"), reader.integer("b"), reader.bool("c"), reader.uuid("d"))

    // then
    #expect(
      reader.errors.map(\.description) == [
        "'a': wrong type, expected string, found 1",
        "'b': wrong type, expected integer, found \"x\"",
        "'c': null, expected boolean, found null",
        "'d': missing, expected UUID string, found nothing",
      ])
  }

  @Test("It prefixes nested keys with the path of their object and array index")
  func nestedKeyPaths() {
    // given
    var reader = ObjectReader([
      "members": ["others": [["id": "00000000-0000-4000-8000-000000000001"], ["id": 5]]]
    ])

    // when
    let ids = reader.object("members") { $0.uuids("others") }

    // then
    #expect(ids == nil)
    #expect(reader.errors.map(\.keyPath) == ["members.others[0]", "members.others[1]"])
  }

  @Test("It shortens long values in messages so they stay readable")
  func longValuesAreShortened() {
    // given
    var reader = ObjectReader(["a": .string(String(repeating: "x", count: 500))])

    // when
    _ = reader.integer("a")

    // then
    #expect(reader.errors.first?.found.count == 80)
    #expect(reader.errors.first?.found.hasSuffix("...") == true)
  }
}
