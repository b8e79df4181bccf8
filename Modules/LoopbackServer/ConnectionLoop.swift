import Foundation

/// Serves one connection: reads requests, asks the handler, writes answers, until either side
/// closes it.
struct ConnectionLoop {
  let socket: Socket
  let core: ServerCore

  func run() {
    // Writes to a client that does not read give up after the stall timeout.
    socket.setTimeouts(core.limits.stallTimeout)
    var reader = RequestReader(socket, limits: core.limits)
    while true {
      let outcome = reader.next {
        socket.writeAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
      }
      switch outcome {
      case .closed, .stalled:
        return
      case .rejected(let rejection):
        let refusal = ServerResponse.refusal(rejection.status, rejection.message)
        _ = socket.writeAll(refusal.serialized(method: "GET", closing: true))
        return
      case .request(let request):
        guard let reply = core.reply(to: request) else { return }
        switch reply {
        case .respond(let response):
          let closing = !request.keepsAlive || core.isStopping
          guard socket.writeAll(response.serialized(method: request.method, closing: closing)),
            !closing
          else { return }
        case .closeWithoutAnswer:
          return
        case .holdUntilClientLeaves:
          holdUntilClientLeaves()
          return
        }
      }
    }
  }

  /// Reads and drops what the client sends until it closes the connection or the server stops.
  private func holdUntilClientLeaves() {
    socket.setReceiveTimeout(.milliseconds(100))
    var scratch = [UInt8](repeating: 0, count: 1024)
    while true {
      let result = scratch.withUnsafeMutableBytes { raw -> Socket.ReadResult in
        guard let base = raw.baseAddress else { return .closed }
        return socket.read(into: base, count: raw.count)
      }
      switch result {
      case .bytes: continue
      case .timedOut: if core.isStopping { return }
      case .closed, .failed: return
      }
    }
  }
}
