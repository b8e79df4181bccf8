import ChatKit
import CourierAPI
import FakeBackend
import Foundation
import Models
import ModelsTestSupport
import SyncEngine
import TestSupport
import Testing
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("ChatClient", .courier())
@MainActor
struct ChatClientTests {
  /// A client signed in as `handle` on `fake` through a real `URLSession`, with what it shows.
  @MainActor
  final class Device {
    let client: ChatClient
    let engine: SyncEngine
    let shown = Recorder<String>()

    init(_ handle: String, on fake: FakeBackend) {
      let (session, baseURL) = fake.makeURLSession()
      let configuration = URLSessionTransport.Configuration(baseURL: baseURL)
      let tokens = SignInTokens(
        handle: handle,
        transport: URLSessionTransport(configuration: configuration, session: session))
      let stack = ModelStack.forTesting()
      engine = SyncEngine(
        stack: stack,
        transport: URLSessionTransport(
          configuration: configuration, session: session, tokens: tokens))
      let shown = self.shown
      client = ChatClient(stack: stack, engine: engine) { shown.append($0) }
    }
  }

  /// A backend where Ann and Bob sign in by handle and are connected.
  static func backend() -> FakeBackend {
    let fake = FakeBackend()
    let ann = fake.insertUser(name: "Ann", handle: "ann")
    let bob = fake.insertUser(name: "Bob", handle: "bob")
    fake.connect(ann, with: bob)
    return fake
  }

  @Test("Two users chat: a message Ann writes in a new group is announced on Bob's screen once")
  func twoUsersChat() async throws {
    // given
    let fake = Self.backend()
    let ann = Device("ann", on: fake)
    let bob = Device("bob", on: fake)
    await ann.client.start()
    await bob.client.start()
    _ = await ann.client.perform(.group(name: "Tea", handles: ["bob"]))
    _ = await ann.client.perform(.say("Kettle is on"))
    _ = await ann.engine.settle()

    // when
    await bob.client.pull()
    _ = await bob.engine.settle()

    // then
    await pollingConfirmation("Bob's screen announces Ann's message", until: .firstPass) {
      bob.shown.elements.contains("[Tea] ann: Kettle is on")
    }
    #expect(bob.shown.elements.filter { $0.contains("Kettle") }.count == 1)
    #expect(fake.requests(.postMessage, status: 201).count == 1)
  }
}
