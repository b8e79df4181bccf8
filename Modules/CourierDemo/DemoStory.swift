import ConnectionParsing
import ConversationParsing
import CourierAPI
import FakeBackend
import Foundation
import HTTPRequest
import JSON
import Models
import SQLiteStore
import Seams
import SyncEngine
import SyncStrategies
import Transport
import UserParsing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The scripted story behind `courier demo`: a user connects with a contact, talks offline, and
/// everything reaches the backend, told step by step.
public struct DemoStory: Sendable {
  /// What the story was asked to do.
  public let options: DemoOptions
  private let write: @Sendable (String) -> Void

  /// How long the embedded backend takes to answer, in real time; zero but in tests.
  private let answerLatency: Duration
  /// How requests to a real server are retried; the transport's default but in tests.
  private let serverRetry: RetryPolicy

  /// Creates the story; every line of the transcript goes to `write`.
  public init(options: DemoOptions, write: @escaping @Sendable (String) -> Void) {
    self.init(options: options, write: write, answerLatency: .zero)
  }

  /// Creates the story with an embedded backend that answers each request after
  /// `answerLatency` of real time, as a busy machine can make it, and retries a real server's
  /// requests by `serverRetry`.
  init(
    options: DemoOptions, write: @escaping @Sendable (String) -> Void, answerLatency: Duration,
    serverRetry: RetryPolicy = RetryPolicy()
  ) {
    self.options = options
    self.write = write
    self.answerLatency = answerLatency
    self.serverRetry = serverRetry
  }

  /// Runs the story and returns the process exit code: 0 when the backend ended in the state
  /// the story expects.
  public func run() async -> Int32 {
    let tracker = WorkTracker()
    return await WorkTracker.$current.withValue(tracker) {
      await UUIDSource.$current.withValue(.seeded(options.seed)) {
        await CourierLogger.$sink.withValue(SilentSink()) { await runStory(tracker: tracker) }
      }
    }
  }

  private func runStory(tracker: WorkTracker) async -> Int32 {
    let clock = VirtualTimeSource()
    let fake = FakeBackend(uuids: .current, time: clock)
    let (me, ann) = DemoScenario.populate(fake)
    if options.faults {
      fake.addFault(.once(RequestMatcher("POST", "/connections"), .status(503)))
      fake.addFault(.once(RequestMatcher("POST", "/conversations/*/messages"), .loseResponse))
    }
    let transport: any TransportSession
    if let server = options.server {
      transport = URLSessionTransport(
        configuration: .init(baseURL: server, maxConcurrentRequests: 1, retry: serverRetry),
        session: URLSession(configuration: .ephemeral), time: SystemTimeSource())
    } else {
      let embedded: any TransportSession =
        answerLatency > .zero
        ? DelayedTransport(base: fake.transport, latency: answerLatency) : fake.transport
      transport = embedded.limited(to: 1, time: clock)
    }
    let events = EventLog()
    let stack: ModelStack
    do {
      stack = try makeStack(tracker: tracker)
    } catch {
      write("courier demo: the store cannot be used: \(error)")
      return 1
    }
    let engine = SyncEngine(
      stack: stack, transport: transport, time: clock, tracker: tracker, onEvent: events.record)
    var teller = Teller(write: write, json: options.json, events: events)
    let remote = options.server == nil
    var story = Progress(teller: teller)

    teller.title(
      remote
        ? "Courier demo on the embedded fake backend (seed \(options.seed))"
        : "Courier demo against \(options.server?.absoluteString ?? "")")
    if options.faults {
      teller.note(
        "faults on: POST /connections answers 503 once; the first message's response is lost")
    }

    let resumed = await onMain { stack.ui.context.count(of: User.self) > 0 }
    if resumed, let path = options.store {
      teller.note("resuming from \(path): \(await engine.queue())")
    }

    teller.step("Start: fetch the self user and the notifications")
    await engine.start()
    await settle(engine)
    await teller.report(stack)
    let selfUser = await onMain { stack.ui.context.selfUser }
    guard story.check(selfUser != nil, "the self user was not fetched", step: 1) else {
      return story.fail()
    }

    teller.step("Search for a contact: \"ann\"")
    var found: [(UUID, String)] = []
    let search = Endpoint.searchContacts(query: "ann", size: 5)
    if let request = try? search.request(), let response = try? await transport.send(request) {
      teller.request(request, .status(response.status))
      if case .success(.contacts(let results)) = search.decodeResponse(
        status: response.status, body: response.body)
      {
        found = results.documents.map { ($0.id, $0.name) }
      }
      teller.note("found: " + found.map(\.1).joined(separator: ", "))
    }
    guard story.check(!found.isEmpty, "the search found nobody", step: 2) else {
      return story.fail()
    }
    let contact = found.first { $0.0 == ann } ?? found[0]

    teller.step("Send a connection request to \(contact.1)")
    await onMain {
      let context = stack.ui.context
      guard let selfUser = context.selfUser,
        context.object(Connection.self, id: contact.0) == nil
      else { return }
      try? context.insert(User(id: contact.0, name: contact.1))
      try? context.insert(
        Connection(
          from: selfUser.id, to: contact.0, status: .sent,
          lastUpdate: Date(timeIntervalSince1970: 1_800_000_000), message: "Hi, it's Ada"))
      _ = try? context.save()
    }
    let requested = await settle(engine)
    await teller.report(stack)
    guard
      story.check(requested.isEmpty, "the request did not reach the backend: \(requested)", step: 3)
    else { return story.fail() }

    teller.step("\(contact.1) accepts, on their own device")
    if remote {
      fake.acceptRemotely(by: contact.0)
    } else {
      teller.note("(a served demo scenario accepts at once; the notifications say so)")
    }
    await engine.pullNotifications()
    await settle(engine)
    await teller.report(stack)

    teller.step("Write three messages while offline")
    fake.network = .offline
    if !remote { await engine.setOnline(false) }
    let wrote = await onMain { () -> Bool in
      let context = stack.ui.context
      guard let selfUser = context.selfUser,
        let conversation = context.object(Connection.self, id: contact.0).flatMap({
          context.conversation(of: $0)
        })
      else { return false }
      // Written by an earlier run on the same store: nothing to write again.
      guard context.messages(in: conversation).isEmpty else { return true }
      for (index, text) in ["Hello!", "Are you there?", "Let's meet at noon."].enumerated() {
        try? context.insert(
          Message(
            nonce: context.makeID(), conversationID: conversation.id, senderID: selfUser.id,
            text: text,
            localTime: Date(timeIntervalSince1970: 1_800_000_100 + Double(index))))
        _ = try? context.save()
      }
      return true
    }
    await settle(engine)
    await teller.report(stack)
    teller.note("queue: \(await engine.queue())")
    guard story.check(wrote, "there is no conversation with \(contact.1) to write in", step: 5)
    else { return story.fail() }

    teller.step("Back online")
    fake.network = .online
    await engine.setOnline(true)
    let sentMessages = await settle(engine)
    await teller.report(stack)
    guard
      story.check(sentMessages.isEmpty, "the messages were not all sent: \(sentMessages)", step: 6)
    else { return story.fail() }

    teller.step("Start a group with \(contact.1), then rename it")
    let groupID = await onMain { () -> UUID? in
      let context = stack.ui.context
      if let earlier = context.objects(Conversation.self).first(where: {
        $0.kind == .group && $0.name == "Lunch on Friday"
      }) {
        return earlier.id
      }
      guard let selfUser = context.selfUser else { return nil }
      let group = Conversation(
        id: context.makeID(), kind: .group, name: "Lunch", creatorID: selfUser.id,
        participantIDs: [selfUser.id, contact.0],
        lastEventTime: Date(timeIntervalSince1970: 1_800_000_200))
      try? context.insert(group)
      _ = try? context.save()
      return group.id
    }
    await settle(engine)
    if let groupID {
      await onMain {
        _ = try? stack.ui.context.update(Conversation.self, id: groupID) {
          $0.name = "Lunch on Friday"
        }
        _ = try? stack.ui.context.save()
      }
    }
    let grouped = await settle(engine)
    await teller.report(stack)
    guard story.check(grouped.isEmpty, "the group did not reach the backend: \(grouped)", step: 7)
    else { return story.fail() }

    teller.step("Final state")
    await teller.state(stack)
    teller.note("queue: \(await engine.queue())")
    guard remote else {
      teller.note("story complete")
      return 0
    }
    if resumed {
      // The embedded backend starts empty on every run and does not know the stored cursor:
      // the client caught up with it, dropped what it no longer holds, and the story ran again.
      teller.note(
        "the embedded backend started empty: the client caught up with it and wrote the story again"
      )
    }
    let conversation = fake.connection(from: me, to: contact.0)?.conversation
    let sent = conversation.map { fake.messages(in: $0).map(\.text) } ?? []
    let groupName = groupID.flatMap { fake.conversation($0)?.name }
    teller.note(
      "backend: \(fake.journal.count) requests received; messages \(sent.count); group \"\(groupName ?? "missing")\""
    )
    let backendAgrees =
      sent == ["Hello!", "Are you there?", "Let's meet at noon."] && groupName == "Lunch on Friday"
    guard story.check(backendAgrees, "the backend does not hold what the story wrote", step: 8)
    else { return story.fail() }
    teller.note("story complete")
    return 0
  }

  /// The client's stack: on the SQLite file of `--store`, or in memory.
  private func makeStack(tracker: WorkTracker) throws -> ModelStack {
    guard let path = options.store else {
      return ModelStack.inMemory(uuids: .current, tracker: tracker)
    }
    return try ModelStack(store: try SQLiteStore(path: path), uuids: .current, tracker: tracker)
  }

  /// Waits until the engine has nothing left to do, and returns the queue.
  ///
  /// The story parks no request: one in flight is waiting for its answer, however long the
  /// backend (a real server, or the embedded one on a busy machine) takes, so only the step's
  /// timeout ends the wait, not a quiet spell.
  @discardableResult
  private func settle(_ engine: SyncEngine) async -> SyncQueueSnapshot {
    let timeout = Duration.seconds(20)
    return await engine.settle(timeout: timeout, quietPeriod: timeout)
  }

  private func onMain<Result: Sendable>(_ body: @MainActor @Sendable () -> Result) async -> Result {
    await MainActor.run { body() }
  }
}

/// Drops log entries: the transcript says what the demo wants said.
struct SilentSink: LogSink {
  func receive(_ entry: LogEntry) {}
}

/// Keeps the engine's events until the transcript prints them.
final class EventLog: Sendable {
  private let events = Locked<[SyncEngineEvent]>([])

  var record: @Sendable (SyncEngineEvent) -> Void {
    { [self] event in events.withLock { $0.append(event) } }
  }

  func take() -> [SyncEngineEvent] {
    events.withLock { events in
      defer { events = [] }
      return events
    }
  }
}

/// Which step of the story failed, if one did.
struct Progress {
  let teller: Teller
  private var failure: (step: Int, reason: String)?

  init(teller: Teller) {
    self.teller = teller
  }

  /// Notes that step `step` did not complete when `condition` is false; returns `condition`.
  mutating func check(_ condition: Bool, _ reason: String, step: Int) -> Bool {
    if !condition { failure = (step, reason) }
    return condition
  }

  /// Prints why the story stopped, and returns the failing exit code.
  func fail() -> Int32 {
    if let failure {
      teller.note("story INCOMPLETE at step \(failure.step): \(failure.reason)")
    }
    return 1
  }
}
