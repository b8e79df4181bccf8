import Seams
import TestSupport
import Testing

@Suite("CourierLogger", .tags(.seams), .timeBudget(.seconds(5)))
struct LoggerTests {
  @Test(
    "It sends each level to the current sink with its category",
    arguments: LogLevel.allCases)
  func entryReachesSink(level: LogLevel) {
    // given
    let recorder = LogRecorder()
    let logger = CourierLogger(category: "transport")

    // when
    CourierLogger.$sink.withValue(recorder) { logger.log(level, "request failed") }

    // then
    #expect(
      recorder.entries == [LogEntry(level: level, category: "transport", message: "request failed")]
    )
  }

  @Test("It orders levels from debug to error")
  func levelsAreOrdered() {
    // when
    let sorted = LogLevel.allCases.shuffled().sorted()

    // then
    #expect(sorted == [.debug, .info, .warning, .error])
  }

  @Test("It writes an entry as one line with level and category")
  func entryDescription() {
    // given
    let entry = LogEntry(level: .warning, category: "sync", message: "retrying")

    // when
    let line = entry.description

    // then
    #expect(line == "[warning] sync: retrying")
  }
}
