import Foundation
import Models
import ModelsTestSupport
import TestSupport
import Testing

@Suite("ValidationRule", .tags(.models), .timeBudget(.seconds(5)))
struct ValidationRuleTests {
  static let conversation = UUID(12)

  @Test(
    "Each rule reads as a sentence that names what is wrong",
    arguments: zip(
      [
        ValidationRule.nameNotEmpty(.user), .nameNotEmpty(.conversation),
        .statusTransition(from: .cancelled, to: .sent), .connectionToSelf,
        .messageNeedsConversation(conversation), .messageTextNotEmpty,
      ],
      [
        "a user's name must not be empty", "a conversation's name must not be empty",
        "status cannot change from cancelled to sent", "a connection must join two different users",
        "a message needs an existing conversation, and 00000000-0000-0000-0000-00000000000c does not exist",
        "a message's text must not be empty",
      ]))
  func descriptions(_ rule: ValidationRule, _ expected: String) {
    // when
    let text = rule.description

    // then
    #expect(text == expected)
  }

  @Test("A save error lists every failure with its object, and counts them")
  func saveError() {
    // given
    let id = Self.conversation
    let failures = [
      ValidationFailure(object: ObjectReference(.user, id), rule: .nameNotEmpty(.user)),
      ValidationFailure(object: ObjectReference(.message, id), rule: .messageTextNotEmpty),
    ]

    // when
    let text = SaveError.invalid(failures).description

    // then
    #expect(
      text
        == "The save broke 2 rules: User 00000000-0000-0000-0000-00000000000c: a user's name must "
        + "not be empty; Message 00000000-0000-0000-0000-00000000000c: a message's text must not be empty"
    )
    #expect(SaveError.store("disk full").description == "The store refused the save: disk full")
    #expect(SaveError.store("disk full").failures.isEmpty)
  }

  @Test(
    "Object references order by entity name, then id",
    arguments: zip(
      [
        (EntityName.message, 2, EntityName.user, 1), (.user, 2, .message, 1),
        (.message, 1, .message, 2), (.conversation, 9, .connection, 1),
      ],
      [true, false, true, false]))
  func ordering(_ pair: (EntityName, Int, EntityName, Int), _ expected: Bool) {
    // given
    let lhs = ObjectReference(pair.0, UUID(UInt64(pair.1)))
    let rhs = ObjectReference(pair.2, UUID(UInt64(pair.3)))

    // when
    let before = lhs < rhs

    // then
    #expect(before == expected)
  }
}
