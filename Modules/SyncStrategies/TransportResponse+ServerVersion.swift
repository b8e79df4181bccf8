import ParsingCore
import Transport

extension TransportResponse {
  /// The server's version this response says (``ServerVersion/header``): for an answer to a
  /// change, the version its change produced; for a read, the version of the state it read;
  /// `nil` when the backend does not say it.
  package var serverVersion: ServerVersion? {
    header(ServerVersion.header).flatMap(ServerVersion.init(header:))
  }
}
