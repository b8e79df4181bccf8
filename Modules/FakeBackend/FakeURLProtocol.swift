import Foundation
import Seams
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension FakeBackend {
  /// A real `URLSession` whose requests to the returned base URL are served by this fake through
  /// a custom `URLProtocol`: `URLSessionTransport` end to end, without sockets.
  public func makeURLSession() -> (session: URLSession, baseURL: URL) {
    let host = FakeURLProtocol.register(self)
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [FakeURLProtocol.self]
    let baseURL =
      URL(string: "https://\(host)\(FakeURLProtocol.basePath)") ?? URL(fileURLWithPath: "/")
    return (URLSession(configuration: configuration), baseURL)
  }
}

/// Serves requests to `*.courier.invalid` hosts from the ``FakeBackend`` registered for the host.
///
/// Foundation calls a protocol instance from its own queue; the task that serves the request
/// holds it through ``Handle``, and the one piece of mutable state, that task, sits behind a
/// mutex.
final class FakeURLProtocol: URLProtocol {
  /// Carries the protocol instance into the serving task.
  ///
  /// Unchecked: the instance's client may be called from any thread, and the instance itself is
  /// only read.
  private struct Handle: @unchecked Sendable {
    let instance: FakeURLProtocol
  }

  private final class WeakBackend: Sendable {
    weak let backend: FakeBackend?
    init(_ backend: FakeBackend) { self.backend = backend }
  }

  /// The path every fake base URL has, so transports are tested with a base path to keep.
  static let basePath = "/v1"
  private static let registry = Locked((next: 0, backends: [String: WeakBackend]()))
  /// The task serving the request, and whether URLSession stopped this load (a cancelled or
  /// expired request); the lock is also held while delivering, so nothing reaches the client of
  /// a stopped load, which FoundationNetworking ends with a fatal error.
  private let serving = Locked<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))

  static func register(_ backend: FakeBackend) -> String {
    registry.withLock { registry in
      registry.next += 1
      registry.backends = registry.backends.filter { $0.value.backend != nil }
      let host = "fake-\(registry.next).courier.invalid"
      registry.backends[host] = WeakBackend(backend)
      return host
    }
  }

  private static func backend(for request: URLRequest) -> FakeBackend? {
    guard let host = request.url?.host else { return nil }
    return registry.withLock { $0.backends[host]?.backend }
  }

  override class func canInit(with request: URLRequest) -> Bool {
    backend(for: request) != nil
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    let request = self.request
    guard let backend = Self.backend(for: request), let url = request.url,
      let fakeRequest = FakeRequest(
        method: request.httpMethod ?? "GET", url: url, basePath: Self.basePath,
        headers: request.allHTTPHeaderFields ?? [:], body: Self.body(of: request))
    else {
      client?.urlProtocol(self, didFailWithError: URLError(.badURL))
      return
    }
    let handle = Handle(instance: self)
    let task = Task {
      let outcome = await backend.handle(fakeRequest)
      handle.instance.deliver(outcome, for: url)
    }
    serving.withLock { $0.task = task }
  }

  override func stopLoading() {
    let task = serving.withLock { serving in
      serving.stopped = true
      return serving.task
    }
    task?.cancel()
  }

  private func deliver(_ outcome: Result<TransportResponse, TransportError>, for url: URL) {
    serving.withLock { serving in
      guard !serving.stopped else { return }
      tellClient(outcome, for: url)
    }
  }

  private func tellClient(_ outcome: Result<TransportResponse, TransportError>, for url: URL) {
    switch outcome {
    case .success(let response):
      guard
        let http = HTTPURLResponse(
          url: url, statusCode: response.status, httpVersion: "HTTP/1.1",
          headerFields: response.headers)
      else {
        client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
        return
      }
      client?.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
      client?.urlProtocol(self, didLoad: response.body)
      client?.urlProtocolDidFinishLoading(self)
    case .failure(let error):
      let code: URLError.Code =
        switch error {
        case .network(let failure): failure.urlErrorCode
        case .expired: .timedOut
        case .cancelled: .cancelled
        case .malformedBody, .invalidRequest: .badServerResponse
        case .unauthenticated: .userAuthenticationRequired
        }
      client?.urlProtocol(self, didFailWithError: URLError(code))
    }
  }

  private static func body(of request: URLRequest) -> Data? {
    if let body = request.httpBody { return body }
    guard let stream = request.httpBodyStream else { return nil }
    stream.open()
    defer { stream.close() }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while stream.hasBytesAvailable {
      let count = stream.read(&buffer, maxLength: buffer.count)
      guard count > 0 else { break }
      data.append(buffer, count: count)
    }
    return data
  }
}
