import Foundation
import Seams

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An HTTP/1.1 server on `127.0.0.1`, for putting a fake backend on a real socket that any client
/// can reach: `URLSession`, `curl`, another process.
///
/// ```swift
/// let server = try LoopbackServer.start { request in
///   .respond(ServerResponse(status: 200, body: Data("hello".utf8)))
/// }
/// // … point a client at server.baseURL …
/// await server.stop()
/// ```
///
/// It binds port 0 unless told otherwise and reports the port it got; a bind failure is a typed
/// error at once. Connections stay open between requests, several at a time, each served by a
/// thread of its own, so socket calls never block Swift's cooperative pool; the handler runs as
/// a task. Bodies come by `Content-Length` or chunked. What the server refuses, and how, is
/// listed on ``ServerLimits``: a malformed request `400`, an unknown method `501`, header fields
/// over the limit `431`, a body over the limit `413`, both `Content-Length` and
/// `Transfer-Encoding` `400`, another HTTP version `505`; a client that stalls mid-request is
/// closed after ``ServerLimits/stallTimeout``. A client that hangs up never harms the process.
public final class LoopbackServer: Sendable {
  /// Answers one request; it should end soon after its task is cancelled, which ``stop()``
  /// does.
  public typealias Handler = @Sendable (ServerRequest) async -> ServerReply

  /// The port the server listens on.
  public let port: UInt16
  /// What the server accepts and how long it waits.
  public let limits: ServerLimits
  private let core: ServerCore

  /// `http://127.0.0.1:<port>`.
  public var baseURL: URL {
    URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
  }

  private init(port: UInt16, limits: ServerLimits, core: ServerCore) {
    self.port = port
    self.limits = limits
    self.core = core
  }

  /// Binds `127.0.0.1:port` (0 for any free port), starts accepting connections and returns
  /// once the server is listening.
  ///
  /// - Throws: ``ServerError`` when the socket cannot be made, bound or listened on.
  public static func start(
    port: UInt16 = 0, limits: ServerLimits = ServerLimits(), handler: @escaping Handler
  ) throws(ServerError) -> LoopbackServer {
    let listener = try Listener.open(port: port)
    let core = ServerCore(listener: listener, limits: limits, handler: handler)
    core.startAccepting()
    return LoopbackServer(port: listener.port, limits: limits, core: core)
  }

  /// Stops accepting, closes every connection, cancels every handler still running, and
  /// returns when no thread or task of the server is left.
  public func stop() async {
    core.beginStopping()
    await core.waitUntilStopped()
  }

  /// How many client connections are open.
  public var openConnections: Int { core.openConnections }

  /// Whether the server still accepts connections.
  public var isRunning: Bool { !core.isStopping }

  deinit {
    core.beginStopping()
  }
}

/// The listening socket and the pipe that wakes its thread.
struct Listener: Sendable {
  let socket: Socket
  let port: UInt16
  let wake: WakePipe

  static func open(port: UInt16) throws(ServerError) -> Listener {
    let descriptor = Socket.makeStreamDescriptor()
    guard descriptor >= 0 else { throw .cannotCreateSocket(code: errno) }
    let socket = Socket(descriptor: descriptor)
    socket.closeOnExec()
    var one: Int32 = 1
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound = socket.withLoopbackAddress(port: port) { bind($0, $1, $2) }
    guard bound == 0 else {
      let code = errno
      socket.close()
      throw .cannotBind(port: port, code: code)
    }
    guard listen(descriptor, 128) == 0 else {
      let code = errno
      socket.close()
      throw .cannotListen(code: code)
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    guard let wake = WakePipe.open() else {
      let code = errno
      socket.close()
      throw .cannotCreateSocket(code: code)
    }
    return Listener(socket: socket, port: UInt16(bigEndian: actual.sin_port), wake: wake)
  }
}
