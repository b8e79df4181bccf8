import ConnectionParsing
import Foundation
import JSON
import ParsingCore
import TestSupport
import Testing

@Suite("Page of connections", .tags(.parsing), .timeBudget(.seconds(5)))
struct ConnectionPageTests {
  @Test("It keeps the good elements of a page and says which indices failed and why")
  func mixedPageKeepsGoodElements() throws {
    // given
    let data = try Fixtures.data(named: "connections-page.json", in: .module)

    // when
    let page = try Page<ConnectionPayload>.parse(data, listKey: ConnectionPayload.pageKey)

    // then
    #expect(page.elements.map(\.status) == [.pending, .accepted])
    #expect(page.failures.map(\.index) == [1, 3])
    #expect(
      page.failures.first?.error.fieldErrors.map(\.keyPath).sorted() == [
        "connections[1].from", "connections[1].last_update", "connections[1].status",
        "connections[1].to",
      ])
    #expect(page.failures.last?.error == .notAnObject(found: .string))
    #expect(page.hasMore)
  }

  @Test(
    "It rejects a page without its list or has_more",
    arguments: zip(
      [
        #"{"has_more": false}"#, #"{"connections": []}"#,
        #"{"connections": {}, "has_more": false}"#,
      ],
      ["connections", "has_more", "connections"]))
  func malformedPageIsRejected(text: String, badKey: String) {
    // when
    let result = Result { () throws(PayloadError) in
      try Page<ConnectionPayload>.parse(Data(text.utf8), listKey: ConnectionPayload.pageKey)
    }

    // then
    guard case .failure(let error) = result else {
      Issue.record("page \(text) was accepted")
      return
    }
    #expect(error.fieldErrors.map(\.keyPath) == [badKey])
  }

  @Test("It encodes a page back with its elements and has_more")
  func pageRoundTrip() throws {
    // given
    let data = try Fixtures.data(named: "connections-page.json", in: .module)
    let page = try Page<ConnectionPayload>.parse(data, listKey: ConnectionPayload.pageKey)

    // when
    let reparsed = try Page<ConnectionPayload>.parse(
      page.jsonValue(listKey: ConnectionPayload.pageKey), listKey: ConnectionPayload.pageKey)

    // then
    #expect(reparsed.elements == page.elements)
    #expect(reparsed.failures.isEmpty)
    #expect(reparsed.hasMore == page.hasMore)
  }

  @Test(
    "It turns hostile input into typed errors instead of crashing", .tags(.robustness),
    arguments: zip(
      [
        "", "{", #"{"from": }"#, "[]", #""connection""#, "null",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        #"{"from": "\ud800"}"#,
      ],
      [
        FailureKind.malformed, .malformed, .malformed, .notAnObject, .notAnObject, .notAnObject,
        .tooDeep, .malformed,
      ]))
  func hostileInputIsTyped(text: String, expected: FailureKind) {
    // when
    let result = Result { () throws(PayloadError) in try ConnectionPayload.parse(Data(text.utf8)) }

    // then
    #expect(FailureKind(result) == expected)
  }
}

/// What kind of failure a parse ended in, so a table can state it.
enum FailureKind: Equatable {
  case malformed
  case tooDeep
  case notAnObject
  case other

  init(_ result: Result<ConnectionPayload, PayloadError>) {
    switch result {
    case .failure(.invalidJSON(.malformed)): self = .malformed
    case .failure(.invalidJSON(.tooDeep)): self = .tooDeep
    case .failure(.notAnObject): self = .notAnObject
    default: self = .other
    }
  }
}
