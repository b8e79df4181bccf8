import ConversationParsing
import FakeBackend
import Foundation
import Models
import Seams
import SyncEngine

/// How many times the rename path's markers ran; written so that no call to them is dropped.
nonisolated(unsafe) private var pathMarks = 0

/// Marks where the measured rename starts: `Tools/rename-path` zeroes callgrind's counts here.
@inline(never) @_silgen_name("courier_rename_path_start")
func renamePathStart() { pathMarks &+= 1 }

/// Marks where the measured rename ends: `Tools/rename-path` dumps callgrind's counts here.
@inline(never) @_silgen_name("courier_rename_path_end")
func renamePathEnd() { pathMarks &+= 2 }

/// One group rename from the UI's save until the engine settles (the answer applied and the
/// rename's own notification pulled), through a real engine and the in-process fake, between
/// the two markers; a first rename before them warms every path, so the second one is measured
/// as an app's would run.
@MainActor
func renamePathWorkload() async throws {
  let tracker = WorkTracker()
  let fake = FakeBackend(uuids: .seeded(5), time: SystemTimeSource())
  let me = fake.insertSelfUser(name: "Me")
  let ann = fake.insertUser(name: "Ann")
  let group = fake.createGroupRemotely(name: "G", by: me, members: [ann])
  let stack = ModelStack.inMemory(
    Tables([User(id: me, isSelf: true, name: "Me")]), uuids: .seeded(6), tracker: tracker)
  let engine = SyncEngine(stack: stack, transport: fake.transport, tracker: tracker)
  await engine.start()
  _ = await tracker.settle(within: .seconds(60))
  for (index, name) in ["Warm", "Measured"].enumerated() {
    if index == 1 { renamePathStart() }
    try stack.ui.context.update(Conversation.self, id: group) { $0.name = name }
    try stack.ui.context.save()
    _ = await tracker.settle(within: .seconds(60))
    if index == 1 { renamePathEnd() }
  }
  guard fake.conversation(group)?.name == "Measured",
    stack.ui.context.object(Conversation.self, id: group)?.name == "Measured"
  else { throw BenchError.mismatch("the rename did not reach the fake and come back") }
}
