import Seams
import Testing

/// Waits for the first element of `sequence` that satisfies `predicate`, recording an issue at the
/// caller's line if none arrives within `timeout` (scaled).
///
/// This is the building block for domain expectations such as "expect the next save of this
/// context": wrap it in a function that names the sequence and what the element should be.
///
/// - Returns: The element, or `nil` after recording the issue.
public func expectElement<Sequence: AsyncSequence & Sendable>(
  of sequence: Sequence,
  _ description: String,
  within timeout: Duration,
  where predicate: @escaping @Sendable (Sequence.Element) -> Bool = { _ in true },
  sourceLocation: SourceLocation = #_sourceLocation
) async -> Sequence.Element? where Sequence.Element: Sendable {
  let found = await firstResult(within: TimeoutScale.scaled(timeout)) { () -> Sequence.Element? in
    do {
      for try await element in sequence where predicate(element) { return element }
    } catch {
      return nil
    }
    return nil
  }
  if found == nil {
    FailureRecorder(sourceLocation: sourceLocation)
      .record("Expected \(description) within \(timeout.readable), but none arrived")
  }
  return found
}
