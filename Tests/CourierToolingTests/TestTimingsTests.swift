import CourierTooling
import Foundation
import TestSupport
import Testing

@Suite("TestTimings", .tags(.tools), .timeBudget(.seconds(5)))
struct TestTimingsTests {
  @Test("It takes each test's time from its start to its end in an event stream")
  func fromEvents() throws {
    // given
    let events = String(
      decoding: try Fixtures.data(named: "run-events.jsonl", in: .module), as: UTF8.self)

    // when
    let timings = try TestTimings(eventStream: events)

    // then
    #expect(
      Set(timings.seconds.keys) == [
        "CourierToolingTests.TmpSampleTests/passes()",
        "CourierToolingTests.TmpSampleTests/fails()",
        "CourierToolingTests.TmpSampleTests/param(value:)",
      ])
    let fails = try #require(timings.seconds["CourierToolingTests.TmpSampleTests/fails()"])
    #expect(abs(fails - (1_795_340_774.2817245 - 1_795_340_774.280738)) < 1e-6)
  }

  @Test("Its file form reads back to the same timings, to the millisecond")
  func roundTrip() throws {
    // given
    let timings = TestTimings(seconds: ["B/b()": 0.25, "A/a()": 12.5, "C/c()": 0.0004])

    // when
    let read = try TestTimings(fileText: timings.fileText)

    // then
    #expect(timings.fileText == "12.500\tA/a()\n0.250\tB/b()\n0.000\tC/c()\n")
    #expect(read == TestTimings(seconds: ["A/a()": 12.5, "B/b()": 0.25, "C/c()": 0]))
  }

  @Test(
    "A line it cannot read is refused with its number",
    arguments: zip(
      ["1.0\tA/a()\nno tab here\n", "fast\tA/a()\n", "-1\tA/a()\n", "1.0\t\n"],
      [
        ToolError.malformedTimings(line: 2, reason: "expected 'seconds<TAB>test path'"),
        .malformedTimings(line: 1, reason: "'fast' is not a duration in seconds"),
        .malformedTimings(line: 1, reason: "'-1' is not a duration in seconds"),
        .malformedTimings(line: 1, reason: "the test path is empty"),
      ]))
  func malformed(text: String, expected: ToolError) {
    // given
    let file = text

    // when
    let error = #expect(throws: ToolError.self) { try TestTimings(fileText: file) }

    // then
    #expect(error == expected)
  }

  @Test("Merging keeps old tests and takes the newer time of a test run again")
  func merging() {
    // given
    let old = TestTimings(seconds: ["A/a()": 1, "B/b()": 2])

    // when
    let merged = old.merging(TestTimings(seconds: ["B/b()": 5, "C/c()": 3]))

    // then
    #expect(merged == TestTimings(seconds: ["A/a()": 1, "B/b()": 5, "C/c()": 3]))
  }
}
