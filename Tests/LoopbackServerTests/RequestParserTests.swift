import Foundation
import LoopbackServer
import TestSupport
import Testing

@Suite("RequestParser", .tags(.loopbackServer, .parsing), .timeBudget(.seconds(10)))
struct RequestParserTests {
  /// Two requests sent back to back, the second after an empty line, as some clients do.
  static let pipelined = Array(
    ("GET http://localhost:8080/notifications?since=3 HTTP/1.0\r\n\r\n\r\n"
      + "PUT /self HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      + "3;note=1\r\nabc\r\n2\r\nde\r\n0\r\nChecksum: 1\r\n\r\n").utf8)

  static let expected = [
    ServerRequest(method: "GET", target: "/notifications?since=3", version: .http10),
    ServerRequest(
      method: "PUT", target: "/self",
      headers: [HeaderField("Host", "x"), HeaderField("Transfer-Encoding", "chunked")],
      body: Data("abcde".utf8)),
  ]

  @Test(
    "It reads pipelined requests the same however the bytes are split into reads",
    arguments: [1, 2, 3, 7, 64, 64 * 1024])
  func splitReads(readSize: Int) {
    // given
    let parser = RequestParser()

    // when
    let result = parser.parse(Self.pipelined, readSize: readSize)

    // then
    #expect(result == RequestParser.Result(requests: Self.expected))
  }

  @Test(
    "It refuses a broken request with the status the server answers, after the requests before it",
    arguments: zip(
      [
        "GET / HTTP/1.1\r\nHost: x\r\nBad line\r\n\r\n",
        "GET / HTTP/2\r\nHost: x\r\n\r\n",
        "BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: \(String(repeating: "a", count: 600))\r\n\r\n",
      ],
      [400, 505, 501, 413, 431]))
  func refusal(broken: String, status: Int) {
    // given
    let parser = RequestParser(limits: ServerLimits(maxHeaderBytes: 512, maxBodyBytes: 10))
    let bytes = Array(
      ("GET /first HTTP/1.1\r\nHost: x\r\n\r\n" + broken + "GET / HTTP/1.0\r\n\r\n").utf8)

    // when
    let result = parser.parse(bytes)

    // then
    #expect(result.requests.map(\.target) == ["/first"])
    #expect(result.rejection?.status == status)
  }

  @Test("It leaves out a request cut off by the end of the bytes")
  func cutOff() {
    // given
    let bytes = Array("GET /a HTTP/1.0\r\n\r\nPOST /b HTTP/1.0\r\nContent-Length: 5\r\n\r\nab".utf8)

    // when
    let result = RequestParser().parse(bytes, readSize: 4)

    // then
    #expect(
      result
        == RequestParser.Result(requests: [
          ServerRequest(method: "GET", target: "/a", version: .http10)
        ]))
  }

  @Test("It reads header fields byte by byte, so a combining mark cannot hide a colon or a space")
  func combiningMarks() {
    // given
    let bytes = Array("GET / HTTP/1.1\r\nHost: x\r\nA:\u{301}b\r\nC: \u{301}d \r\n\r\n".utf8)

    // when
    let result = RequestParser().parse(bytes)

    // then
    #expect(result.rejection == nil)
    #expect(
      result.requests.first?.headers
        == [HeaderField("Host", "x"), HeaderField("A", "\u{301}b"), HeaderField("C", "\u{301}d")])
  }

  @Test(
    "It accepts a head of exactly the size limit and refuses one byte more, however the bytes are split",
    arguments: [1, 3, 5, 64 * 1024])
  func headAtTheLimit(readSize: Int) {
    // given
    let parser = RequestParser(limits: ServerLimits(maxHeaderBytes: 64))
    let head = "GET / HTTP/1.1\r\nHost: x\r\nPad: "
    let atLimit = head + String(repeating: "a", count: 64 - head.utf8.count)
    let overLimit = atLimit + "a"

    // when
    let accepted = parser.parse(Array((atLimit + "\r\n\r\n").utf8), readSize: readSize)
    let refused = parser.parse(Array((overLimit + "\r\n\r\n").utf8), readSize: readSize)

    // then
    #expect(accepted.requests.count == 1)
    #expect(accepted.rejection == nil)
    #expect(refused.requests.isEmpty)
    #expect(refused.rejection?.status == 431)
  }

  @Test(
    "It refuses a chunk line longer than the header limit, however the bytes are split",
    arguments: [1, 7, 64 * 1024])
  func longChunkLine(readSize: Int) {
    // given
    let parser = RequestParser(limits: ServerLimits(maxHeaderBytes: 64))
    let bytes = Array(
      ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "3;\(String(repeating: "e", count: 80))\r\nabc\r\n0\r\n\r\n").utf8)

    // when
    let result = parser.parse(bytes, readSize: readSize)

    // then
    #expect(result.requests.isEmpty)
    #expect(result.rejection?.status == 400)
  }
}
