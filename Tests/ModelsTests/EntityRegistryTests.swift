import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

/// An entity that exists only in this suite: a reaction to a message.
///
/// It proves that adding an entity takes its type, its schema and one registry line, and no
/// change to the model layer.
struct Reaction: ModelObject {
  enum Key: String, Sendable, DeclarationOrdered {
    case emoji
    case count
  }

  let id: UUID
  let messageID: UUID
  var emoji: String
  var count: Int

  static let message = Relationship<Reaction>("message", to: Message.self) { [$0.messageID] }

  static let schema = EntitySchema<Reaction>(
    name: "Reaction",
    field: { key in
      switch key {
      case .emoji: Field(get: { $0.emoji }, set: { $0.emoji = $1 })
      case .count: Field(get: { $0.count }, set: { $0.count = $1 })
      }
    },
    relationships: [message],
    violations: { reaction, _, context in
      var rules: [ValidationRule] = []
      if reaction.emoji.isEmpty {
        rules.append(.declared(name: "emoji-not-empty", description: "a reaction needs an emoji"))
      }
      if context.object(Message.self, id: reaction.messageID) == nil {
        rules.append(
          .declared(name: "reaction-needs-message", description: "a reaction needs its message"))
      }
      return rules
    })
}

@Suite("EntityRegistry", .tags(.models), .courier(timeBudget: .seconds(5)))
@MainActor
struct EntityRegistryTests {
  let make = ModelFactory()
  static let entities = EntityRegistry.standard.adding(Reaction.self)

  /// A stack that knows reactions, holding a self user, a group and one message.
  func world() -> (ModelStack, Message) {
    let me = make.selfUser()
    let group = make.conversation(creator: me)
    let message = make.message(in: group, from: me)
    let stack = ModelStack.inMemory(
      Tables([me, group, message]), entities: Self.entities, uuids: .current, tracker: .current)
    return (stack, message)
  }

  @Test("The standard registry lists Courier's four entities, and adding one keeps the order")
  func standardEntities() {
    // when
    let names = Self.entities.names

    // then
    #expect(names == [.user, .connection, .conversation, .message, "Reaction"])
    #expect(Self.entities.type(named: "Reaction") == Reaction.self)
    #expect(EntityRegistry.standard.adding(User.self).names.count == 4)
  }

  @Test("A new entity is inserted, saved and committed to the store")
  func insertAndSave() async throws {
    // given
    let (stack, message) = world()
    let reaction = Reaction(id: UUID(1), messageID: message.id, emoji: "👍", count: 1)

    // when
    try stack.ui.context.insert(reaction)
    let changes = try stack.ui.context.save()

    // then
    #expect(changes[Reaction.self].inserted == [reaction.id: reaction])
    #expect(changes.description == "ui save: Reaction +1 ~0 -0")
    #expect(try stack.store.load().tables.object(Reaction.self, id: reaction.id) == reaction)
    await expectSettled(stack.tracker)
  }

  @Test("A UI save of the new entity merges into the sync context and is tracked key by key")
  func mergesIntoSyncAndTracksKeys() async throws {
    // given
    let (stack, message) = world()
    let reaction = Reaction(id: UUID(1), messageID: message.id, emoji: "👍", count: 1)
    try stack.ui.context.insert(reaction)
    try stack.ui.context.save()
    await expectSettled(stack.tracker)
    await stack.sync.perform { context in
      context.clearLocalInsertion(Reaction.self, id: reaction.id)
    }

    // when
    let merged = try await expectNextMerge(into: stack.sync) {
      try stack.ui.context.update(Reaction.self, id: reaction.id) { $0.count = 2 }
      try stack.ui.context.save()
    }
    await expectSettled(stack.tracker)

    // then
    #expect(merged?[Reaction.self].changedKeys(of: reaction.id) == [.count])
    let (seen, local) = await stack.sync.perform { context in
      (context.object(Reaction.self, id: reaction.id), context.localChanges(of: Reaction.self))
    }
    #expect(seen?.count == 2)
    #expect(local.updatedKeys == [reaction.id: [.count]])
    #expect(local.originals[reaction.id]?.count == 1)
  }

  @Test("A sync save of the new entity merges into the UI context, and an unsaved UI edit wins")
  func mergesIntoUI() async throws {
    // given
    let (stack, message) = world()
    let reaction = Reaction(id: UUID(1), messageID: message.id, emoji: "👍", count: 1)
    try await stack.sync.perform { context in
      context.applyRemote(reaction)
      try context.save()
    }
    await expectSettled(stack.tracker)
    try stack.ui.context.update(Reaction.self, id: reaction.id) { $0.emoji = "🎉" }
    var server = reaction
    server.emoji = "😀"
    server.count = 5

    // when
    let merged = try await expectNextMerge(into: stack.ui) {
      try await stack.sync.perform { [server] context in
        context.applyRemote(server)
        try context.save()
      }
    }

    // then
    #expect(merged?[Reaction.self].changedKeys(of: reaction.id) == [.emoji, .count])
    let seen = stack.ui.context.object(Reaction.self, id: reaction.id)
    #expect(seen?.emoji == "🎉")
    #expect(seen?.count == 5)
  }

  @Test("A broken rule of the new entity fails the save and rolls the context back")
  func rulesAndRollback() throws {
    // given
    let (stack, message) = world()
    let context = stack.ui.context
    try context.insert(Reaction(id: UUID(1), messageID: message.id, emoji: "", count: 1))

    // when
    let error = #expect(throws: SaveError.self) { try context.save() }

    // then
    #expect(error?.failures.map(\.rule.description) == ["a reaction needs an emoji"])
    #expect(context.object(Reaction.self, id: UUID(1)) == nil)
    #expect(!context.hasChanges)
  }

  @Test("Deleting an object that the new entity still refers to checks the new entity's rules")
  func relationshipsAreChecked() async throws {
    // given
    let (stack, message) = world()
    let context = stack.ui.context
    let reaction = Reaction(id: UUID(1), messageID: message.id, emoji: "👍", count: 1)
    try context.insert(reaction)
    try context.save()

    // when
    try context.delete(Message.self, id: message.id)
    let error = #expect(throws: SaveError.self) { try context.save() }

    // then
    #expect(error?.failures.map(\.object) == [reaction.reference])
    #expect(error?.failures.map(\.rule.description) == ["a reaction needs its message"])
    #expect(
      context.objects(Reaction.self, referringTo: message.id, via: Reaction.message) == [reaction])
    await expectSettled(stack.tracker)
  }

  @Test("A stack that does not know an entity refuses to insert it, naming the entity")
  func unknownEntity() {
    // given
    let stack = ModelStack.forTesting()
    let reaction = Reaction(id: UUID(1), messageID: UUID(2), emoji: "👍", count: 1)

    // when
    let error = #expect(throws: ContextError.self) { try stack.ui.context.insert(reaction) }

    // then
    #expect(error == .unknownEntity("Reaction"))
    #expect(error?.description == "the stack does not know the entity Reaction")
  }
}
