import FakeBackend
import TestSupport
import Testing

@Suite("AppliedChanges")
struct AppliedChangesTests {
  /// One application, by this client (its value and edit count) or by another device.
  enum Application: Sendable, CustomTestStringConvertible {
    case client(String, edits: Int)
    case remote

    var testDescription: String {
      switch self {
      case .client(let value, let edits): "\(value) (edit \(edits))"
      case .remote: "another device"
      }
    }
  }

  @Test(
    "It reports a change of this client applied again, whether or not another device changed the key in between",
    arguments: [
      (
        [
          Application.client("Grace", edits: 1), .remote,
          .client("Grace", edits: 1),
        ],
        "overwriting a later change by another device"
      ),
      ([.client("Grace", edits: 1), .client("Grace", edits: 1)], "twice"),
    ])
  func reportsRepeats(applications: [Application], expected: String) {
    // when
    let broken = Self.replay(applications).broken

    // then
    #expect(broken.count == 1)
    #expect(broken.first?.contains(expected) == true)
  }

  @Test(
    "It accepts a value saved again as a new change, and another device's changes in any order",
    arguments: [
      [
        Application.client("Grace", edits: 1), .remote,
        .client("Grace", edits: 2),
      ],
      [.remote, .client("Grace", edits: 1), .remote],
    ])
  func acceptsNewChanges(applications: [Application]) {
    // when
    let record = Self.replay(applications)

    // then
    #expect(record.broken.isEmpty)
  }

  private static func replay(_ applications: [Application]) -> (
    changes: AppliedChanges<String, String>, broken: [String]
  ) {
    var changes = AppliedChanges<String, String>()
    var broken: [String] = []
    for application in applications {
      switch application {
      case .client(let value, let edits):
        if let rule = changes.clientApplied("name", value, edits: edits) {
          broken.append(rule.description)
        }
      case .remote: changes.remoteApplied("name")
      }
    }
    return (changes, broken)
  }
}
