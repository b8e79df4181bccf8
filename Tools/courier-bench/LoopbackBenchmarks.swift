import FakeBackend
import Foundation
import HTTPRequest
import LoopbackServer
import Seams
import TestSupport
import Transport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The fake backend on a real socket: how soon a fresh server answers, what a reset between
/// tests costs, and how many kept-alive requests it serves per second.
func loopbackBenchmarks() async throws -> [BenchmarkResult] {
  try await CourierLogger.$sink.withValue(DroppingSink()) {
    [
      try await firstAnswerBenchmark(), try await resetBenchmark(),
      try await keepAliveBenchmark(),
    ]
  }
}

/// Drops log entries: a benchmark measures the work, not the printing of a line per request.
private struct DroppingSink: LogSink {
  func receive(_ entry: LogEntry) {}
}

/// From `serve()` on a fresh fake to the first answer read by a raw client, against the same
/// first request in process.
private func firstAnswerBenchmark() async throws -> BenchmarkResult {
  let runs = 50
  var durations: [Duration] = []
  let clock = ContinuousClock()
  for _ in 0...runs {
    let fake = FakeBackend(uuids: .seeded(1), time: SystemTimeSource())
    fake.insertSelfUser()
    let start = clock.now
    let server = try fake.serve()
    let status = try await DedicatedThread.perform { () throws -> Int? in
      let client = try LoopbackClient(port: server.port)
      client.request("GET", "/self")
      return client.readResponse()?.status
    }
    durations.append(clock.now - start)
    await server.stop()
    guard status == 200 else {
      throw BenchError.mismatch("the first answer was \(String(describing: status))")
    }
  }
  let subject = Samples(durations: Array(durations.dropFirst()))
  var baselineDurations: [Duration] = []
  for _ in 0...runs {
    let fake = FakeBackend(uuids: .seeded(1), time: SystemTimeSource())
    fake.insertSelfUser()
    let start = clock.now
    _ = try await fake.transport.send(try HTTPRequest(.get, "/self"))
    baselineDurations.append(clock.now - start)
  }
  let baseline = Samples(durations: Array(baselineDurations.dropFirst()))
  return BenchmarkResult(
    name: "loopback first answer: serve() on a fresh fake until a raw client read GET /self",
    subject: subject, baseline: baseline, baselineName: "the same first request in process",
    ratio: subject.median.seconds / baseline.median.seconds, ratioMeaning: "times the baseline:",
    goal: "under 5 ms (a clean real server took 5 s)", met: subject.median < .milliseconds(5))
}

/// Stopping one test's server and serving a fresh fake for the next.
private func resetBenchmark() async throws -> BenchmarkResult {
  let runs = 50
  var durations: [Duration] = []
  let clock = ContinuousClock()
  var server = try FakeBackend(uuids: .seeded(1)).serve()
  for _ in 0...runs {
    let start = clock.now
    await server.stop()
    let fake = FakeBackend(uuids: .seeded(1), time: SystemTimeSource())
    fake.insertSelfUser()
    server = try fake.serve()
    durations.append(clock.now - start)
  }
  await server.stop()
  let subject = Samples(durations: Array(durations.dropFirst()))
  return BenchmarkResult(
    name: "loopback reset: stop a server and serve a fresh fake for the next test",
    subject: subject, baseline: nil, baselineName: nil, ratio: nil, ratioMeaning: "",
    goal: "under 1 ms", met: subject.median < .milliseconds(1))
}

/// Sequential requests on one kept-alive connection: from a raw socket client, and from
/// `URLSessionTransport` as the baseline.
private func keepAliveBenchmark() async throws -> BenchmarkResult {
  let fake = FakeBackend(uuids: .seeded(1), time: SystemTimeSource())
  fake.insertSelfUser()
  let server = try fake.serve()
  let rawCount = 10_000
  let raw = try await sequentialRequests(rawCount, "/self", to: server, answered: 200)
  let sessionCount = 2_000
  let transport = URLSessionTransport(
    configuration: .init(baseURL: server.baseURL, retry: .never),
    session: URLSession(configuration: .ephemeral))
  let request = try HTTPRequest(.get, "/self")
  var sessionDurations: [Duration] = []
  let clock = ContinuousClock()
  for _ in 0...3 {
    let start = clock.now
    for _ in 0..<sessionCount { _ = try await transport.send(request) }
    sessionDurations.append(clock.now - start)
  }
  await server.stop()
  let session = Samples(durations: Array(sessionDurations.dropFirst()))
  let rawRate = Double(rawCount) / raw.median.seconds
  let sessionRate = Double(sessionCount) / session.median.seconds
  var result = BenchmarkResult(
    name: "loopback keep-alive: \(rawCount) sequential GET /self from a raw socket client",
    subject: raw, baseline: session,
    baselineName: "\(sessionCount) from URLSessionTransport",
    ratio: rawRate / sessionRate, ratioMeaning: "raw client's rate over URLSession's:",
    goal: "≥ 10,000 requests/s from the raw client", met: rawRate >= 10_000)
  result.notes.append(String(format: "raw client: %.0f requests/s", rawRate))
  result.notes.append(String(format: "URLSessionTransport: %.0f requests/s", sessionRate))
  let bare = try await bareServerRate(rawCount)
  result.notes.append(
    String(
      format:
        "the server alone, a handler answering 204 at once (no fake): %.0f requests/s, so the fake adds %.0f µs a request",
      bare, (1 / rawRate - 1 / bare) * 1e6))
  return result
}

/// Sequential requests per second from the raw client to a server whose handler answers at
/// once: the socket, thread and HTTP cost without the fake.
private func bareServerRate(_ count: Int) async throws -> Double {
  let server = try LoopbackServer.start { _ in .respond(ServerResponse(status: 204)) }
  let samples = try await sequentialRequests(count, "/", to: server, answered: 204)
  await server.stop()
  return Double(count) / samples.median.seconds
}

/// Three timed runs of `count` sequential `GET path` on one kept-alive connection from the raw
/// client, each answered `status`.
private func sequentialRequests(
  _ count: Int, _ path: String, to server: LoopbackServer, answered status: Int
) async throws -> Samples {
  try await DedicatedThread.perform { () throws -> Samples in
    let client = try LoopbackClient(port: server.port)
    return try Samples.measure(runs: 3) {
      for _ in 0..<count {
        client.request("GET", path)
        guard client.readResponse()?.status == status else {
          throw BenchError.mismatch("a kept-alive GET \(path) was not answered \(status)")
        }
      }
    }
  }
}
