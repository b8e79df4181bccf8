import Foundation
import LoopbackServer
import Seams
import TestSupport
import Testing

/// A request that the server must refuse, and the status it must refuse it with.
struct HostileRequest: Sendable, CustomTestStringConvertible {
  let name: String
  let bytes: [UInt8]
  let status: Int

  init(_ name: String, _ text: String, _ status: Int) {
    self.name = name
    self.bytes = Array(text.utf8)
    self.status = status
  }

  var testDescription: String { name }

  static let all = [
    HostileRequest("a request line that is not one", "GARBAGE\r\n\r\n", 400),
    HostileRequest(
      "a header line without a colon", "GET / HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n", 400),
    HostileRequest("a folded header line", "GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n  c\r\n\r\n", 400),
    HostileRequest("an HTTP/1.1 request without Host", "GET / HTTP/1.1\r\n\r\n", 400),
    HostileRequest("a target that is not a path", "GET self HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    HostileRequest("an unknown method", "BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n", 501),
    HostileRequest("another HTTP version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
    HostileRequest(
      "header fields over 16 KiB",
      "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17_000))\r\n\r\n", 431),
    HostileRequest(
      "a body over the limit", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999999\r\n\r\n",
      413),
    HostileRequest(
      "both Content-Length and Transfer-Encoding",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
      400),
    HostileRequest(
      "a transfer coding other than chunked",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    HostileRequest(
      "a chunk size that is not hexadecimal",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    HostileRequest(
      "a Content-Length that is not a number",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n", 400),
    HostileRequest(
      "two different Content-Lengths",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
  ]
}

extension LoopbackServerTests {
  @Suite("Hostile and broken clients")
  struct Hostile {
    @Test(
      "A hostile request gets its refusal, the connection closes, and others are served",
      arguments: HostileRequest.all)
    func refused(_ hostile: HostileRequest) async throws {
      try await withServer(limits: ServerLimits(maxBodyBytes: 1024 * 1024)) { server in
        // when
        let (response, closed, other) = try await DedicatedThread.perform {
          let client = try connect(to: server)
          client.send(hostile.bytes)
          let response = client.readResponse()
          let closed = client.isClosedByServer()
          let other = try connect(to: server)
          other.request("GET", "/fine")
          return (response, closed, other.readResponse()?.status)
        }

        // then
        #expect(response?.status == hostile.status)
        #expect(response?.header("Connection") == "close")
        #expect(closed)
        #expect(other == 200)
      }
    }

    @Test("A client that sends half a request and stalls is closed after the stall timeout")
    func stalledClient() async throws {
      let limits = ServerLimits(stallTimeout: .milliseconds(200))
      try await withServer(limits: limits) { server in
        // when
        let (closed, other) = try await DedicatedThread.perform {
          let client = try connect(to: server)
          client.send("GET /half HTTP/1.1\r\nHo")
          let other = try connect(to: server)
          other.request("GET", "/meanwhile")
          let answered = other.readResponse()?.status
          return (client.isClosedByServer(), answered)
        }

        // then
        #expect(closed)
        #expect(other == 200)
        #expect(server.openConnections <= 1)
      }
    }

    @Test("A client that disconnects in the middle of a large answer harms nothing")
    func disconnectMidResponse() async throws {
      // given
      let large = Data(repeating: 42, count: 8 * 1024 * 1024)
      let handler: LoopbackServer.Handler = { request in
        request.path == "/large"
          ? .respond(ServerResponse(status: 200, body: large)) : await echo(request)
      }
      try await withServer(handler: handler) { server in
        // when
        let after = try await DedicatedThread.perform {
          let client = try connect(to: server)
          client.request("GET", "/large")
          _ = client.readSome(1024)
          client.close(reset: true)
          let other = try connect(to: server)
          other.request("GET", "/after")
          return other.readResponse()?.text
        }

        // then
        #expect(after == "GET /after")
      }
    }
  }
}
