import Foundation
import HTTPRequest
import JSON
import Models
import SyncEngine

/// Writes the demo's transcript, as text or as JSON lines, and works out what changed in the UI
/// context between steps.
struct Teller {
  let write: @Sendable (String) -> Void
  let json: Bool
  let events: EventLog
  private var stepName = ""
  private var shown: Set<String> = []

  init(write: @escaping @Sendable (String) -> Void, json: Bool, events: EventLog) {
    self.write = write
    self.json = json
    self.events = events
  }

  mutating func title(_ text: String) {
    emit("title", text, text: "== \(text)")
  }

  mutating func step(_ name: String) {
    flushEvents()
    stepName = name
    emit("step", name, text: "\n-- \(name)")
  }

  func note(_ text: String) {
    emit("note", text, text: "   \(text)")
  }

  func request(_ request: HTTPRequest, _ outcome: RequestOutcome) {
    emit("request", "\(request) → \(outcome)", text: "   \(request) → \(outcome)")
  }

  /// Prints the requests since the last step, then what appeared in or left the UI context.
  mutating func report(_ stack: ModelStack) async {
    flushEvents()
    let now = await MainActor.run { Self.describe(stack.ui.context) }
    for line in now.subtracting(shown).sorted() { emit("ui", "+ \(line)", text: "   UI + \(line)") }
    for line in shown.subtracting(now).sorted() { emit("ui", "- \(line)", text: "   UI - \(line)") }
    shown = now
  }

  /// Prints everything the UI context holds.
  mutating func state(_ stack: ModelStack) async {
    flushEvents()
    let now = await MainActor.run { Self.describe(stack.ui.context) }
    for line in now.sorted() { emit("state", line, text: "   \(line)") }
  }

  private func flushEvents() {
    for event in events.take() {
      switch event {
      case .request(let line, let outcome): request(line, outcome)
      default: emit("engine", "\(event)", text: "   (\(event))")
      }
    }
  }

  private func emit(_ kind: String, _ value: String, text: String) {
    if json {
      let object: JSONValue = [
        "kind": .string(kind), "step": .string(stepName), "text": .string(value),
      ]
      write(object.jsonText)
    } else {
      write(text)
    }
  }

  /// One line per thing a user of the app would see.
  @MainActor
  static func describe(_ context: ModelContext) -> Set<String> {
    var lines: Set<String> = []
    func name(_ id: UUID) -> String { context.object(User.self, id: id)?.name ?? "someone" }
    if let me = context.selfUser { lines.insert("self user \(me.name) (@\(me.handle ?? "-"))") }
    for connection in context.objects(Connection.self) {
      lines.insert("connection with \(name(connection.to)): \(connection.status.rawValue)")
    }
    for conversation in context.objects(Conversation.self) {
      let title =
        conversation.name.map { "\"\($0)\"" }
        ?? "with "
        + context.participants(of: conversation).filter { !$0.isSelf }.map(\.name).joined(
          separator: ", ")
      let people = context.participants(of: conversation).map(\.name).joined(separator: ", ")
      lines.insert("conversation \(title) [\(conversation.kind)] — \(people)")
      for (index, message) in context.messages(in: conversation).enumerated() {
        lines.insert(
          "conversation \(title) · message \(index + 1) from \(name(message.senderID)): "
            + "\"\(message.text)\" (\(message.deliveryState.rawValue))")
      }
    }
    return lines
  }
}
