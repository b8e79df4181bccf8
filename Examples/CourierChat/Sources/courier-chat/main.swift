// courier-chat: a terminal chat client built on Courier's published products.
//
//   courier-chat --server URL --user HANDLE --store PATH [--poll MS] [--verbose]
//
// Lines typed are messages for the open conversation, or commands (/help lists them).
import ChatKit
import Foundation
import Models
import SQLiteStore
import Seams
import SyncEngine
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Writes one line to standard output at once, so that a script reading it sees each line as it
/// is written.
@Sendable func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

struct Options {
  var server: URL?
  var handle: String?
  var store: String?
  var poll = Duration.milliseconds(300)
  var verbose = false

  static let usage = """
    usage: courier-chat --server URL --user HANDLE --store PATH [--poll MS] [--verbose]

      --server URL    the backend, such as the one `swift run courier serve --scenario chat` prints
      --user HANDLE   sign in as the user with this handle (the chat scenario has ann, bob, cleo)
      --store PATH    the SQLite file the client keeps its state in; started again on the same
                      file, it resumes and sends nothing twice
      --poll MS       how often to read the backend's news while online (default 300)
      --verbose       print every request and page of news the engine handles
    """

  init(_ arguments: [String]) throws {
    var rest = arguments[...]
    func value(_ name: String) throws -> String {
      guard let value = rest.popFirst() else { throw ChatStartError("\(name) needs a value") }
      return value
    }
    while let argument = rest.popFirst() {
      switch argument {
      case "--server":
        let text = try value(argument)
        guard let url = URL(string: text), url.scheme != nil else {
          throw ChatStartError("--server needs a URL such as http://127.0.0.1:8080, not '\(text)'")
        }
        server = url
      case "--user": handle = try value(argument)
      case "--store": store = try value(argument)
      case "--poll":
        let text = try value(argument)
        guard let milliseconds = Int(text), milliseconds > 0 else {
          throw ChatStartError("--poll needs a number of milliseconds, not '\(text)'")
        }
        poll = .milliseconds(milliseconds)
      case "--verbose": verbose = true
      case "--help", "-h": throw ChatStartError(Self.usage)
      default: throw ChatStartError("unknown argument '\(argument)'\n\(Self.usage)")
      }
    }
    guard server != nil, handle != nil, store != nil else {
      throw ChatStartError("--server, --user and --store are needed\n\(Self.usage)")
    }
  }
}

struct ChatStartError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The typed lines, read on a thread of their own so that the client keeps running meanwhile.
func typedLines() -> AsyncStream<String> {
  AsyncStream { continuation in
    let reader = Thread {
      while let line = readLine() { continuation.yield(line) }
      continuation.finish()
    }
    reader.start()
  }
}

@MainActor
func run(_ options: Options) async throws {
  guard let server = options.server, let handle = options.handle, let path = options.store else {
    return
  }
  // Every request has a connection of its own, so a lost answer is seen as soon as the socket
  // closes (see URLSessionTransport.Configuration.reusesConnections).
  let configuration = URLSessionTransport.Configuration(baseURL: server, reusesConnections: false)
  let session = URLSession(configuration: .ephemeral)
  let tokens = SignInTokens(
    handle: handle, transport: URLSessionTransport(configuration: configuration, session: session))
  let signedIn = try await tokens.signIn()
  let transport = URLSessionTransport(
    configuration: configuration, session: session, tokens: tokens)
  let stack = try ModelStack(store: try SQLiteStore(path: path))
  let verbose = options.verbose
  let engine = SyncEngine(stack: stack, transport: transport) { event in
    switch event {
    case .changeRefused, .changeDropped, .problem, .authenticationNeeded: say("sync: \(event)")
    default: if verbose { say("sync: \(event)") }
    }
  }
  let client = ChatClient(stack: stack, engine: engine) { say($0) }
  await client.start()
  say("signed in as \(handle) (\(signedIn.user.uuidString.lowercased())); /help lists commands")
  let poll = options.poll
  let polling = Task { @MainActor in
    while !Task.isCancelled {
      try? await Task.sleep(for: poll)
      await client.pull()
    }
  }
  for await line in typedLines() {
    let command: ChatCommand
    do {
      command = try ChatCommand(parsing: line)
    } catch {
      say("\(error)")
      continue
    }
    guard await client.perform(command) else { break }
  }
  polling.cancel()
  // Let what was saved last go out before leaving.
  _ = await engine.settle(timeout: .seconds(5))
  say("bye")
}

do {
  let options = try Options(Array(CommandLine.arguments.dropFirst()))
  // Courier's own log: warnings only, unless asked for more.
  let sink = StandardErrorLogSink(minimumLevel: options.verbose ? .info : .warning)
  try await CourierLogger.$sink.withValue(sink) { try await run(options) }
} catch {
  FileHandle.standardError.write(Data("courier-chat: \(error)\n".utf8))
  exit(1)
}
