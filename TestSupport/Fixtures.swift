import Foundation

/// Why a fixture could not be loaded.
public enum FixtureError: Error, Sendable, Equatable, CustomStringConvertible {
  /// No file of that name was in the bundle; names the bundle so a wrong `Bundle` is obvious.
  case missing(name: String, bundlePath: String)
  /// The file was there but could not be read.
  case unreadable(path: String, reason: String)

  /// A sentence naming the file and where it was looked for.
  public var description: String {
    switch self {
    case .missing(let name, let bundlePath):
      "fixture '\(name)' was not found in bundle '\(bundlePath)'; is it listed in the test "
        + "target's resources, and did you pass that target's Bundle.module?"
    case .unreadable(let path, let reason):
      "fixture at '\(path)' could not be read: \(reason)"
    }
  }
}

/// Loads test fixtures shipped as resources of a test target.
///
/// Pass the test target's own `Bundle.module`: a test target with resources gets one generated,
/// and the fixtures are copied into it, not into the main bundle, where a test would not find them.
public enum Fixtures {
  /// The bytes of the fixture `name` (with its extension, such as `connection.json`).
  public static func data(named name: String, in bundle: Bundle) throws(FixtureError) -> Data {
    let file = name as NSString
    let url =
      bundle.url(forResource: file.deletingPathExtension, withExtension: file.pathExtension)
      ?? bundle.url(
        forResource: file.deletingPathExtension, withExtension: file.pathExtension,
        subdirectory: "Fixtures")
    guard let url else {
      throw .missing(name: name, bundlePath: bundle.bundlePath)
    }
    do {
      return try Data(contentsOf: url)
    } catch {
      throw .unreadable(path: url.path, reason: "\(error)")
    }
  }
}
