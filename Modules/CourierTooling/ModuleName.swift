/// A name for a new Courier module, checked before anything is written.
public struct ModuleName: Sendable, Hashable, CustomStringConvertible {
  /// Modules of the toolchain a Courier module must not shadow.
  public static let toolchainModules: Set<String> = [
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization",
    "FoundationNetworking", "FoundationXML", "Testing", "XCTest", "Dispatch", "Darwin", "Glibc",
    "Musl", "WinSDK", "Android", "Synchronization", "Observation", "Distributed", "RegexBuilder",
    "Combine", "SwiftUI", "UIKit", "AppKit", "CoreFoundation", "ObjectiveC", "os",
    "PackageDescription",
    "PackagePlugin", "Cxx", "CxxStdlib", "SwiftShims", "_Concurrency", "_StringProcessing",
  ]

  /// Names the manifest already uses for something other than a table row.
  public static let reservedNames: Set<String> = ["TestSupport", "Courier", "Tools"]

  /// The name as written.
  public let rawValue: String

  /// Checks `rawValue`: an UpperCamelCase Swift identifier of letters and digits that clashes with
  /// neither a toolchain module, a reserved name, nor an existing module.
  ///
  /// - Throws: ``ToolError/invalidModuleName(_:reason:)`` saying which rule it breaks.
  public init(_ rawValue: String, existing: Set<String>) throws(ToolError) {
    func refuse(_ reason: String) -> ToolError { .invalidModuleName(rawValue, reason: reason) }
    guard let first = rawValue.unicodeScalars.first else { throw refuse("the name is empty") }
    guard first.properties.isUppercase, first.isASCII else {
      throw refuse("it must start with an ASCII capital letter (UpperCamelCase)")
    }
    guard
      rawValue.unicodeScalars.allSatisfy({
        $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0)
      })
    else { throw refuse("it may only hold ASCII letters and digits") }
    guard !Self.toolchainModules.contains(rawValue) else {
      throw refuse("it clashes with the toolchain module \(rawValue)")
    }
    guard !Self.reservedNames.contains(rawValue) else {
      throw refuse("the manifest already uses \(rawValue)")
    }
    guard !existing.contains(rawValue) else { throw refuse("the module exists already") }
    guard !rawValue.hasSuffix("Tests") else {
      throw refuse("names ending in Tests are kept for test suites")
    }
    self.rawValue = rawValue
  }

  /// The name.
  public var description: String { rawValue }

  /// The name as a tag: its first letter lowercased, or every leading capital of an acronym
  /// (`HTTPClient` → `httpClient`).
  public var tagName: String {
    let scalars = Array(rawValue)
    var leading = scalars.prefix { $0.isUppercase }.count
    if leading > 1 && leading < scalars.count { leading -= 1 }
    return scalars.prefix(leading).map { $0.lowercased() }.joined()
      + String(scalars.dropFirst(leading))
  }
}
