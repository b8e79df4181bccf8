import EventParsing
import FakeBackend
import Foundation
import Models
import Seams
import SyncStrategies
import TestSupport
import Testing
import UserParsing

@testable import UpstreamModelCheck

@Suite(
  "UpstreamObjectSync, against a reference model", .tags(.sync, .generated, .upstreamModelCheck),
  .timeBudget(.seconds(120), forWork: ModelRunSize.workAskedFor), .failsOnLoggedErrors)
struct UpstreamModelTests {
  /// How many sequences the normal suite runs: enough to exercise every kind of step in a debug
  /// build within seconds; CI searches 2,000 and more with `Tools/model-check`, built for
  /// release.
  static let normalSeeds: UInt64 = 50
  /// How many seeded sequences run: `COURIER_MODEL_SEEDS`, or 50 in the normal suite.
  static let seeds: UInt64 =
    ProcessInfo.processInfo.environment["COURIER_MODEL_SEEDS"].flatMap(UInt64.init) ?? normalSeeds
  /// The first seed: `COURIER_MODEL_FIRST_SEED`, or 1, so that a search can go on past the
  /// seeds one run has time for.
  static let firstSeed: UInt64 =
    ProcessInfo.processInfo.environment["COURIER_MODEL_FIRST_SEED"].flatMap(UInt64.init) ?? 1
  /// How many steps a sequence of the normal suite takes before draining: as many as
  /// `Tools/model-check` takes by default, so that a seed replays alike in both.
  static let defaultSteps = ModelCheckCommandLine.defaultSteps
  /// How many steps each sequence takes before draining: `COURIER_MODEL_STEPS`, or
  /// ``defaultSteps``, so that a search can try longer sequences than the normal suite has time
  /// for.
  static let steps =
    ProcessInfo.processInfo.environment["COURIER_MODEL_STEPS"].flatMap(Int.init) ?? defaultSteps
  /// The seeds go in this many groups, one test case each: one per core of CI.
  static let groups: UInt64 = 2
  /// How many dedicated threads share one group's seeds: the machine's cores split between the
  /// groups, so that a machine with more cores than CI runs the same seeds sooner.
  static let threadsPerGroup = max(1, ProcessInfo.processInfo.activeProcessorCount / Int(groups))

  /// The one seed to replay, from `COURIER_SEED`, if set.
  static let replay = ProcessInfo.processInfo.environment["COURIER_SEED"].flatMap(UInt64.init)

  /// The seeds this run checks: `COURIER_SEED` alone when set, else group `group` of all.
  static func seeds(ofGroup group: UInt64) -> [UInt64] {
    if let replay { return group == 0 ? [replay] : [] }
    return Array(stride(from: firstSeed + group, to: firstSeed + seeds, by: Int(groups)))
  }

  /// `seeds` dealt in turn to `threads` parts, each run by a thread of its own; a thread's seeds
  /// are spread over the range like the whole group's, so the parts take about as long.
  static func parts(of seeds: [UInt64], threads: Int) -> [[UInt64]] {
    let count = max(1, min(threads, seeds.count))
    return (0..<count).map { part in
      stride(from: part, to: seeds.count, by: count).map { seeds[$0] }
    }
  }

  /// The command that replays `seed`, with the sequence length when it is not the default.
  static func replayCommand(seed: UInt64, steps: Int = steps) -> String {
    let length = steps == defaultSteps ? "" : "COURIER_MODEL_STEPS=\(steps) "
    return "COURIER_SEED=\(seed) \(length)Tools/test UpstreamModelCheck --filter seededSequences"
  }

  /// Whether group `group` has no seed to check: every group but the first when replaying.
  static func isEmpty(group: UInt64) -> Bool {
    replay == nil ? group >= seeds : group != 0
  }

  @Test(
    "Seeded sequences keep the sync promise after every step and after draining",
    arguments: 0..<groups)
  func seededSequences(group: UInt64) async throws {
    // given
    let seeds = Self.seeds(ofGroup: group)

    // when
    let failure = await Self.firstFailure(
      among: Self.parts(of: seeds, threads: Self.threadsPerGroup))

    // then
    if let (seed, violation) = failure {
      let shortest = await DedicatedThread.run { _ in
        ModelRun.shortestFailingPrefix(seed: seed, failingAfter: Self.steps)
      }
      let release = try ModelCheckCommandLine(arguments: ["--steps", "\(Self.steps)"])
      Issue.record(
        """
        seed \(seed) broke the promise \(violation)
        replay: \(Self.replayCommand(seed: seed))
        or, built for release: \(release.replayCommand(seed: seed))
        its shortest failing prefix: \(shortest.report)
        """)
    }
    #expect(seeds.isEmpty == Self.isEmpty(group: group))
  }

  /// Runs each part on a dedicated thread and returns the first failure any of them finds; the
  /// other threads then stop at their next seed.
  static func firstFailure(
    among parts: [[UInt64]],
    checking check: @escaping @Sendable (UInt64) -> ModelViolation? = {
      ModelRun(seed: $0, steps: steps).violation
    }
  ) async -> (UInt64, ModelViolation)? {
    await withTaskGroup(of: (UInt64, ModelViolation)?.self) { threads in
      for part in parts {
        threads.addTask {
          // A plain loop: a lazy prefix re-reads its condition, which cancellation can change
          // between two reads, and traps.
          await DedicatedThread.run { thread -> (UInt64, ModelViolation)? in
            for seed in part where !thread.isCancelled {
              if let violation = check(seed) {
                return (seed, violation)
              }
            }
            return nil
          }
        }
      }
      for await case let failure? in threads {
        threads.cancelAll()
        return failure
      }
      return nil
    }
  }

  @Test(
    "A group's seeds are dealt to its threads, each seed once and each thread's spread over the range",
    arguments: zip(
      [1, 2, 3, 8],
      [
        [[1, 3, 5, 7, 9]], [[1, 5, 9], [3, 7]], [[1, 7], [3, 9], [5]], [[1], [3], [5], [7], [9]],
      ]))
  func seedsAreDealtToThreads(threads: Int, expected: [[UInt64]]) {
    // given
    let seeds: [UInt64] = [1, 3, 5, 7, 9]

    // when
    let parts = Self.parts(of: seeds, threads: threads)

    // then
    #expect(parts == expected)
  }

  @Test(
    "The threads report the seed that broke a rule, whichever thread ran it, and nothing when none did",
    arguments: zip([nil, 1, 8] as [UInt64?], [nil, 1, 8] as [UInt64?]))
  func threadsReportTheFailingSeed(failing: UInt64?, expected: UInt64?) async {
    // given
    let parts: [[UInt64]] = [[1, 3, 5, 7], [2, 4, 6, 8]]

    // when
    let failure = await Self.firstFailure(among: parts) { seed in
      seed == failing ? ModelViolation(step: 0, rule: "seed \(seed) fails") : nil
    }

    // then
    #expect(failure?.0 == expected)
    #expect(failure.map { "\($0.1)" } == expected.map { "after step 1: seed \($0) fails" })
  }

  @Test(
    "A failure's replay command names the sequence length only when it is not the default",
    arguments: zip(
      [defaultSteps, 1_000],
      [
        "COURIER_SEED=7 Tools/test UpstreamModelCheck --filter seededSequences",
        "COURIER_SEED=7 COURIER_MODEL_STEPS=1000 Tools/test UpstreamModelCheck --filter seededSequences",
      ]))
  func replayCommand(steps: Int, expected: String) {
    // given
    let seed: UInt64 = 7

    // when
    let command = Self.replayCommand(seed: seed, steps: steps)

    // then
    #expect(command == expected)
  }

  @Test(
    "A client broken on purpose breaks the rule meant for it within twenty seeds, and the check says so",
    arguments: [
      // Reading every notification again newest first shows an older name.
      (ModelDefect.readsNewsBackwards, "after it showed"),
      // A server that sees no idempotency key applies a resend after a lost answer again.
      (.dropsIdempotencyKeys, "change of this client to"),
    ])
  func brokenClientIsCaught(defect: ModelDefect, rule: String) async {
    // given
    let seeds: [UInt64] = Array(1...20)

    // when
    let violations = await DedicatedThread.run { _ in
      seeds.compactMap { seed in
        ModelRun(
          seed: seed, steps: Self.steps, strategies: UpstreamModel.standardStrategies,
          defect: defect
        ).violation
      }
    }

    // then
    #expect(violations.contains { $0.rule.contains(rule) }, "\(violations.map(\.rule).prefix(3))")
  }

  /// A seed that once broke the promise, with the length of its sequence and what it found.
  struct Regression: Sendable, CustomTestStringConvertible {
    let seed: UInt64
    let steps: Int
    let found: String
    var testDescription: String { "seed \(seed) of \(steps) steps: \(found)" }
  }

  @Test(
    "Seeds that once broke the promise keep it",
    arguments: [
      Regression(seed: 1010, steps: 200, found: "a rename dropped with its group, told by news"),
      Regression(seed: 1206, steps: 200, found: "an unblock answered after news of a block"),
      Regression(seed: 181454, steps: 200, found: "a member list measured from a stale base"),
      Regression(seed: 326880, steps: 200, found: "a rename's news read after a rejoin"),
      Regression(seed: 873, steps: 1000, found: "a message brought back as sent"),
      Regression(seed: 1810, steps: 1000, found: "a message brought back as sent"),
      Regression(seed: 5934, steps: 1000, found: "a value the backend no longer held"),
      Regression(seed: 26663, steps: 1000, found: "a leave answered after being added back"),
      Regression(seed: 28189, steps: 200, found: "a member added again over a later change"),
      Regression(seed: 119498, steps: 200, found: "a member added beside a removal, lost"),
      Regression(seed: 130171, steps: 200, found: "a member added beside a removal, lost"),
      Regression(seed: 111, steps: 200, found: "a status saved back while its call went again"),
      Regression(seed: 1226, steps: 200, found: "an accent saved back while its call went again"),
      Regression(seed: 1857, steps: 200, found: "a value the settling re-applied heard as news"),
    ])
  func regressions(_ regression: Regression) async {
    // when
    let run = await DedicatedThread.run { _ in
      ModelRun(seed: regression.seed, steps: regression.steps)
    }

    // then
    #expect(
      run.violation == nil,
      "\(run.violation?.description ?? ""); replay: \(Self.replayCommand(seed: regression.seed, steps: regression.steps))"
    )
  }

  @Test(
    "A resend whose first attempt the server applied gets the first answer, never a refusal, so the change never goes again under a new key",
    arguments: [745, 858, 1466, 1562] as [UInt64])
  func repeatOfAnsweredKeyNotRefused(seed: UInt64) async {
    // when: sequences in which the model once refused such a resend, and the user then retried
    // the refused change under a new key, over another device's later change
    let run = await DedicatedThread.run { _ in ModelRun(seed: seed, steps: 200) }

    // then
    #expect(run.violation == nil, "\(run.violation?.description ?? "")")
    #expect(run.exemptions == [:])
  }

  @Test(
    "Work the plan found ready waits out a backoff that an answer about its object started since",
    arguments: [8265, 10759, 12539] as [UInt64])
  func readyWorkWaitsOutLaterBackoff(seed: UInt64) async {
    // when: sequences in which a group's rename was ready in a plan, and the answer to another
    // request of the group told it to wait (a Retry-After) before the rename was handed out
    let run = await DedicatedThread.run { _ in ModelRun(seed: seed, steps: 200) }

    // then
    #expect(run.violation == nil, "replay: Tools/model-check --seed \(seed)")
  }

  @Test(
    "A member change overtaken by another member's later change is not sent again, under any key, whatever else of the group the user changed since",
    arguments: [5736, 6997, 10589, 19325] as [UInt64])
  func overtakenMemberChangeNotSentAgain(seed: UInt64) async {
    // when: sequences in which a member addition whose answer was lost, or was answered after
    // another member's later change of that member, went again in a new call: 6997 and 10589
    // because the user had changed other members since, 19325 because the answer left the
    // overtaken list behind as one the server might hold, 5736 when news did not move here
    // the members a call in flight named
    let run = await DedicatedThread.run { _ in ModelRun(seed: seed, steps: 200) }

    // then
    #expect(run.violation == nil, "\(run.violation?.description ?? "")")
    #expect(
      run.exemptions.keys.filter { !$0.hasPrefix("older value shown") } == [],
      "replay: Tools/model-check --seed \(seed)")
  }

  @Test("Each rule of the promise catches a strategy that breaks it", arguments: BrokenClient.all)
  func brokenStrategiesAreCaught(client: BrokenClient) async throws {
    // given
    let seeds: [UInt64] = Array(1...20)

    // when
    let violations = await DedicatedThread.run { _ in
      seeds.compactMap { seed in
        ModelRun(
          seed: seed, steps: Self.steps, strategies: client.strategies
        ).violation
      }
    }

    // then
    #expect(violations.contains { $0.rule.contains(client.brokenRule) })
  }
}

/// How much the model test was asked to do, outside its suite: the suite's own budget trait
/// cannot read the suite's members.
enum ModelRunSize {
  /// How many times the normal suite's steps (50 sequences of 200) this run was asked for: a
  /// search with more seeds or longer sequences gets a budget that grows with it.
  static let workAskedFor: Double =
    Double(UpstreamModelTests.seeds) * Double(UpstreamModelTests.steps)
    / (Double(UpstreamModelTests.normalSeeds) * Double(UpstreamModelTests.defaultSteps))
}

extension UpstreamModelTests {
  /// The model's checks, each shown failing on a state that breaks its rule: a check that cannot
  /// fail would let a broken client through.
  @Suite("Its checks")
  struct Checks {
    /// A model on seed 1 after `steps`.
    func model(after steps: [ModelStep]) throws -> UpstreamModel {
      let model = try UUIDSource.$current.withValue(.seeded(1)) {
        try UpstreamModel(uuids: .seeded(1))
      }
      for step in steps { try model.run(step) }
      return model
    }

    @Test(
      "The in-flight check fails when a request is held twice",
      arguments: zip(
        [
          [ModelStep.renameSelf("Ada"), .save, .handOut],
          [.write(conversation: 0, text: "hi"), .save, .handOut],
        ],
        ["one key in two requests at once", "one of them not an update"]))
    func inFlightTwice(steps: [ModelStep], rule: String) throws {
      // given
      let model = try model(after: steps)
      let request = try #require(model.inFlight.first)
      model.inFlight.append(request)

      // when
      let violation = #expect(throws: ModelViolation.self) { try model.checkInFlight(0) }

      // then
      #expect(violation?.rule.contains(rule) == true)
    }

    @Test("The cursor check fails when the notification cursor moves back")
    func cursorMovedBack() throws {
      // given: two renames by another user, each read as it came
      let model = try model(after: [.remoteRename(group: 0, "X"), .remoteRename(group: 0, "Y")])
      let first = try #require(model.fake.notifications.first)

      // when
      model.noteCursor(at: first.id)
      let violation = #expect(throws: ModelViolation.self) {
        try model.checkStep(2, after: .advance(.seconds(1)))
      }

      // then
      #expect(violation?.rule.contains("cursor moved back") == true)
    }

    @Test("The message check fails on a message of the self user that was never written here")
    func forgedMessage() throws {
      // given
      let model = try model(after: [])
      _ = model.fake.postMessageRemotely(in: model.conversations[0], from: model.me, text: "copy")

      // when
      let violation = #expect(throws: ModelViolation.self) { try model.learnServerMessages(0) }

      // then
      #expect(violation?.rule.contains("never written here") == true)
    }

    @Test("The step check fails on a record an unapplied group creation left behind")
    func creationLeftRecord() throws {
      // given: a record the creation did not write joins its own
      let model = try model(after: [.createGroup(members: [0]), .save, .handOut])
      let id = try #require(model.inFlight.first?.item.object.id)
      let group = try #require(model.stack.sync.object(Conversation.self, id: id))
      model.stack.sync.recordInFlight(group, keys: [.name])
      try model.run(.answer(0, .tooMany))

      // when
      let violation = #expect(throws: ModelViolation.self) {
        try model.checkStep(2, after: .answer(0, .tooMany))
      }

      // then
      #expect(violation?.rule.contains("after a creation it did not apply") == true)
    }

    @Test("The step check fails on a request sent before its object's Retry-After ended")
    func sentBeforeRetryAfter() throws {
      // given: the rename was told to wait, and the tracker was made to forget it
      let model = try model(after: [.renameSelf("Ada"), .save, .handOut, .answer(0, .tooMany)])
      let me = ObjectReference(User.entityName, model.me)
      model.upstream.retryFailedChange(of: me, in: model.stack.sync)
      try model.run(.handOut)

      // when
      let violation = #expect(throws: ModelViolation.self) {
        try model.checkStep(3, after: .handOut)
      }

      // then
      #expect(violation?.rule.contains("before its Retry-After ended") == true)
    }

    @Test("The drained check fails on a value still uncertain after every request was answered")
    func uncertainAfterDraining() throws {
      // given
      let model = try model(after: [.renameGroup(0, "Lunch!"), .save, .handOut])
      try model.drain()
      let group = try #require(model.stack.sync.object(Conversation.self, id: model.groups[0]))
      model.stack.sync.recordInFlight(group, keys: [.name])

      // when
      let violation = #expect(throws: ModelViolation.self) { try model.checkDrained(2) }

      // then
      #expect(violation?.rule.contains("values the backend may hold") == true)
    }

    @Test("The pending check fails on a refusal left as a failure on a message gone here")
    func failureOnGoneMessage() throws {
      // given: an unsent message the user deleted, which only drops it here
      let model = try model(after: [.write(conversation: 0, text: "hi"), .save])
      let nonce = try #require(model.written[model.conversations[0]]?.last)
      try model.stack.sync.delete(Message.self, id: nonce)
      try model.stack.sync.save()

      // when: a refusal of its creation is recorded after all
      model.stack.sync.markPushFailed(Message.self, id: nonce, PushFailure(reason: "400"))

      // then
      #expect(model.unacknowledged().contains { $0.contains("waits as a failure") })
    }

    /// How a broken client can lose an unsent message without the server or the user having
    /// a say.
    enum MessageLoss: String, CaseIterable, Sendable {
      /// Its creation is marked sent, though no request carried it.
      case markedSent
      /// It is dropped here, though nobody gave it up.
      case droppedHere

      func apply(to context: ModelContext, id: UUID) {
        switch self {
        case .markedSent: context.clearLocalInsertion(Message.self, id: id)
        case .droppedHere: context.discardLocally(Message.self, id: id)
        }
      }
    }

    @Test(
      "The pending check fails on an unsent message marked sent, or gone here though nobody gave it up",
      arguments: zip(
        MessageLoss.allCases, ["sent here but not on the server", "is gone here"]))
    func messageLost(loss: MessageLoss, report: String) throws {
      // given
      let model = try model(after: [.write(conversation: 0, text: "hi"), .save])
      let nonce = try #require(model.written[model.conversations[0]]?.last)

      // when
      loss.apply(to: model.stack.sync, id: nonce)

      // then
      #expect(model.unacknowledged().contains { $0.contains(report) })
    }

    @Test(
      "The pending and drained checks fail on a group gone here that still has the self user on the server"
    )
    func groupGoneUnleft() throws {
      // given
      let model = try model(after: [])
      let group = model.groups[0]

      // when
      model.stack.sync.discardLocally(Conversation.self, id: group)
      try model.stack.sync.save()

      // then
      #expect(model.unacknowledged().contains { $0.contains("no leaving is pending") })
      let violation = #expect(throws: ModelViolation.self) { try model.checkDrained(0) }
      #expect(violation?.rule.contains("\(group)") == true)
    }

    @Test(
      "The lost-edit check fails on a saved name put back to the server's without being sent, which the pending check cannot see"
    )
    func editLostUnasked() throws {
      // given: the user renames themselves, and the sync context quietly undoes it
      let model = try model(after: [.renameSelf("Ada"), .save])
      let context = model.stack.sync
      let server = try #require(model.fake.user(model.me)?.name)
      try context.update(User.self, id: model.me) { $0.name = server }
      context.clearLocalChanges(User.self, id: model.me, keys: [.name])
      try context.save()

      // when
      let problem = model.lostEdit()

      // then
      #expect(model.unacknowledged().isEmpty)
      #expect(problem?.contains("the user's last self name, Ada, is neither here") == true)
    }

    @Test(
      "The lost-edit check fails on a member the user added that the sync context quietly took out again"
    )
    func memberLostUnasked() throws {
      // given: the user adds a member, and the sync context undoes it without a word
      let model = try model(after: [.toggleMember(group: 0, user: 2), .save])
      let group = model.groups[0]
      let member = model.users[2]
      let context = model.stack.sync
      try context.update(Conversation.self, id: group) { $0.participantIDs.remove(member) }
      context.clearLocalChanges(Conversation.self, id: group, keys: [.participantIDs])
      try context.save()

      // when
      let problem = model.lostEdit()

      // then
      #expect(problem?.contains("the user's last membership of \(member)") == true)
    }

    @Test(
      "An edit the UI has not saved changes nothing the rules read, and the save records both edits of it",
      arguments: zip(
        [ModelStep.renameSelf("Ada"), .renameGroup(0, "Brunch")],
        [UpstreamModel.SavedValue.name("Ada"), .name("Brunch")]))
    func editsWaitForTheSave(edit: ModelStep, saved: UpstreamModel.SavedValue) throws {
      // given: two edits, of two objects, not saved yet
      let model = try model(after: [])
      let key: UpstreamModel.SavedKey =
        if case .renameGroup = edit { .groupName(model.groups[0]) } else { .selfName }
      #expect(try model.run(edit) == false)
      #expect(try model.run(.changeAccent(5)) == false)
      #expect(model.stack.sync.localChanges(of: User.self).isEmpty)
      #expect(model.lastSaved.isEmpty)

      // when
      let changed = try model.run(.save)

      // then
      #expect(changed)
      #expect(model.lastSaved == [key: saved, .accent: .accent(5)])
      #expect(model.stack.sync.localChanges(of: User.self).keys(of: model.me).contains(.accentID))
    }

    @Test("Giving up a refused group creation takes its unsent messages with it, as given up")
    func discardedGroupTakesMessages() throws {
      // given: a new group with a message waiting on it, its creation refused
      let model = try model(after: [
        .createGroup(members: [0]), .save, .handOut, .answer(0, .permanent),
      ])
      let group = try #require(model.groups.last)
      try model.run(.write(conversation: model.conversations.count - 1, text: "hi"))
      try model.run(.save)
      let nonce = try #require(model.written[group]?.last)

      // when
      try model.run(.discardFailed)

      // then
      #expect(model.stack.sync.object(Conversation.self, id: group) == nil)
      #expect(model.givenUp == [nonce])
      #expect(model.unacknowledged().isEmpty)
      try model.run(.write(conversation: model.conversations.count - 1, text: "late"))
      #expect(try model.run(.save) == false)
      #expect(model.written[group] == [nonce])
    }
  }
}
