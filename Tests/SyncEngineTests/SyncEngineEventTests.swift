import ModelsTestSupport
import SyncEngine
import TestSupport
import Testing

@Suite("SyncEngineEvent", .tags(.sync), .timeBudget(.seconds(5)))
struct SyncEngineEventTests {
  @Test(
    "Events read as transcript lines",
    arguments: zip(
      [
        SyncEngineEvent.request("POST /connections", outcome: "201"),
        .notifications(count: 1, lastID: "3f2a1b4c-0000-4000-8000-000000000001"),
        .notifications(count: 0, lastID: nil), .connectivity(online: false),
        .connectivity(online: true),
        .problem("GET /self answered 500"),
      ],
      [
        "POST /connections → 201", "applied 1 notification (last 3f2a1b4c)",
        "applied 0 notifications",
        "offline", "back online", "problem: GET /self answered 500",
      ]))
  func descriptions(_ event: SyncEngineEvent, _ expected: String) {
    // when
    let text = event.description

    // then
    #expect(text == expected)
  }
}
