import Foundation
import Seams
import TestSupport
import Testing

@testable import Models

@Suite("Message", .tags(.models), .courier(timeBudget: .seconds(5)))
struct MessageTests {
  /// Times that tie often and cover both signs and both zeros.
  static let times: [Double] = [-1e9, -2.5, -0.0, 0, 0.25, 1, 1e9]

  static func message(_ random: inout SeededRandomNumberGenerator) -> Message {
    let time = { (random: inout SeededRandomNumberGenerator) in
      Date(timeIntervalSinceReferenceDate: times.randomElement(using: &random) ?? 0)
    }
    let nonce = UUID(
      uuid: (
        UInt8.random(in: 0...2, using: &random), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        UInt8.random(in: 0...255, using: &random)
      ))
    return Message(
      nonce: nonce, conversationID: UUID(), senderID: UUID(), text: "hi",
      localTime: time(&random), serverTime: Bool.random(using: &random) ? time(&random) : nil)
  }

  @Test(
    "Its display rank sorts, byte by byte, as the display order does",
    .tags(.generated), arguments: 0..<20)
  func displayRankSortsAsDisplayOrder(seed: UInt64) {
    // given
    var random = SeededRandomNumberGenerator(seed: seed)
    let messages = (0..<40).map { _ in Self.message(&random) }

    // when
    let disagreements = messages.flatMap { lhs in
      messages.filter { rhs in
        Message.displayOrder(lhs, rhs) != lhs.displayRank.lexicographicallyPrecedes(rhs.displayRank)
      }.map { (lhs, $0) }
    }

    // then
    #expect(disagreements.isEmpty, "seed \(seed): \(disagreements.prefix(1))")
  }
}
