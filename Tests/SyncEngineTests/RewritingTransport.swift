import CourierAPI
import FakeBackend
import HTTPRequest
import JSON
import Seams
import Transport

/// The fake's transport with the answers to some calls rewritten on their way back, or given
/// in place of the fake's, as a backend that misbehaves would write them.
///
/// It rewrites at most `limit` answers and then passes the fake's through, so that a client
/// that would ask again without end still stops, and a test can count how often it asked.
struct RewritingTransport: TransportSession {
  /// The transport whose answers it rewrites.
  let base: any TransportSession
  /// How many answers it rewrites at most.
  let limit: Int
  /// The JSON body to answer to a call in place of the fake's, or `nil` to keep the fake's.
  let rewrite: @Sendable (Endpoint, JSONValue) -> JSONValue?
  /// The answer to give to a call without passing it to the fake, or `nil` to pass it on.
  var replace: @Sendable (Endpoint) -> TransportResponse? = { _ in nil }
  /// Whether it rewrites yet: tests turn it on once the engine has started.
  let isOn = Locked(false)
  /// How many answers it rewrote.
  let rewritten = Locked(0)

  /// Sends `request` through `base`, and rewrites the answer if it is on and `rewrite` says so.
  func send(_ request: HTTPRequest, options: SendOptions) async throws(TransportError)
    -> TransportResponse
  {
    let endpoint = FakeRequest(request).endpoint
    if isOn.value, rewritten.value < limit, case .success(let endpoint) = endpoint,
      let answer = replace(endpoint)
    {
      rewritten.withLock { $0 += 1 }
      return answer
    }
    let response = try await base.send(request, options: options)
    guard isOn.value, rewritten.value < limit, case .success(let endpoint) = endpoint,
      let json = try? response.json(), let changed = rewrite(endpoint, json)
    else { return response }
    rewritten.withLock { $0 += 1 }
    return TransportResponse(status: response.status, json: changed, headers: response.headers)
  }
}

extension JSONValue {
  /// This object with `key` set to `value`; any other value unchanged.
  func setting(_ key: String, to value: JSONValue) -> JSONValue {
    guard case .object(var members) = self else { return self }
    members[key] = value
    return .object(members)
  }

  /// This object with the element at `index` of its list `key` passed through `change`.
  func changingElement(_ index: Int, of key: String, _ change: (JSONValue) -> JSONValue)
    -> JSONValue
  {
    guard var list = self[key]?.arrayValue, list.indices.contains(index) else { return self }
    list[index] = change(list[index])
    return setting(key, to: .array(list))
  }
}
