import Seams
import TestSupport
import Testing

@Suite("RandomSource", .tags(.seams), .timeBudget(.seconds(5)))
struct RandomSourceTests {
  @Test("The same seed gives the same sequence, and another seed another one")
  func seededIsReproducible() {
    // given
    let first = RandomSource.seeded(42)
    let second = RandomSource.seeded(42)
    let other = RandomSource.seeded(43)

    // when
    let sequences = [first, second, other].map { source in (0..<5).map { _ in source.next() } }

    // then
    #expect(sequences[0] == sequences[1])
    #expect(sequences[0] != sequences[2])
    #expect(first.isSeeded)
    #expect(!RandomSource.system.isSeeded)
  }

  @Test("Unit-interval numbers stay in 0..<1 and spread over it")
  func unitInterval() {
    // given
    let source = RandomSource.seeded(7)

    // when
    let values = (0..<2_000).map { _ in source.unitInterval() }

    // then
    #expect(values.allSatisfy { (0..<1).contains($0) })
    #expect(values.contains { $0 < 0.1 })
    #expect(values.contains { $0 > 0.9 })
  }

  @Test("Integers stay in their range and reach both ends")
  func integers() {
    // given
    let source = RandomSource.seeded(9)

    // when
    let values = Set((0..<500).map { _ in source.integer(in: 3...6) })

    // then
    #expect(values == [3, 4, 5, 6])
  }

  @Test("A source bound as current reaches the code that reads it")
  func taskLocal() {
    // given
    let expected = RandomSource.seeded(5).next()

    // when
    let drawn = RandomSource.$current.withValue(.seeded(5)) { RandomSource.current.next() }

    // then
    #expect(drawn == expected)
  }
}
