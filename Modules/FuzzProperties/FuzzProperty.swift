/// A property that must hold for every input a fuzzer can make: it returns why it failed, or
/// `nil` when it held.
///
/// The same properties run in the libFuzzer targets under `Tools/fuzz-targets` (which crash on
/// a failure, so that libFuzzer keeps the input) and in the ordinary suite, which replays each
/// target's corpus and every input that ever failed.
public struct FuzzProperty: Sendable {
  /// The target's name, as `Tools/fuzz NAME` takes it.
  public let name: String
  /// Checks one input.
  public let check: @Sendable ([UInt8]) -> String?

  /// Creates a property.
  public init(name: String, check: @escaping @Sendable ([UInt8]) -> String?) {
    self.name = name
    self.check = check
  }

  /// Every property that has a fuzz target.
  public static let all: [FuzzProperty] = [.json, .payloads, .percentEncoding, .requests]
}
