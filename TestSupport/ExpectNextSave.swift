import Models

/// Runs `action` and waits for the next save of `context` that it causes, recording an issue at
/// the caller's line if none arrives within `timeout` (scaled): the seed's "expect the next save
/// of this context".
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
  fileID: String = #fileID,
  filePath: String = #filePath,
  line: Int = #line,
  column: Int = #column,
  isolation: isolated (any Actor)? = #isolation,
  during action: () async throws -> Void
) async rethrows -> ChangeSet? {
  try await expectNextChange(
    .saved, of: context, within: timeout, fileID: fileID, filePath: filePath, line: line,
    column: column, isolation: isolation, during: action)
}

/// Runs `action` and waits for the next merge into `context` that it causes, recording an issue
/// at the caller's line if none arrives within `timeout` (scaled).
///
/// - Returns: The change set merged, or `nil` after recording the issue.
@discardableResult
public func expectNextMerge(
  into context: some ContextChangeSource,
  within timeout: Duration = .seconds(1),
  fileID: String = #fileID,
  filePath: String = #filePath,
  line: Int = #line,
  column: Int = #column,
  isolation: isolated (any Actor)? = #isolation,
  during action: () async throws -> Void
) async rethrows -> ChangeSet? {
  try await expectNextChange(
    .merged, of: context, within: timeout, fileID: fileID, filePath: filePath, line: line,
    column: column, isolation: isolation, during: action)
}

private func expectNextChange(
  _ kind: ContextChange.Kind,
  of context: some ContextChangeSource,
  within timeout: Duration,
  fileID: String,
  filePath: String,
  line: Int,
  column: Int,
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
    of: changes, what, within: timeout, where: { $0.kind == kind }, fileID: fileID,
    filePath: filePath, line: line, column: column)?.changes
}
