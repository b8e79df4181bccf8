import Foundation

/// The code of the package that one run passed through, read from a callgrind output file:
/// the source files and the types whose instructions ran.
///
/// `Tools/rename-path` measures one group rename with it. A function counts when it ran
/// instructions of its own; its source files are the one it is defined in and those whose code
/// was inlined into it. Code the server ran in the same process is left out: a function counts
/// only when the client reached it, through calls that do not enter the server's module.
public struct CodePath: Sendable, Hashable {
  /// The source files of the counted modules that ran, as paths from `Modules/`, sorted.
  public let files: [String]
  /// The types of the counted modules whose functions ran, module-qualified, sorted.
  public let types: [String]

  /// One function of a callgrind profile.
  struct Function {
    /// The file the function is defined in.
    var home: String?
    /// The files whose instructions ran in it, its own and those inlined into it.
    var files: Set<String> = []
    /// The functions it called.
    var callees: Set<String> = []
  }

  /// The path through the modules that `isCounted` accepts, of the run profiled in
  /// `callgrindOutput` (written with `--compress-strings=no`), leaving out what only `server`'s
  /// module reached; `demangled` gives each function's demangled name, for its type.
  public init(
    callgrindOutput: String, demangled: [String: String], server: String,
    isCounted: (String) -> Bool
  ) {
    let functions = Self.functions(in: callgrindOutput)
    func module(of name: String) -> String? { functions[name]?.home.flatMap(Self.module(ofFile:)) }
    // What the server's code reached, and what the client's reached without entering it.
    let serverRoots = functions.keys.filter { module(of: $0) == server }
    let reachedByServer = Self.reachable(from: serverRoots, in: functions) { _ in true }
    let clientRoots = functions.keys.filter { name in
      guard let module = module(of: name) else { return false }
      return isCounted(module) && !reachedByServer.contains(name)
    }
    let client = Self.reachable(from: clientRoots, in: functions) { module(of: $0) != server }
    var files: Set<String> = []
    var types: Set<String> = []
    for name in client {
      guard let function = functions[name] else { continue }
      for file in function.files {
        guard let module = Self.module(ofFile: file), isCounted(module),
          let start = file.range(of: "Modules/")
        else { continue }
        files.insert(String(file[start.lowerBound...]))
      }
      if let type = demangled[name].flatMap(Self.owningType(ofDemangled:)),
        let module = type.split(separator: ".").first, isCounted(String(module))
      {
        types.insert(type)
      }
    }
    self.files = files.sorted()
    self.types = types.sorted()
  }

  /// The module a source file belongs to: the folder after `Modules/` in its path.
  static func module(ofFile path: String) -> String? {
    guard let start = path.range(of: "Modules/") else { return nil }
    let rest = path[start.upperBound...]
    guard let slash = rest.firstIndex(of: "/") else { return nil }
    return String(rest[..<slash])
  }

  /// The functions of a callgrind output file that ran instructions of their own, with their
  /// files and the functions they called.
  static func functions(in text: String) -> [String: Function] {
    var functions: [String: Function] = [:]
    var home: String?
    var inlined: String?
    var current: String?
    var callee: String?
    var callCostFollows = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      if line.hasPrefix("fl=") {
        home = String(line.dropFirst(3))
        inlined = nil
      } else if line.hasPrefix("fi=") || line.hasPrefix("fe=") {
        inlined = String(line.dropFirst(3))
      } else if line.hasPrefix("fn=") {
        let name = String(line.dropFirst(3))
        current = name
        inlined = nil
        if functions[name]?.home == nil { functions[name, default: Function()].home = home }
      } else if line.hasPrefix("cfn=") {
        callee = String(line.dropFirst(4))
      } else if line.hasPrefix("calls=") {
        callCostFollows = true
      } else if let first = line.first, first.isNumber || "+-*".contains(first) {
        guard let current else { continue }
        if callCostFollows {
          callCostFollows = false
          if let callee { functions[current, default: Function()].callees.insert(callee) }
          continue
        }
        let fields = line.split(separator: " ")
        guard fields.count > 1, let cost = Int(fields[1]), cost > 0 else { continue }
        if let file = inlined ?? home { functions[current, default: Function()].files.insert(file) }
      }
    }
    return functions.filter { !$0.value.files.isEmpty || !$0.value.callees.isEmpty }
  }

  /// The functions reached from `roots` through calls whose callee `follows` accepts.
  private static func reachable(
    from roots: some Sequence<String>, in functions: [String: Function],
    following follows: (String) -> Bool
  ) -> Set<String> {
    var seen = Set(roots)
    var queue = Array(seen)
    while let name = queue.popLast() {
      for callee in functions[name]?.callees ?? [] where follows(callee) {
        if seen.insert(callee).inserted { queue.append(callee) }
      }
    }
    return seen
  }

  /// The type a function belongs to, from its demangled name (`swift demangle`), with its
  /// module: `Models.ModelContext` for `closure #1 in Models.ModelContext.save()`; `nil` for a
  /// free function.
  ///
  /// The owner is what follows the last `in`, `of` or `for` outside brackets (a closure, a
  /// specialisation or a witness names it last); private discriminators are dropped, and the
  /// type is the run of capitalised names after the module.
  public static func owningType(ofDemangled name: String) -> String? {
    var text = name.replacing(/\.?\((?:(\w+) )?in _[0-9A-F]+\)/) { match in
      match.output.1.map { ".\($0)" } ?? ""
    }
    if let conformance = text.range(of: " in conformance ") {
      text = String(text[conformance.upperBound...].prefix { $0 != " " })
    } else {
      text = String(text[ownerStart(in: text)...])
    }
    text = text.replacing(/^(?:static |\(extension in \w+\):)+/, with: "")
    let path = text.prefix { !"(<: ?'".contains($0) }
    let names = path.split(separator: ".").map(String.init)
    guard names.count > 1 else { return nil }
    let type = names.dropFirst().prefix { $0.first?.isUppercase == true }
    guard !type.isEmpty else { return nil }
    return ([names[0]] + type).joined(separator: ".")
  }

  /// Where the owner starts in a demangled name: after its last ` in `, ` of ` or ` for ` outside
  /// brackets, or at its start.
  private static func ownerStart(in text: String) -> String.Index {
    var depth = 0
    var start = text.startIndex
    var index = text.startIndex
    var previous: Character = " "
    while index < text.endIndex {
      let character = text[index]
      switch character {
      case "(", "<", "[": depth += 1
      case ")", "]": depth -= 1
      case ">" where previous != "-": depth -= 1
      case " " where depth == 0:
        for word in [" in ", " of ", " for "] where text[index...].hasPrefix(word) {
          start = text.index(index, offsetBy: word.count)
        }
      default: break
      }
      previous = character
      index = text.index(after: index)
    }
    return start
  }
}
