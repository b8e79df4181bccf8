import FakeBackend
import Foundation
import LoopbackServer
import Seams

/// `courier serve`: the fake backend on a real socket until told to stop.
public struct FakeServerCommand: Sendable {
  /// What the command was asked to do.
  public let options: ServeOptions
  private let write: @Sendable (String) -> Void

  /// Creates the command; every line it prints goes to `write`.
  public init(options: ServeOptions, write: @escaping @Sendable (String) -> Void) {
    self.options = options
    self.write = write
  }

  /// Serves until `stopSignal` returns, then stops the server and returns the exit code: 0, or
  /// 1 when the port could not be bound.
  public func run(until stopSignal: @Sendable () async -> Void) async -> Int32 {
    let fake = FakeBackend(uuids: .seeded(options.seed))
    switch options.scenario {
    case .empty:
      fake.insertSelfUser(name: "Me")
    case .demo:
      DemoScenario.populate(fake)
      fake.contactsAcceptRequests = true
    case .chat:
      let users = ChatScenario.populate(fake)
      fake.requiresSignIn = true
      write(
        "users: "
          + ChatScenario.handles.compactMap { handle in
            users[handle].map { "\(handle) (\($0.uuidString.lowercased()))" }
          }.joined(separator: ", ") + "; sign in with POST /login {\"handle\": …}")
    }
    for rule in options.faults {
      fake.addFault(rule)
      write(
        "fault rule: \(rule.matcher) gets \(rule.steps.compactMap { $0 }.map(\.description).joined(separator: ", "))\(rule.repeatsLastStep ? " always" : "")"
      )
    }
    let server: LoopbackServer
    do {
      server = try fake.serve(port: options.port) { [write] entry in write("\(entry)") }
    } catch {
      write("courier serve: \(error)")
      return 1
    }
    write("serving the fake backend (\(options.scenario.rawValue)) at \(server.baseURL)")
    await stopSignal()
    await server.stop()
    write("stopped after \(fake.journal.count) requests")
    return 0
  }
}
