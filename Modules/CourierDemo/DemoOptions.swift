import Foundation

/// What `courier demo` was asked to do.
public struct DemoOptions: Sendable, Equatable {
  /// The seed of every id and random choice; the same seed prints the same transcript.
  public var seed: UInt64 = 1
  /// Whether the fake backend injects failures, to show recovery.
  public var faults = false
  /// Whether to print JSON lines instead of text.
  public var json = false
  /// A real backend to send the story to, instead of the embedded fake.
  public var server: URL?
  /// A SQLite file to keep the client's state in; a second run on it resumes.
  public var store: String?
  /// Whether to print help and stop.
  public var help = false

  /// Creates the default options.
  public init() {}

  /// Reads the arguments after `demo`.
  ///
  /// - Throws: ``DemoOptionsError`` naming the argument that is wrong.
  public init(arguments: [String]) throws(DemoOptionsError) {
    var reader = ArgumentReader(arguments)
    while let argument = reader.next() {
      switch argument {
      case "--seed":
        seed = try reader.value(of: argument, needs: "a whole number from 0") { UInt64($0) }
      case "--faults": faults = true
      case "--json": json = true
      case "--server":
        server = try reader.value(of: argument, needs: "a URL such as https://api.example.com") {
          URL(string: $0).flatMap { $0.scheme == nil ? nil : $0 }
        }
      case "--store": store = try reader.value(of: argument, needs: "a file path") { $0 }
      case "--help", "-h": help = true
      default: throw .unknownArgument(argument)
      }
    }
    // The faults belong to the embedded backend: a transcript must not claim one that a real
    // server never made.
    if faults && server != nil {
      throw .conflict(
        "--faults", "--server",
        "--faults makes the embedded fake backend fail; a server given with --server decides its own failures"
      )
    }
  }

  /// The help text.
  public static let usage = """
    usage: courier demo [--seed N] [--faults] [--json] [--server URL] [--store FILE]

    Runs a scripted story end to end on the embedded fake backend: the self user, a contact
    search, a connection request and its remote acceptance, messages written offline and sent
    when the network returns, a new group and its rename, and the final state.

      --seed N        ids and random choices from seed N (default 1): the same seed prints
                      the same transcript
      --faults        the embedded fake backend fails on purpose (a 503, a lost response)
                      and the transcript shows the recovery; refused with --server
      --json          one JSON object per line instead of text
      --server URL    send the story to a real backend with URLSessionTransport; the steps
                      that need another user acting remotely are skipped
      --store FILE    keep the client's state in a SQLite file; a second run resumes from it
                      and sends nothing already acknowledged (the embedded backend starts
                      empty, so there the client catches up with it and writes the story again)
      --help          this text
    """
}

/// Why the demo's arguments were refused.
public enum DemoOptionsError: Error, Sendable, Hashable, CustomStringConvertible {
  /// An argument the demo does not know.
  case unknownArgument(String)
  /// An option without the value it needs.
  case invalidValue(String, String)
  /// Two options that cannot go together, and why.
  case conflict(String, String, String)

  /// Says what was wrong.
  public var description: String {
    switch self {
    case .unknownArgument(let argument): "unknown argument '\(argument)'"
    case .invalidValue(let option, let expected): "\(option) needs \(expected)"
    case .conflict(let first, let second, let reason):
      "\(first) cannot go with \(second): \(reason)"
    }
  }
}
