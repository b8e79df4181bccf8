import Foundation
import LoopbackServer
import Seams
import TestSupport

/// Answers every request with 200 and `method target` as the body.
let echo: LoopbackServer.Handler = { request in
  .respond(ServerResponse(status: 200, body: Data("\(request.method) \(request.target)".utf8)))
}

/// Runs `body` against a fresh server with `handler`, and stops the server afterwards, whatever
/// `body` did.
func withServer<Result: Sendable>(
  limits: ServerLimits = ServerLimits(), handler: @escaping LoopbackServer.Handler = echo,
  _ body: (LoopbackServer) async throws -> Result
) async throws -> Result {
  let server = try LoopbackServer.start(limits: limits, handler: handler)
  do {
    let result = try await body(server)
    await server.stop()
    return result
  } catch {
    await server.stop()
    throw error
  }
}

/// Opens a connection to `server`, with short timeouts for tests (stretched by
/// `COURIER_TIMEOUT_SCALE`, as under a sanitizer).
func connect(
  to server: LoopbackServer, timeout: Duration = TimeoutScale.scaled(.seconds(3))
) throws -> LoopbackClient {
  try LoopbackClient(port: server.port, timeout: timeout)
}

/// Holds everyone who arrives until `count` have, then lets them all through.
final class Gate: Sendable {
  private let state: Locked<(waiting: [CheckedContinuation<Void, Never>], arrived: Int)>
  private let count: Int

  init(opensAfter count: Int) {
    self.count = count
    state = Locked(([], 0))
  }

  func arrive() async {
    await withCheckedContinuation { continuation in
      let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
        state.arrived += 1
        state.waiting.append(continuation)
        guard state.arrived >= count else { return [] }
        defer { state.waiting = [] }
        return state.waiting
      }
      for waiter in released { waiter.resume() }
    }
  }
}
