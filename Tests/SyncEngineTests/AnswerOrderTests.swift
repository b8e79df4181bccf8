import Foundation
import Models
import TestSupport
import Testing

@testable import SyncEngine

@Suite("AnswerOrder", .tags(.sync))
struct AnswerOrderTests {
  static let (group, other) = (
    ObjectReference(.conversation, UUID(1)), ObjectReference(.conversation, UUID(2))
  )

  @Test(
    "A fetch is overtaken only by an answer about an object it tells of, applied after it went",
    arguments: [
      (before: [], after: [group], overtaken: true),
      (before: [], after: [other], overtaken: false),
      (before: [group], after: [], overtaken: false),
      (before: [group], after: [other, group], overtaken: true),
    ] as [(before: [ObjectReference], after: [ObjectReference], overtaken: Bool)])
  func overtaken(before: [ObjectReference], after: [ObjectReference], overtaken: Bool) {
    // given: an earlier fetch is out while the answers before this one are applied
    let order = AnswerOrder()
    let earlier = order.send()
    order.answered(before)
    let fetch = order.send()
    order.answered(after)

    // when
    let isOvertaken = order.isOvertaken(fetch, about: [Self.group])

    // then
    #expect(isOvertaken == overtaken)
    #expect(
      order.isOvertaken(earlier, about: [Self.group]) == (before + after).contains(Self.group))
  }

  @Test("Answers applied while no fetch is out are not kept, since no fetch can be older")
  func noFetchOut() {
    // given
    let order = AnswerOrder()
    order.finish(order.send())
    order.answered([Self.group])

    // when
    let fetch = order.send()

    // then
    #expect(!order.isOvertaken(fetch, about: [Self.group]))
  }

  @Test("A fetch still out is overtaken by an answer after another fetch with its mark finished")
  func sameMark() {
    // given: two fetches go out with no answer between them; one ends
    let order = AnswerOrder()
    let (first, second) = (order.send(), order.send())
    order.finish(first)

    // when
    order.answered([Self.group])

    // then
    #expect(order.isOvertaken(second, about: [Self.group]))
  }
}
