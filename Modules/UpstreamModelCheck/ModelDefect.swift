/// A deliberately broken client the model runs, to show that a check catches what it is for.
package enum ModelDefect: Sendable {
  /// Every pull reads the whole stream again, newest first: old news are applied over newer
  /// ones.
  case readsNewsBackwards
  /// The server sees no idempotency key, so a change sent again after a lost answer is applied
  /// again.
  case dropsIdempotencyKeys
}
