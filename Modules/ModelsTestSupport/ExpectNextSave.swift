import Models
import Testing

/// Runs `action` and waits for the next save of `context` that it causes, recording an issue at
/// the caller's line if none arrives within `timeout` (scaled).
///
/// It subscribes before running `action`, so it cannot miss a save that happens quickly.
///
/// ```swift
/// let saved = try await expectNextSave(of: stack.sync) {
///   try await stack.sync.perform { context in
///     context.applyRemote(user)
///     try context.save()
///   }
/// }
/// #expect(saved?[User.self].updated.keys.contains(user.id) == true)
/// ```
///
/// - Returns: The change set the save carried, or `nil` after recording the issue.
@discardableResult
public func expectNextSave(
  of context: some ContextChangeSource,
  within timeout: Duration = .seconds(1),
  sourceLocation: SourceLocation = #_sourceLocation,
  isolation: isolated (any Actor)? = #isolation,
  during action: () async throws -> Void
) async rethrows -> ChangeSet? {
  try await expectNextChange(
    .saved, of: context, within: timeout, sourceLocation: sourceLocation, isolation: isolation,
    during: action)
}

/// Runs `action` and waits for the next merge into `context` that it causes, recording an issue
/// at the caller's line if none arrives within `timeout` (scaled).
///
/// - Returns: The change set merged, or `nil` after recording the issue.
@discardableResult
public func expectNextMerge(
  into context: some ContextChangeSource,
  within timeout: Duration = .seconds(1),
  sourceLocation: SourceLocation = #_sourceLocation,
  isolation: isolated (any Actor)? = #isolation,
  during action: () async throws -> Void
) async rethrows -> ChangeSet? {
  try await expectNextChange(
    .merged, of: context, within: timeout, sourceLocation: sourceLocation, isolation: isolation,
    during: action)
}

private func expectNextChange(
  _ kind: ContextChange.Kind,
  of context: some ContextChangeSource,
  within timeout: Duration,
  sourceLocation: SourceLocation,
  isolation: isolated (any Actor)? = #isolation,
  during action: () async throws -> Void
) async rethrows -> ChangeSet? {
  let changes = context.changes()
  try await action()
  let what =
    kind == .saved
    ? "the next save of the \(context.role) context"
    : "the next merge into the \(context.role) context"
  return await expectElement(
    of: changes, what, within: timeout, where: { $0.kind == kind }, sourceLocation: sourceLocation)?
    .changes
}
