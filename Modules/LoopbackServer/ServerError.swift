/// Why the loopback server could not start, or a client could not reach it.
public enum ServerError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No socket could be made; `code` is the system's `errno`.
  case cannotCreateSocket(code: Int32)
  /// The port could not be bound: in use, or not allowed.
  case cannotBind(port: UInt16, code: Int32)
  /// The bound socket could not listen.
  case cannotListen(code: Int32)
  /// A client could not connect to the port.
  case cannotConnect(port: UInt16, code: Int32)

  /// Says what failed and the system's reason.
  public var description: String {
    switch self {
    case .cannotCreateSocket(let code): "cannot create a socket: \(errorText(code))"
    case .cannotBind(let port, let code):
      "cannot bind 127.0.0.1:\(port): \(errorText(code))"
    case .cannotListen(let code): "cannot listen: \(errorText(code))"
    case .cannotConnect(let port, let code):
      "cannot connect to 127.0.0.1:\(port): \(errorText(code))"
    }
  }
}
