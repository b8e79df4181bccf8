import Foundation

/// A structural comparison of two values of any type: the path to every part that differs, with
/// the first value's part on a `-` line and the second's on a `+` line.
///
/// ```swift
/// StructuralDiff.lines(lunch, dinner)
/// // - .name: "Lunch"
/// // + .name: "Dinner"
/// // - .participantIDs: contains 00000000-0000-0000-0000-000000000002
/// ```
///
/// Structs, classes, tuples and enum payloads are compared field by field; arrays by their
/// difference, so an element inserted near the start shows as one `+` line rather than as every
/// later index changed (elements replaced one for one are compared part by part); dictionaries
/// key by key and sets element by element; anything without parts (numbers, strings, ids, dates)
/// is compared by its description.
public enum StructuralDiff {
  /// The lines that say how `second` differs from `first`; empty when no difference shows.
  public static func lines(_ first: Any, _ second: Any) -> [String] {
    var lines: [String] = []
    compare(Node(first), Node(second), at: "", into: &lines)
    return lines
  }

  private static func compare(
    _ expected: Node, _ actual: Node, at path: String, into lines: inout [String]
  ) {
    switch (expected.shape, actual.shape) {
    case (.fields(let left), .fields(let right))
    where expected.typeName == actual.typeName && left.map(\.0) == right.map(\.0):
      for ((label, lhs), (_, rhs)) in zip(left, right) {
        compare(lhs, rhs, at: path + "." + label, into: &lines)
      }
    case (.enumCase(let left, let lhs), .enumCase(let right, let rhs))
    where expected.typeName == actual.typeName && left == right:
      compare(lhs, rhs, at: path + "." + left, into: &lines)
    case (.list(let left), .list(let right)):
      compareLists(left, right, at: path, into: &lines)
    case (.keyed(let left), .keyed(let right)):
      let rightByKey = Dictionary(
        right.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
      let leftByKey = Dictionary(left.map { ($0.0, $0.1) }, uniquingKeysWith: { first, _ in first })
      for (key, lhs) in left {
        if let rhs = rightByKey[key] {
          compare(lhs, rhs, at: path + "[\(key)]", into: &lines)
        } else {
          lines.append("- \(path)[\(key)]: \(lhs.rendered)")
        }
      }
      for (key, rhs) in right where leftByKey[key] == nil {
        lines.append("+ \(path)[\(key)]: \(rhs.rendered)")
      }
    case (.members(let left), .members(let right)):
      let name = path.isEmpty ? "(root)" : path
      for member in left.subtracting(right).sorted() {
        lines.append("- \(name): contains \(member)")
      }
      for member in right.subtracting(left).sorted() {
        lines.append("+ \(name): contains \(member)")
      }
    default:
      let left = expected.rendered
      let right = actual.rendered
      guard left != right else { return }
      let name = path.isEmpty ? "" : "\(path): "
      lines.append("- \(name)\(left)")
      lines.append("+ \(name)\(right)")
    }
  }
}

extension StructuralDiff {
  /// Compares two lists by their longest common subsequence of elements: elements only in the
  /// first are `-` lines, elements only in the second `+` lines, and a run of removals replaced
  /// by as many insertions is compared element by element.
  fileprivate static func compareLists(
    _ left: [Node], _ right: [Node], at path: String, into lines: inout [String]
  ) {
    let leftText = left.map(\.rendered)
    let rightText = right.map(\.rendered)
    // lengths[i][j]: the longest common subsequence of left[i...] and right[j...].
    var lengths = Array(
      repeating: Array(repeating: 0, count: right.count + 1), count: left.count + 1)
    for i in stride(from: left.count - 1, through: 0, by: -1) {
      for j in stride(from: right.count - 1, through: 0, by: -1) {
        lengths[i][j] =
          leftText[i] == rightText[j]
          ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
      }
    }
    var removed: [Int] = []
    var inserted: [Int] = []
    func flush() {
      if removed.count == inserted.count {
        for (i, j) in zip(removed, inserted) {
          compare(left[i], right[j], at: path + "[\(j)]", into: &lines)
        }
      } else {
        lines += removed.map { "- \(path)[\($0)]: \(left[$0].rendered)" }
        lines += inserted.map { "+ \(path)[\($0)]: \(right[$0].rendered)" }
      }
      removed.removeAll()
      inserted.removeAll()
    }
    var (i, j) = (0, 0)
    while i < left.count || j < right.count {
      if i < left.count, j < right.count, leftText[i] == rightText[j] {
        flush()
        i += 1
        j += 1
      } else if j < right.count, i == left.count || lengths[i][j + 1] >= lengths[i + 1][j] {
        inserted.append(j)
        j += 1
      } else {
        removed.append(i)
        i += 1
      }
    }
    flush()
  }
}

/// A value taken apart by reflection, down to parts that have no parts.
private struct Node {
  enum Shape {
    case leaf(String)
    case fields([(String, Node)])
    indirect case enumCase(String, Node)
    case list([Node])
    case keyed([(String, Node)])
    case members(Set<String>)
  }

  let typeName: String
  let shape: Shape

  init(_ value: Any) {
    let mirror = Mirror(reflecting: value)
    // A tuple is written as its parts alone, as it would be in source.
    typeName = mirror.displayStyle == .tuple ? "" : String(describing: mirror.subjectType)
    if Self.isAtomic(value)
      || mirror.children.isEmpty && mirror.displayStyle != .collection
        && mirror.displayStyle != .dictionary && mirror.displayStyle != .set
    {
      shape = .leaf(Self.atomicText(value, mirror: mirror))
      return
    }
    switch mirror.displayStyle {
    case .optional:
      let wrapped = mirror.children.first.map { Node($0.value) }
      shape = wrapped?.shape ?? .leaf("nil")
    case .collection:
      shape = .list(mirror.children.map { Node($0.value) })
    case .set:
      shape = .members(Set(mirror.children.map { Node($0.value).rendered }))
    case .dictionary:
      shape = .keyed(
        mirror.children.map { entry in
          let pair = Array(Mirror(reflecting: entry.value).children)
          let key = pair.first.map { Node($0.value).rendered } ?? "?"
          return (key, pair.count > 1 ? Node(pair[1].value) : Node("?"))
        }
        .sorted { $0.0 < $1.0 })
    case .enum:
      let payload = mirror.children.first
      shape = .enumCase(payload?.label ?? "\(value)", payload.map { Node($0.value) } ?? Node("()"))
    default:
      shape = .fields(
        mirror.children.enumerated().map { index, child in
          (child.label ?? "\(index)", Node(child.value))
        })
    }
  }

  /// The node on one line: `Conversation(name: "Lunch", kind: .group)`.
  var rendered: String {
    switch shape {
    case .leaf(let text): text
    case .fields(let fields):
      "\(typeName)(" + fields.map { "\($0.0): \($0.1.rendered)" }.joined(separator: ", ") + ")"
    case .enumCase(let name, let payload):
      payload.typeName.isEmpty ? ".\(name)\(payload.rendered)" : ".\(name)(\(payload.rendered))"
    case .list(let items): "[" + items.map(\.rendered).joined(separator: ", ") + "]"
    case .keyed(let entries):
      entries.isEmpty
        ? "[:]" : "[" + entries.map { "\($0.0): \($0.1.rendered)" }.joined(separator: ", ") + "]"
    case .members(let members): "Set([" + members.sorted().joined(separator: ", ") + "])"
    }
  }

  /// Values whose parts say nothing to a reader, compared by their description instead.
  private static func isAtomic(_ value: Any) -> Bool {
    value is UUID || value is Date || value is URL || value is Data || value is Decimal
      || value is Duration || value is any StringProtocol
  }

  private static func atomicText(_ value: Any, mirror: Mirror) -> String {
    if let text = value as? any StringProtocol { return String(reflecting: String(text)) }
    if mirror.displayStyle == .enum { return ".\(value)" }
    if let uuid = value as? UUID { return uuid.uuidString }
    return String(describing: value)
  }
}
