import Foundation

extension UUID {
  /// The id's place in the order of its bytes compared one by one, as two whole numbers: the
  /// order SQLite keeps rows keyed by ids in, and the order `<` gives, without its cost.
  package var byteOrder: (UInt64, UInt64) {
    withUnsafeBytes(of: uuid) { bytes in
      (
        UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
        UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      )
    }
  }
}
