import CourierTooling
import TestSupport
import Testing

@Suite("InstructionGate", .tags(.tools), .timeBudget(.seconds(5)))
struct InstructionGateTests {
  @Test("It reads the total from a callgrind output's summary line, or else its totals line")
  func readsTotal() throws {
    // given
    let summary = "version: 1\nevents: Ir\nsummary: 123456789\n"
    let totals = "events: Ir\nfl=a.c\n0 5\ntotals: 42\n"

    // when
    let counts = try [summary, totals].map(InstructionGate.count(fromCallgrindOutput:))

    // then
    #expect(counts == [123_456_789, 42])
  }

  @Test("An output without a total is an error that says so")
  func missingTotal() {
    #expect(throws: InstructionGate.ReadError("no summary or totals line in the callgrind output"))
    {
      try InstructionGate.count(fromCallgrindOutput: "events: Ir\n")
    }
  }

  @Test(
    "A workload passes within the tolerance and fails above it or without a threshold",
    arguments: [
      (1_000, 1_050 as Int?, true), (1_051, 1_000, false), (900, 1_000, true), (1_000, nil, false),
    ])
  func verdicts(measured: Int, threshold: Int?, passes: Bool) {
    // given
    let thresholds = threshold.map { ["drain-10k": $0] } ?? [:]

    // when
    let verdicts = InstructionGate.verdicts(
      measured: ["drain-10k": measured], thresholds: thresholds, tolerance: 0.05)

    // then
    #expect(verdicts.map(\.passed) == [passes])
  }

  @Test("Recorded thresholds read back as the same counts")
  func thresholdsRoundTrip() throws {
    // given
    let counts = ["save-10k": 7, "drain-10k": 12_345]

    // when
    let read = try InstructionGate.thresholds(fromJSON: InstructionGate.thresholdsJSON(counts))

    // then
    #expect(read == counts)
  }
}
