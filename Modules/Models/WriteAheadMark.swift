/// Names one write-ahead record of values the backend may hold, so that the request that wrote
/// it can withdraw exactly that record later.
///
/// ``ModelContext/recordInFlight(_:keys:)`` returns it and
/// ``ModelContext/withdrawInFlight(_:id:mark:)`` takes it back. A record's values can change
/// while its request is out (news from the server change every version a creation may have
/// left), so the values alone cannot find it again.
package struct WriteAheadMark: Sendable, Hashable, CustomStringConvertible {
  /// The record's number, larger than that of every record the context held or wrote before.
  package let serial: Int

  /// Creates the mark numbered `serial`, as a store reads it back.
  package init(serial: Int) {
    self.serial = serial
  }

  /// Reads as `write-ahead 3`.
  package var description: String { "write-ahead \(serial)" }
}
