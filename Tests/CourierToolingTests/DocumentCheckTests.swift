import CourierTooling
import TestSupport
import Testing

@Suite("DocumentCheck", .tags(.tools), .timeBudget(.seconds(5)))
struct DocumentCheckTests {
  /// The kinds and texts found in `markdown`, where only `exists.md` exists.
  static func found(_ markdown: String) -> [String] {
    DocumentCheck.findings(in: markdown, document: "doc.md") { $0 == "exists.md" }
      .map { "\($0.kind.rawValue): \($0.text)" }
  }

  @Test(
    "It finds history and figures in prose",
    arguments: [
      ("Fixed on 2026-11-28.", ["date: 2026-11-28"]),
      ("Seed 1003 failed, then seeds 19 and 42.", ["seed: Seed 1003", "seed: seeds 19"]),
      ("Landed in 5fce221.", ["commit hash: 5fce221"]),
      (
        "Opening took 374 ms, the drain 10.0 s.",
        ["measured time: 374 ms", "measured time: 10.0 s"]
      ),
      ("See [the guide](missing.md#top).", ["broken link: missing.md"]),
    ])
  func findsHistory(markdown: String, expected: [String]) {
    // when
    let findings = Self.found(markdown)

    // then
    #expect(findings == expected)
  }

  @Test(
    "It lets rules, goals, data and working links stand",
    arguments: [
      "A budget of 30 s; open in ≤ 50 ms; at most 2 s; retried after 5 s; within 100 ms.",
      #"The payload's `"last_update": "2024-03-01T09:00:00Z"` is a timestamp."#,
      "An id such as e621e1f8-c36c-495a-93fc-0c247a3e6e5f, the word facade, 1234567.",
      "Read [the guide](exists.md#part), [the web](https://swift.org) or [below](#below).",
      "Replay one with `--seed N`; time limits come from `.seconds(30)`.",
      "```sh\nTools/simulate --seed 7 --steps 300   # takes 3 s\n```",
    ])
  func letsRulesStand(markdown: String) {
    // when
    let findings = Self.found(markdown)

    // then
    #expect(findings.isEmpty)
  }

  @Test("It names the document and the line of each finding")
  func namesLine() {
    // given
    let markdown = "# Title\n\nFine.\nOn 2025-01-02 it broke.\n"

    // when
    let findings = DocumentCheck.findings(in: markdown, document: "README.md") { _ in true }

    // then
    #expect(findings.map(\.description) == [#"README.md:4: date: "2025-01-02""#])
  }
}
