import Foundation
import LoopbackServer
import Transport

extension FakeBackend {
  /// Serves the fake over HTTP/1.1 on `127.0.0.1`, so any client can reach it: the real
  /// `URLSessionTransport`, `curl`, another process.
  ///
  /// ```swift
  /// let fake = FakeBackend()
  /// fake.insertSelfUser(name: "Ada")
  /// let server = try fake.serve()                 // port 0: any free port
  /// let transport = URLSessionTransport(configuration: .init(baseURL: server.baseURL))
  /// // … run the client …
  /// await server.stop()
  /// ```
  ///
  /// Requests go through the same journal and fault rules as in process, and mean the same on
  /// the wire: a status fault answers that status (with `Retry-After`), a delay or a parked
  /// request answers late, a lost response applies the change and closes the connection
  /// without an answer, a malformed body sends the broken bytes, a network failure closes the
  /// connection (a timeout holds it unanswered until the client gives up). With
  /// `network = .offline` it closes every connection without an answer, and with
  /// `.unresponsive` it holds each one.
  ///
  /// - Parameters:
  ///   - port: The port to bind; 0 for any free one, which the server's `port` reports.
  ///   - limits: What the server accepts from a client.
  ///   - onRequest: Called with each request's journal entry once it is answered (or not).
  /// - Throws: `ServerError` when the port cannot be bound.
  public func serve(
    port: UInt16 = 0, limits: ServerLimits = ServerLimits(),
    onRequest: (@Sendable (JournalEntry) -> Void)? = nil
  ) throws(ServerError) -> LoopbackServer {
    try LoopbackServer.start(port: port, limits: limits) { [self] request in
      await reply(to: request, onRequest: onRequest)
    }
  }

  private func reply(to request: ServerRequest, onRequest: (@Sendable (JournalEntry) -> Void)?)
    async -> ServerReply
  {
    let headers = Dictionary(
      request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    guard let url = URL(string: "http://127.0.0.1\(request.target)"),
      let fakeRequest = FakeRequest(
        method: request.method, url: url, headers: headers,
        body: request.body.isEmpty ? nil : request.body)
    else {
      return .respond(
        ServerResponse(
          status: 400, body: Data("the target is not a URL path: \(request.target)\n".utf8)))
    }
    // A hold lasts until the client gives up; the fake's expiry only bounds it.
    let (outcome, index) = await respond(to: fakeRequest, expiry: .seconds(86_400))
    if let onRequest, let entry = journal.last(where: { $0.index == index }) {
      onRequest(entry)
    }
    switch outcome {
    case .success(let response):
      return .respond(
        ServerResponse(
          status: response.status,
          headers: response.headers.sorted { $0.key < $1.key }.map {
            HeaderField($0.key, $0.value)
          },
          body: response.body))
    case .failure(.network(.timedOut)), .failure(.expired):
      return .holdUntilClientLeaves
    case .failure:
      return .closeWithoutAnswer
    }
  }
}
