import Foundation

/// What is still to be pushed of one object, as a store keeps it: whether it was inserted or
/// deleted locally, which keys changed, its last synchronised value, a refusal, and values the
/// backend may hold after lost answers.
///
/// A record with nothing in it means the object has nothing pending; a store removes it.
package struct PendingChange<Object: ModelObject>: Sendable, Equatable, Codable {
  /// Inserted locally, and the backend does not have it yet.
  package var isInserted = false
  /// Deleted locally, and the backend has not heard of it yet.
  package var isDeleted = false
  /// The keys changed locally since they were last synchronised.
  package var keys: Set<Object.Key> = []
  /// The server's version of the latest news that changed or told ``original``, if known (see
  /// ``LocalChanges/originalVersions``).
  package var originalVersion: Int?
  /// The values only a changed, deleted, refused or uncertain object has, in a box of their own:
  /// most records hold none of them (a new message's), and a save or an in-memory store keeps
  /// many records, so a record without them stays a few bytes wide.
  fileprivate var box: Box?

  /// The object's last synchronised value (its last value, for a deletion).
  package var original: Object? {
    get { box?.values.original }
    set { changeBox { $0.original = newValue } }
  }
  /// The backend's refusal, if it refused the change for good.
  package var failure: PushFailure? {
    get { box?.values.failure }
    set { changeBox { $0.failure = newValue } }
  }
  /// Values the backend may hold because requests carrying them may have been applied.
  package var unconfirmed: [UnconfirmedValue<Object>] {
    get { box?.values.unconfirmed ?? [] }
    set { changeBox { $0.unconfirmed = newValue } }
  }
  /// The changed keys' last synchronised values when the user first changed them (see
  /// ``LocalChanges/editBases``).
  package var editBase: Object? {
    get { box?.values.editBase }
    set { changeBox { $0.editBase = newValue } }
  }

  /// Sets the four values a record keeps apart at once.
  ///
  /// They go in one new box, or none when they are all absent; setting them one by one makes a
  /// box for each.
  package mutating func setBox(
    original: Object?, failure: PushFailure?, unconfirmed: [UnconfirmedValue<Object>],
    editBase: Object?
  ) {
    let values = BoxedValues(
      original: original, failure: failure, unconfirmed: unconfirmed, editBase: editBase)
    box = values.isEmpty ? nil : Box(values)
  }

  /// Replaces the box with one whose values `change` changed.
  private mutating func changeBox(_ change: (inout BoxedValues) -> Void) {
    var values = box?.values ?? BoxedValues()
    change(&values)
    box = values.isEmpty ? nil : Box(values)
  }

  /// The values a record keeps apart.
  fileprivate struct BoxedValues: Sendable, Equatable {
    var original: Object?
    var failure: PushFailure?
    var unconfirmed: [UnconfirmedValue<Object>] = []
    var editBase: Object?

    /// Whether none is set, so that no box is needed.
    var isEmpty: Bool {
      original == nil && failure == nil && unconfirmed.isEmpty && editBase == nil
    }
  }

  /// The values a record keeps apart, in a box; immutable, so copies of a record share them.
  fileprivate final class Box: Sendable, Equatable {
    let values: BoxedValues

    init(_ values: BoxedValues) {
      self.values = values
    }

    static func == (lhs: Box, rhs: Box) -> Bool {
      lhs === rhs || lhs.values == rhs.values
    }
  }

  /// Creates an empty record.
  package init() {}

  /// Whether the object has nothing pending and the record can go.
  package var isEmpty: Bool {
    !isInserted && !isDeleted && keys.isEmpty && original == nil && failure == nil
      && unconfirmed.isEmpty
  }

  private enum CodingKeys: String, CodingKey {
    case isInserted, isDeleted, keys, original, failure, unconfirmed, editBase, originalVersion
  }

  /// Reads a record; an unknown key name is an error naming it.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    isInserted = try container.decode(Bool.self, forKey: .isInserted)
    isDeleted = try container.decode(Bool.self, forKey: .isDeleted)
    keys = try Object.Key.decodeSet(from: container, forKey: .keys)
    setBox(
      original: try container.decodeIfPresent(Object.self, forKey: .original),
      failure: try container.decodeIfPresent(PushFailure.self, forKey: .failure),
      unconfirmed: try container.decodeIfPresent(
        [UnconfirmedValue<Object>].self, forKey: .unconfirmed) ?? [],
      // A record written before edit bases existed measures the change against its original.
      editBase: try container.decodeIfPresent(Object.self, forKey: .editBase))
    originalVersion = try container.decodeIfPresent(Int.self, forKey: .originalVersion)
  }

  /// Writes the record: the keys by name, comma-separated; an empty list of unconfirmed values,
  /// and a missing edit base, are left out.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(isInserted, forKey: .isInserted)
    try container.encode(isDeleted, forKey: .isDeleted)
    try container.encode(Object.Key.names(of: keys), forKey: .keys)
    try container.encodeIfPresent(original, forKey: .original)
    try container.encodeIfPresent(failure, forKey: .failure)
    if !unconfirmed.isEmpty { try container.encode(unconfirmed, forKey: .unconfirmed) }
    try container.encodeIfPresent(editBase, forKey: .editBase)
    try container.encodeIfPresent(originalVersion, forKey: .originalVersion)
  }
}

extension UnconfirmedValue: Codable {
  private enum CodingKeys: String, CodingKey {
    case keys, value, mark, editedSince, call, savedSince, savedElementsSince
  }

  /// The elements of one set-valued key saved since a call, as a store keeps them.
  private struct SavedElements: Codable {
    var key: String
    var elements: [String]
  }

  /// Reads an unconfirmed value; an unknown key name is an error naming it.
  ///
  /// A value written before marks existed reads as unmarked, one written before the user's
  /// later changes were kept beside it, as changed since by nothing, one written before
  /// calls were kept (with an idempotency key alone), as one without a call, and one written
  /// before saves since a call were kept, as saved since in nothing.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      keys: try Object.Key.decodeSet(from: container, forKey: .keys),
      value: try container.decode(Object.self, forKey: .value),
      mark: try container.decodeIfPresent(Int.self, forKey: .mark).map(WriteAheadMark.init),
      editedSince: try container.decodeIfPresent(EditBase<Object>.self, forKey: .editedSince),
      call: try container.decodeIfPresent(RecordedCall.self, forKey: .call),
      savedSince: container.contains(.savedSince)
        ? try Object.Key.decodeSet(from: container, forKey: .savedSince) : [],
      savedElementsSince: try Self.decodeSavedElements(from: container))
  }

  /// Reads the elements saved since the call, key by key.
  ///
  /// A record written before they were kept has none. An unknown key name is an error naming
  /// it.
  private static func decodeSavedElements(
    from container: KeyedDecodingContainer<CodingKeys>
  ) throws -> [Object.Key: Set<SetElement>] {
    let saved =
      try container.decodeIfPresent([SavedElements].self, forKey: .savedElementsSince) ?? []
    var elements: [Object.Key: Set<SetElement>] = [:]
    for entry in saved {
      guard let key = Object.Key(rawValue: entry.key) else {
        throw DecodingError.dataCorruptedError(
          forKey: .savedElementsSince, in: container,
          debugDescription: "unknown key \(entry.key) of \(Object.self)")
      }
      elements[key, default: []].formUnion(entry.elements.map(SetElement.init(text:)))
    }
    return elements
  }

  /// Writes the keys by name, comma-separated, the value, the mark's serial if it has one, the
  /// user's later changes if there are any, the call that went if there is one, and the keys
  /// and set elements saved since it, if any.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Object.Key.names(of: keys), forKey: .keys)
    try container.encode(value, forKey: .value)
    try container.encodeIfPresent(mark?.serial, forKey: .mark)
    try container.encodeIfPresent(editedSince, forKey: .editedSince)
    try container.encodeIfPresent(call, forKey: .call)
    if !savedSince.isEmpty {
      try container.encode(Object.Key.names(of: savedSince), forKey: .savedSince)
    }
    if !savedElementsSince.isEmpty {
      let saved = savedElementsSince.sorted { $0.key < $1.key }.map { key, elements in
        SavedElements(key: key.rawValue, elements: elements.compactMap(\.text).sorted())
      }
      try container.encode(saved, forKey: .savedElementsSince)
    }
  }
}

extension EditBase: Codable {
  private enum CodingKeys: String, CodingKey {
    case keys, value
  }

  /// Reads an edit base; an unknown key name is an error naming it.
  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      keys: try Object.Key.decodeSet(from: container, forKey: .keys),
      value: try container.decode(Object.self, forKey: .value))
  }

  /// Writes the keys by name, comma-separated, and the value.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Object.Key.names(of: keys), forKey: .keys)
    try container.encode(value, forKey: .value)
  }
}

extension RawRepresentable where RawValue == String, Self: Hashable {
  /// `keys` as one string: their names in sorted order, comma-separated (no key name holds a
  /// comma).
  package static func names(of keys: Set<Self>) -> String {
    return keys.map(\.rawValue).sorted().joined(separator: ",")
  }

  /// The keys named in `container` under `key`; a name that is no key is a decoding error.
  fileprivate static func decodeSet<Container: CodingKey>(
    from container: KeyedDecodingContainer<Container>, forKey key: Container
  ) throws -> Set<Self> {
    var keys: Set<Self> = []
    for name in try container.decode(String.self, forKey: key).split(separator: ",") {
      guard let parsed = Self(rawValue: String(name)) else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: "'\(name)' is not a key of the entity")
      }
      keys.insert(parsed)
    }
    return keys
  }
}

extension LocalChanges {
  /// What is pending of `id`, as a store keeps it; an empty record when nothing is.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  package func pendingChange(of id: UUID) -> PendingChange<Object> {
    var record = PendingChange<Object>()
    // Each lookup hashes the id; a part of the log that holds nothing is not asked.
    record.isInserted = !inserted.isEmpty && inserted.contains(id)
    record.isDeleted = !deleted.isEmpty && deleted.contains(id)
    let keys = updatedKeys[id]
    record.keys = keys ?? []
    let original = originals[id]
    record.originalVersion =
      original == nil || originalVersions.isEmpty ? nil : originalVersions[id]
    // The values go into the record's box at once, not one at a time.
    record.setBox(
      original: original, failure: failures.isEmpty ? nil : failures[id],
      unconfirmed: unconfirmed.isEmpty ? [] : unconfirmed[id] ?? [],
      editBase: keys == nil ? nil : editBases[id])
    return record
  }

  /// Replaces what is pending of `id` with `record`.
  @_specialize(where Object == User)
  @_specialize(where Object == Message)
  @_specialize(where Object == Conversation)
  @_specialize(where Object == Connection)
  mutating func setPendingChange(_ record: PendingChange<Object>, of id: UUID) {
    assign(record, of: id)
  }

  /// The body of ``setPendingChange(_:of:)``, apart so that the specialisations sit on a call
  /// with no generic locals: a generic body looks up their metadata as it starts.
  private mutating func assign(_ record: PendingChange<Object>, of id: UUID) {
    if record.isInserted {
      inserted.insert(id)
    } else if !inserted.isEmpty {
      inserted.remove(id)
    }
    if record.isDeleted {
      deleted.insert(id)
    } else if !deleted.isEmpty {
      deleted.remove(id)
    }
    // Each write hashes the id: a part that holds nothing and gets nothing is left alone, as
    // most are for most records (a new message has no original, refusal or edit base).
    Self.put(record.keys.isEmpty ? nil : record.keys, of: id, in: &updatedKeys)
    let box = record.box
    let original = box?.values.original
    Self.put(original, of: id, in: &originals)
    Self.put(box?.values.failure, of: id, in: &failures)
    Self.put(
      box.flatMap { $0.values.unconfirmed.isEmpty ? nil : $0.values.unconfirmed }, of: id,
      in: &unconfirmed)
    Self.put(record.keys.isEmpty ? nil : box?.values.editBase, of: id, in: &editBases)
    Self.put(original == nil ? nil : record.originalVersion, of: id, in: &originalVersions)
  }

  /// Sets the entry of `id` in `part` to `value`, without touching an empty part that stays
  /// empty.
  private static func put<Value>(_ value: Value?, of id: UUID, in part: inout [UUID: Value]) {
    guard value != nil || !part.isEmpty else { return }
    part[id] = value
  }
}
