import Foundation
import TestSupport
import Testing

@Suite("Fixtures", .tags(.testSupport), .timeBudget(.seconds(5)))
struct FixturesTests {
  @Test("It loads a fixture shipped in the test target's bundle")
  func loadsFixture() throws {
    // when
    let data = try Fixtures.data(named: "sample-connection.json", in: .module)

    // then
    #expect(String(decoding: data, as: UTF8.self).contains(#""status": "pending""#))
  }

  @Test("It names the missing file and the bundle it looked in")
  func missingFixtureIsNamed() {
    // when
    let result = Result { () throws(FixtureError) in
      try Fixtures.data(named: "nope.json", in: .module)
    }

    // then
    #expect(throws: FixtureError.missing(name: "nope.json", bundlePath: Bundle.module.bundlePath)) {
      try result.get()
    }
    #expect(
      FixtureError.missing(name: "nope.json", bundlePath: "/b").description.contains("'nope.json'"))
  }

  @Test("It points at the main bundle mistake: the fixture is not there")
  func mainBundleDoesNotHoldFixtures() {
    // when
    let result = Result { () throws(FixtureError) in
      try Fixtures.data(named: "sample-connection.json", in: .main)
    }

    // then
    #expect(throws: FixtureError.self) { try result.get() }
  }
}
