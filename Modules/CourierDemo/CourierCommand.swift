/// One run of the `courier` executable, read from its arguments: which command, with which
/// options.
public enum CourierCommand: Sendable, Equatable {
  /// `courier demo`: run the scripted story.
  case demo(DemoOptions)
  /// `courier serve`: serve the fake backend on a socket.
  case serve(ServeOptions)
  /// `courier --help`: print ``usage`` on standard output.
  case help

  /// Reads the whole argument list, without the executable's own name.
  ///
  /// - Throws: ``CourierCommandError`` naming the command or the argument that is wrong.
  public init(arguments: [String]) throws(CourierCommandError) {
    guard let name = arguments.first else { throw .missingCommand }
    let options = Array(arguments.dropFirst())
    func read<Options>(_ make: ([String]) throws(DemoOptionsError) -> Options)
      throws(CourierCommandError) -> Options
    {
      do throws(DemoOptionsError) {
        return try make(options)
      } catch {
        throw .invalidOptions(command: name, error)
      }
    }
    switch name {
    case "demo": self = .demo(try read(DemoOptions.init(arguments:)))
    case "serve": self = .serve(try read(ServeOptions.init(arguments:)))
    case "--help", "-h", "help": self = .help
    default: throw .unknownCommand(name)
    }
  }

  /// The help text of the executable as a whole.
  public static let usage = """
    usage: courier demo [--seed N] [--faults] [--json] [--server URL] [--store FILE] [--help]
           courier serve [--port N] [--seed N] [--scenario empty|demo|chat] [--help]
    """
}

/// Why the arguments of `courier` could not be read.
public enum CourierCommandError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No command was given.
  case missingCommand
  /// A command `courier` does not have.
  case unknownCommand(String)
  /// A command whose options could not be read.
  case invalidOptions(command: String, DemoOptionsError)

  /// Says what was wrong, and where to read more.
  public var description: String {
    switch self {
    case .missingCommand: "courier: no command given (see courier --help)"
    case .unknownCommand(let name): "courier: unknown command '\(name)' (see courier --help)"
    case .invalidOptions(let command, let error):
      "courier \(command): \(error) (see courier \(command) --help)"
    }
  }
}
