import Foundation

/// A structural comparison of two values of any type: the path to every part that differs, with
/// the expected value on a `-` line and the actual one on a `+` line.
///
/// ```swift
/// StructuralDiff.lines(expected: lunch, actual: dinner)
/// // - .name: "Lunch"
/// // + .name: "Dinner"
/// // - .participantIDs: contains 00000000-0000-0000-0000-000000000002
/// ```
///
/// Structs, classes, tuples and enum payloads are compared field by field, arrays index by index,
/// dictionaries key by key and sets element by element; anything without parts (numbers,
/// strings, ids, dates) is compared by its description.
public enum StructuralDiff {
  /// The lines that say how `actual` differs from `expected`; empty when no difference shows.
  public static func lines(expected: Any, actual: Any) -> [String] {
    var lines: [String] = []
    compare(Node(expected), Node(actual), at: "", into: &lines)
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
      for (index, pair) in zip(left, right).enumerated() {
        compare(pair.0, pair.1, at: path + "[\(index)]", into: &lines)
      }
      for index in right.count..<max(left.count, right.count) {
        lines.append("- \(path)[\(index)]: \(left[index].rendered)")
      }
      for index in left.count..<max(left.count, right.count) {
        lines.append("+ \(path)[\(index)]: \(right[index].rendered)")
      }
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
