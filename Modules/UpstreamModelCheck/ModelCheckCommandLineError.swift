/// Why `Tools/model-check`'s arguments were refused.
public enum ModelCheckCommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
  /// An argument the command does not know.
  case unknownArgument(String)
  /// An option without the value it needs: the option, and what it needs.
  case invalidValue(String, needs: String)

  /// Says what was wrong, naming the argument.
  public var description: String {
    switch self {
    case .unknownArgument(let argument): "unknown argument '\(argument)'"
    case .invalidValue(let option, let expected): "\(option) needs \(expected)"
    }
  }
}
