import Foundation
import Seams

/// The sync context's side: values from the server, and the change log of what is still to push.
extension ModelContext {
  /// Takes the server's values of `object` into this context, except for keys with a local change
  /// that has not been pushed yet; the object is inserted if it is new here.
  ///
  /// Status-transition rules do not apply to what the server says; the rules about the object's
  /// own state still do at save. Objects of an entity the stack does not know are ignored, with a
  /// warning in the log.
  public func applyRemote<Object: ModelObject>(_ object: Object) {
    guard entities.contains(Object.self) else {
      logger.warning("ignored a server \(Object.entityName): the stack does not know the entity")
      return
    }
    remoteEdits.insert(object.reference)
    guard var current = self.object(Object.self, id: object.id) else {
      edits.modify(Object.self) { $0.set(object, for: object.id) }
      return
    }
    let changes = log[Object.self]
    guard !changes.inserted.contains(object.id) else { return }
    let dirty = changes.keys(of: object.id)
    for key in Object.Key.allCases where !dirty.contains(key) {
      Object.field(key).copy(&current, object)
    }
    edits.modify(Object.self) { [current] in $0.set(current, for: object.id) }
  }

  /// Deletes the object the server deleted, whatever its local changes.
  public func applyRemoteDeletion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard object(type, id: id) != nil else { return }
    remoteEdits.insert(ObjectReference(Object.entityName, id))
    edits.modify(type) { $0.set(nil, for: id) }
    modifyLog { log in
      log.modify(type) { changes in
        changes.inserted.remove(id)
        changes.updatedKeys[id] = nil
        changes.originals[id] = nil
      }
    }
  }

  /// The local changes of `type` that are not synchronised yet.
  ///
  /// The sync context records them from every UI save and keeps them across saves until they are
  /// cleared; in the UI context they are always empty. Reading it costs as much as the number of
  /// changed objects, not the number of objects.
  public func localChanges<Object: ModelObject>(of type: Object.Type) -> LocalChanges<Object> {
    log[type]
  }

  /// Marks `keys` of the object `id` as synchronised.
  public func clearLocalChanges<Object: ModelObject>(
    _ type: Object.Type, id: UUID, keys: Set<Object.Key>
  ) {
    guard log[type].updatedKeys[id] != nil else { return }
    modifyLog { log in
      log.modify(type) { changes in
        guard var remaining = changes.updatedKeys[id] else { return }
        remaining.subtract(keys)
        changes.updatedKeys[id] = remaining.isEmpty ? nil : remaining
        if remaining.isEmpty { changes.originals[id] = nil }
      }
    }
  }

  /// Records that the backend now holds `object`'s values for `keys` (they were pushed), so the
  /// synchronised value of those keys is theirs, whether or not they changed again since.
  public func recordSynchronised<Object: ModelObject>(_ object: Object, keys: Set<Object.Key>) {
    guard log[Object.self].updatedKeys[object.id] != nil else { return }
    modifyLog { log in
      log.modify(Object.self) { changes in
        var original = changes.originals[object.id] ?? object
        for key in keys { Object.field(key).copy(&original, object) }
        changes.originals[object.id] = original
      }
    }
  }

  /// Marks the insertion of the object `id` as synchronised: the backend has it now.
  public func clearLocalInsertion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard log[type].inserted.contains(id) else { return }
    modifyLog { log in log.modify(type) { _ = $0.inserted.remove(id) } }
  }

  /// Marks the deletion of the object `id` as synchronised: the backend deleted it too.
  public func clearLocalDeletion<Object: ModelObject>(_ type: Object.Type, id: UUID) {
    guard log[type].deleted.contains(id) else { return }
    modifyLog { log in log.modify(type) { _ = $0.deleted.remove(id) } }
  }
}
