import JSON
import TestSupport
import Testing

@Suite("JSONValue serialization", .tags(.encoding), .timeBudget(.seconds(5)))
struct JSONValueSerializationTests {
  @Test(
    "It writes each kind of value as JSON text",
    arguments: zip(
      [
        JSONValue.null, true, false, 42, -7, 1.5, "text", [1, "a", nil], ["b": 1, "a": [true]],
        [:], [],
      ],
      [
        "null", "true", "false", "42", "-7", "1.5", #""text""#, #"[1,"a",null]"#,
        #"{"a":[true],"b":1}"#, "{}", "[]",
      ]
    )
  )
  func valueIsWritten(value: JSONValue, expected: String) {
    // when
    let text = value.jsonText

    // then
    #expect(text == expected)
  }

  @Test(
    "It escapes quotes, backslashes and control characters in strings",
    arguments: zip(
      ["say \"hi\"", #"back\slash"#, "line\nbreak", "tab\t", "\u{1}", "é😀"],
      [
        #""say \"hi\"""#, #""back\\slash""#, #""line\nbreak""#, #""tab\t""#, #""\u0001""#,
        "\"é😀\"",
      ]
    )
  )
  func stringIsEscaped(text: String, expected: String) {
    // when
    let written = JSONValue.string(text).jsonText

    // then
    #expect(written == expected)
  }

  @Test("It writes a non-finite double as null, since JSON cannot spell it")
  func nonFiniteDoubleIsNull() {
    // given
    let values: [JSONValue] = [.double(.infinity), .double(.nan)]

    // when
    let text = JSONValue.array(values).jsonText

    // then
    #expect(text == "[null,null]")
  }

  @Test("It writes equal objects as equal bytes whatever order they were built in")
  func keyOrderIsDeterministic() {
    // given
    let first: JSONValue = ["z": 1, "a": 2, "m": 3]
    let second: JSONValue = ["m": 3, "z": 1, "a": 2]

    // when
    let bytes = (first.serialized(), second.serialized())

    // then
    #expect(bytes.0 == bytes.1)
  }

  @Test(
    "It names each value's kind for error messages",
    arguments: zip(
      [JSONValue.null, true, 1, 1.5, "s", [], [:]],
      [JSONKind.null, .bool, .integer, .number, .string, .array, .object]
    )
  )
  func kindIsNamed(value: JSONValue, expected: JSONKind) {
    // when
    let kind = value.kind

    // then
    #expect(kind == expected)
  }
}
