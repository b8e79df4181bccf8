import Foundation
import Models

/// Reads the objects of one entity from the rows of a statement: the decoder is chosen once for
/// all of them, and each value must carry its row's id.
struct ObjectRows<Object: ModelObject> {
  private let read: (UnsafeBufferPointer<UInt8>) throws -> Object
  private let entity = Object.entityName.rawValue

  init(_ decoder: RecordDecoder) {
    read = decoder.decoder(for: Object.self)
  }

  /// The object in `column` of the statement's current row, whose key is `id`.
  ///
  /// - Throws: ``SQLiteStoreError/unreadableRow(entity:id:reason:)`` when the bytes cannot be
  ///   read or hold another object.
  func object(in statement: SQLiteStatement, column: Int32, id: UUID) throws(SQLiteStoreError)
    -> Object
  {
    let object = try statement.withBytes(at: column) { bytes throws(SQLiteStoreError) in
      do {
        return try read(bytes)
      } catch {
        throw .unreadableRow(entity: entity, id: id.uuidString.lowercased(), reason: "\(error)")
      }
    }
    guard object.id == id else {
      throw .unreadableRow(
        entity: entity, id: id.uuidString.lowercased(), reason: "its value has another id")
    }
    return object
  }
}
