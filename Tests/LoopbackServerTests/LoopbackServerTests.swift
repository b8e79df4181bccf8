import Foundation
import LoopbackServer
import Seams
import TestSupport
import Testing

@Suite("LoopbackServer", .tags(.loopbackServer, .transport), .courier(timeBudget: .seconds(10)))
struct LoopbackServerTests {
  @Test("It answers on the port it reports, on 127.0.0.1")
  func answers() async throws {
    try await withServer { server in
      // when
      let response = try await DedicatedThread.perform {
        let client = try connect(to: server)
        client.request("GET", "/self?x=1")
        return client.readResponse()
      }

      // then
      #expect(server.port != 0)
      #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
      #expect(response?.status == 200)
      #expect(response?.text == "GET /self?x=1")
    }
  }

  @Test("Binding a port that is in use fails at once with a typed error naming the port")
  func portInUse() async throws {
    try await withServer { server in
      // when
      let result = Result { () throws(ServerError) in
        try LoopbackServer.start(port: server.port, handler: echo)
      }

      // then
      #expect(throws: ServerError.cannotBind(port: server.port, code: EADDRINUSE)) {
        try result.get()
      }
    }
  }

  @Test("Requests follow each other on one kept-alive connection, pipelined ones in order")
  func keepAliveAndPipelining() async throws {
    try await withServer { server in
      // when
      let bodies = try await DedicatedThread.perform {
        let client = try connect(to: server)
        client.request("GET", "/one")
        let first = client.readResponse()?.text
        client.send(
          "GET /two HTTP/1.1\r\nHost: x\r\n\r\nGET /three HTTP/1.1\r\nHost: x\r\n\r\n")
        return [first, client.readResponse()?.text, client.readResponse()?.text]
      }

      // then
      #expect(bodies == ["GET /one", "GET /two", "GET /three"])
    }
  }

  @Test("A request that arrives a byte at a time is read whole; HEAD gets the length alone")
  func partialReads() async throws {
    try await withServer { server in
      // when
      let (slow, head) = try await DedicatedThread.perform {
        let client = try connect(to: server)
        for byte in Array("GET /slowly HTTP/1.1\r\nHost: x\r\n\r\n".utf8) { client.send([byte]) }
        let slow = client.readResponse()?.text
        client.request("HEAD", "/head")
        return (slow, client.readResponse(forMethod: "HEAD"))
      }

      // then
      #expect(slow == "GET /slowly")
      #expect(head?.header("Content-Length") == "\("HEAD /head".utf8.count)")
      #expect(head?.body.isEmpty == true)
    }
  }

  @Test("Several connections are served at once")
  func concurrentConnections() async throws {
    // given: the handler answers only once three requests are in
    let gate = Gate(opensAfter: 3)
    let handler: LoopbackServer.Handler = { request in
      await gate.arrive()
      return await echo(request)
    }
    try await withServer(handler: handler) { server in
      // when
      let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
        for index in 0..<3 {
          group.addTask {
            try await DedicatedThread.perform {
              let client = try connect(to: server)
              client.request("GET", "/\(index)")
              return client.readResponse()?.status
            }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }

      // then
      #expect(statuses == [200, 200, 200])
    }
  }

  @Test("A body arrives whole by Content-Length, chunked, and after 100-continue")
  func bodies() async throws {
    // given
    let handler: LoopbackServer.Handler = { request in
      .respond(ServerResponse(status: 200, body: request.body))
    }
    try await withServer(handler: handler) { server in
      // when
      let (plain, chunked, interim, continued) = try await DedicatedThread.perform {
        let client = try connect(to: server)
        client.request("POST", "/echo", body: Array("plain body".utf8))
        let plain = client.readResponse()?.text
        client.send(
          "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nchunk\r\n7;ext=1\r\ned body\r\n0\r\nTrailer: t\r\n\r\n")
        let chunked = client.readResponse()?.text
        client.send(
          "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = client.readResponse()?.status
        client.send("late")
        return (plain, chunked, interim, client.readResponse()?.text)
      }

      // then
      #expect(plain == "plain body")
      #expect(chunked == "chunked body")
      #expect(interim == 100)
      #expect(continued == "late")
    }
  }

  @Test("closeWithoutAnswer ends the connection with no bytes; holding sends nothing at all")
  func repliesWithoutAnswer() async throws {
    // given
    let handler: LoopbackServer.Handler = { request in
      request.path == "/close" ? .closeWithoutAnswer : .holdUntilClientLeaves
    }
    try await withServer(handler: handler) { server in
      // when
      let (closed, held) = try await DedicatedThread.perform {
        let closing = try connect(to: server)
        closing.request("GET", "/close")
        let holding = try connect(to: server, timeout: .milliseconds(300))
        holding.request("GET", "/hold")
        return (closing.isClosedByServer(), holding.readResponse())
      }

      // then
      #expect(closed)
      #expect(held == nil)
    }
  }

  @Test("Over the connection limit, a new connection is reset and the others go on")
  func connectionLimit() async throws {
    try await withServer(limits: ServerLimits(maxConnections: 1)) { server in
      // when
      let (kept, refused) = try await DedicatedThread.perform {
        let first = try connect(to: server)
        first.request("GET", "/first")
        _ = first.readResponse()
        let second = try connect(to: server)
        second.request("GET", "/second")
        let refused = second.readResponse() == nil
        first.request("GET", "/again")
        return (first.readResponse()?.text, refused)
      }

      // then
      #expect(kept == "GET /again")
      #expect(refused)
    }
  }
}
