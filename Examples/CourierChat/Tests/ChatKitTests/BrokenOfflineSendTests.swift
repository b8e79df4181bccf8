import CourierAPI
import FakeBackend
import Models
import SyncTestSupport
import TestSupport
import Testing

/// The offline-send test, each time with one thing broken, fails, and one of its failures names
/// the cause: proof that the test can fail, and that it says why.
@Suite("Offline send, broken", .courier())
@MainActor
struct BrokenOfflineSendTests {
  /// One way to get the offline-send test wrong, or one way the server misbehaves.
  enum Breakage: String, CaseIterable, Sendable {
    /// Only the fake's network is switched; the engine is never told.
    case onlyTheFakeSwitched
    /// Only the engine is told the network went away; the fake stays online.
    case onlyTheEngineSwitched
    /// The server refuses the message.
    case serverRefuses

    /// Text the failure must contain.
    var cause: String {
      switch self {
      case .onlyTheFakeSwitched, .onlyTheEngineSwitched:
        "the engine is offline while the fake backend's network is online"
      case .serverRefuses: "failed"
      }
    }
  }

  @Test("Broken, the offline-send test fails naming the cause", arguments: Breakage.allCases)
  func failsNamingCause(breakage: Breakage) async throws {
    let world = try await SyncWorld.start()
    let (_, chat) = try await world.contactWithConversation(named: "Ann")
    if breakage == .serverRefuses {
      world.fake.addFault(.once(RequestMatcher(.postMessage), .status(400)))
      expectLoggedError(containing: "refused for good")
    }
    let failures = Recorder<String>()
    try await withKnownIssue {
      try await offlineSend(in: world, chat: chat, breaking: breakage)
    } matching: { issue in
      failures.append(issue.description)
      return true
    }
    #expect(failures.elements.contains { $0.contains(breakage.cause) }, "\(failures.elements)")
  }

  /// The offline-send test's steps, with `breakage` in place of the right network switch.
  private func offlineSend(in world: SyncWorld, chat: Conversation, breaking breakage: Breakage)
    async throws
  {
    switch breakage {
    case .onlyTheFakeSwitched: world.fake.network = .offline
    case .onlyTheEngineSwitched: await world.engine.setOnline(false)
    case .serverRefuses: await world.setNetwork(.offline)
    }
    let message = try world.write("See you at noon", in: chat)
    let states = world.history(of: Message.self, id: message.id, \.deliveryState)
    await world.settle()
    switch breakage {
    case .onlyTheFakeSwitched: world.fake.network = .online
    case .onlyTheEngineSwitched, .serverRefuses: await world.setNetwork(.online)
    }
    await world.settle()
    let values = await states.values()
    #expect(values == [.pending, .sent])
    #expect(world.fake.requests(.postMessage, status: 201).count == 1)
  }
}
