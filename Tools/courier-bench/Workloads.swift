import Foundation
import Models
import SQLiteStore
import Seams
import SyncStrategies

/// Fixed workloads for the instruction-count gate (`Tools/check-instructions`): each runs once,
/// the same way every time, so that `valgrind --tool=callgrind` counts the same instructions
/// from run to run on one toolchain.
let workloads: [(name: String, run: @MainActor () async throws -> Void)] = [
  ("drain-10k", { try await drainWorkload(10_000) }),
  ("save-10k", { try await saveWorkload(stored: 10_000, changed: 10_000) }),
  ("commit-10k", { try commitWorkload(10_000) }),
  // Not counted by the gate: for a heap profile (`valgrind --tool=massif`) of a whole sync.
  ("end-to-end-10k", { _ = try await endToEnd(10_000, runs: 0) }),
  // Not counted by the gate: the save-merge benchmark's shape, for a profile (`perf record`).
  ("save-merge-100k", { try await saveWorkload(stored: 100_000, changed: 10_000) }),
  // Not counted by the gate: one group rename between markers, for Tools/rename-path.
  ("rename-path", { try await renamePathWorkload() }),
]

/// Sets up `count` pending objects in chains of three and drains them.
@MainActor
private func drainWorkload(_ count: Int) async throws {
  let tracker = WorkTracker()
  let (stack, _) = try await pendingChains(count, tracker: tracker)
  let sent = await drain(stack, .standard())
  guard sent == count - count % 3 else {
    throw BenchError.mismatch("drained \(sent) requests for \(count) objects")
  }
}

/// Renames `changed` of `stored` users in the UI context, saves, and waits for the merge.
@MainActor
private func saveWorkload(stored: Int, changed: Int) async throws {
  let uuids = UUIDSource.seeded(7)
  let users = (0..<stored).map { User(id: uuids.next(), name: "User \($0)") }
  let tracker = WorkTracker()
  let stack = ModelStack.inMemory(Tables(users), uuids: uuids, tracker: tracker)
  let context = stack.ui.context
  for user in users.prefix(changed) {
    try context.update(User.self, id: user.id) { $0.name += "!" }
  }
  let changes = try context.save()
  _ = await tracker.settle(within: .seconds(600))
  guard changes[User.self].updated.count == changed else {
    throw BenchError.mismatch("saved \(changes[User.self].updated.count) of \(changed)")
  }
}

/// Writes `count` renamed users and their change-log records to a new SQLite store in one save.
private func commitWorkload(_ count: Int) throws {
  let directory = NSTemporaryDirectory() + "courier-commit-" + UUID().uuidString
  try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  let uuids = UUIDSource.seeded(11)
  let stack = try InlineModelStack(
    store: try SQLiteStore(path: directory + "/store.sqlite"), uuids: uuids)
  for index in 0..<count { stack.sync.applyRemote(User(id: uuids.next(), name: "User \(index)")) }
  try stack.sync.save()
  for user in stack.ui.objects(User.self) {
    try stack.ui.update(User.self, id: user.id) { $0.name += " (renamed)" }
  }
  let changes = try stack.ui.save()
  guard changes[User.self].updated.count == count else {
    throw BenchError.mismatch("saved \(changes[User.self].updated.count) of \(count)")
  }
}
