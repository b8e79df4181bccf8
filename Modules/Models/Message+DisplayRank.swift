import Foundation

extension Message {
  /// The message's place in its conversation as bytes that sort, compared one by one, as
  /// `Message.displayOrder` sorts messages: what a store orders a conversation's messages by.
  ///
  /// Sent messages come first, by server time, then unsent ones by local time; ties go by local
  /// time and then by nonce, so no two messages share a rank.
  package var displayRank: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(33)
    if let serverTime {
      bytes.append(0)
      Self.appendSortable(serverTime.timeIntervalSinceReferenceDate, to: &bytes)
    } else {
      bytes.append(1)
    }
    Self.appendSortable(localTime.timeIntervalSinceReferenceDate, to: &bytes)
    withUnsafeBytes(of: nonce.uuid) { bytes.append(contentsOf: $0) }
    return bytes
  }

  /// Appends `value` as eight bytes whose order is the order of the numbers: the sign bit
  /// flipped for positive numbers, every bit for negative ones, most significant byte first.
  private static func appendSortable(_ value: Double, to bytes: inout [UInt8]) {
    // Zero and negative zero are equal times, so they take one rank.
    let value = value == 0 ? 0 : value
    let bits = value.bitPattern
    let ordered = value.sign == .minus ? ~bits : bits | (1 << 63)
    withUnsafeBytes(of: ordered.bigEndian) { bytes.append(contentsOf: $0) }
  }
}
