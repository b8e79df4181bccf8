import FakeBackend

/// What `courier serve` was asked to do.
public struct ServeOptions: Sendable, Equatable {
  /// What the served backend holds when it starts.
  public enum Scenario: String, Sendable, CaseIterable {
    /// A self user called Me, and nothing else.
    case empty
    /// The demo story's users, with every contact accepting requests at once, so that
    /// `courier demo --server URL` completes the whole story.
    case demo
    /// Ann, Bob and Cleo, connected with each other, for chat clients that sign in by handle
    /// (`POST /login {"handle": "bob"}`).
    case chat
  }

  /// The port to listen on; 0 for any free one.
  public var port: UInt16 = 0
  /// The seed of every id the backend makes.
  public var seed: UInt64 = 1
  /// What the backend holds when it starts.
  public var scenario: Scenario = .empty
  /// The faults the backend injects, in the order given (`--fault`).
  public var faults: [FaultRule] = []
  /// Whether to print help and stop.
  public var help = false

  /// Creates the default options.
  public init() {}

  /// Reads the arguments after `serve`.
  ///
  /// - Throws: ``DemoOptionsError`` naming the argument that is wrong.
  public init(arguments: [String]) throws(DemoOptionsError) {
    var reader = ArgumentReader(arguments)
    while let argument = reader.next() {
      switch argument {
      case "--port":
        port = try reader.value(of: argument, needs: "a port number from 0 to 65535") { UInt16($0) }
      case "--seed":
        seed = try reader.value(of: argument, needs: "a whole number from 0") { UInt64($0) }
      case "--scenario":
        scenario = try reader.value(
          of: argument, needs: Scenario.allCases.map(\.rawValue).joined(separator: " or "),
          Scenario.init(rawValue:))
      case "--fault":
        let text = try reader.value(
          of: argument, needs: "a rule such as 'PUT /self: status 503 once'"
        ) { $0 }
        do {
          faults.append(try FaultRule(parsing: text))
        } catch {
          throw .invalidValue(argument, "\(error)")
        }
      case "--help", "-h": help = true
      default: throw .unknownArgument(argument)
      }
    }
  }

  /// The help text.
  public static let usage = """
    usage: courier serve [--port N] [--seed N] [--scenario empty|demo|chat] [--fault RULE]...

    Runs Courier's fake backend as an HTTP server on 127.0.0.1, prints its base URL, and logs
    each request on one line (index, method, path, status, fault). Ctrl-C stops it.

      --port N          the port to listen on (default 0: any free port, printed at start)
      --seed N          ids from seed N (default 1)
      --scenario NAME   empty: a self user only (default); demo: the demo story's users, each
                        contact accepting a connection request at once, for
                        `courier demo --server URL`; chat: Ann, Bob and Cleo, connected
                        with each other, who sign in with POST /login {"handle": "ann"} (or
                        bob, cleo) for a bearer token, as `courier-chat` does
      --fault RULE      inject a fault: 'METHOD PATH: FAULT [once|N times|always] [after N]',
                        where
                        FAULT is status N [retry-after S], network connection-lost|timed-out|
                        offline|cannot-connect, delay 500ms, park, hold-answer,
                        lose-response or malformed-body; * matches a path segment or any
                        method; after N lets the first N matching requests through; repeat
                        the option for more rules; each request a rule hits is logged with its
                        fault
      --help            this text
    """
}
