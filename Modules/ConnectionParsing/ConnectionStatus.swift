/// Where a connection request between two users stands, as the backend names it.
public enum ConnectionStatus: String, Sendable, Hashable, CaseIterable {
  /// Both users are connected.
  case accepted
  /// The other user asked to connect and awaits an answer.
  case pending
  /// This user blocked the other.
  case blocked
  /// This user ignored the other's request.
  case ignored
  /// This user asked to connect and awaits an answer.
  case sent
  /// This user withdrew a request.
  case cancelled
  /// The connection is held back until legal-hold consent is given.
  case missingLegalholdConsent = "missing-legalhold-consent"
}
