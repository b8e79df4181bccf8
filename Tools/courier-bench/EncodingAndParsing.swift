import ConnectionParsing
import Foundation
import HTTPRequest
import JSON
import ParsingCore

/// URL encoding of 100,000 query values against Foundation, outputs compared byte for byte.
func urlEncodingBenchmark() throws -> [BenchmarkResult] {
  let pieces = [
    "alice", "Bob42", "$&?@", "a b+c", "100%", "é", "日本語", "🙂", "x=y;z", "~._-", "/#[]",
  ]
  var seed: UInt64 = 0x9E37_79B9
  let values: [String] = (0..<100_000).map { index in
    var parts: [String] = []
    for _ in 0..<(1 + index % 4) {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      parts.append(pieces[Int(seed >> 33) % pieces.count])
    }
    return parts.joined()
  }
  var unreserved = CharacterSet(charactersIn: "-._~")
  unreserved.formUnion(CharacterSet(charactersIn: "a"..."z"))
  unreserved.formUnion(CharacterSet(charactersIn: "A"..."Z"))
  unreserved.formUnion(CharacterSet(charactersIn: "0"..."9"))
  let ours = values.map(PercentEncoding.encode)
  let foundation = values.map { $0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
  guard ours == foundation else {
    let index = ours.indices.first { ours[$0] != foundation[$0] } ?? -1
    throw BenchError.mismatch("URL encoding differs from Foundation at value \(index)")
  }
  var sink = 0
  let subject = Samples.measure(runs: 7) {
    for value in values { sink &+= PercentEncoding.encode(value).utf8.count }
  }
  let baseline = Samples.measure(runs: 7) {
    for value in values {
      sink &+= (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "").utf8.count
    }
  }
  let speedUp = baseline.median.seconds / subject.median.seconds
  var result = BenchmarkResult(
    name: "url-encoding: 100,000 query values (ASCII, reserved, Unicode)", subject: subject,
    baseline: baseline, baselineName: "Foundation addingPercentEncoding (RFC 3986 unreserved)",
    ratio: speedUp, ratioMeaning: "times faster than the baseline:", goal: "≥ 5× faster",
    met: speedUp >= 5)
  result.notes.append(
    "outputs identical byte for byte for all 100,000 values (checksum \(sink % 1000))")
  return [result]
}

/// Parsing a connection payload, single and as a page of 1,000, against JSONSerialization alone.
func parsingBenchmarks() throws -> [BenchmarkResult] {
  func connection(_ index: Int) -> JSONValue {
    [
      "from": "3f2a1b4c-0000-4000-8000-000000000001",
      "to": .string(String(format: "7b1d9e2a-0000-4000-8000-%012d", index)),
      "status": "accepted", "conversation": "9c0e2d11-0000-4000-8000-000000000002",
      "last_update": "2026-11-21T10:00:00.000Z", "message": "Hi, it's Ada",
    ]
  }
  let single = Data(connection(1).serialized())
  let page = Data(
    JSONValue.object([
      "connections": .array((0..<1000).map(connection)), "has_more": false,
    ]).serialized())
  guard (try? ConnectionPayload.parse(single)) != nil,
    (try? Page<ConnectionPayload>.parse(page, listKey: "connections"))?.elements.count == 1000
  else { throw BenchError.mismatch("the benchmark payloads do not parse") }

  var results: [BenchmarkResult] = []
  for (name, data, repetitions) in [
    ("parse-single: one connection payload ×20,000", single, 20_000),
    ("parse-page: a page of 1,000 connections ×20", page, 20),
  ] {
    var sink = 0
    let subject = Samples.measure(runs: 7) {
      for _ in 0..<repetitions {
        if data == single {
          sink &+= (try? ConnectionPayload.parse(data))?.message?.count ?? 0
        } else {
          sink &+=
            (try? Page<ConnectionPayload>.parse(data, listKey: "connections"))?.elements.count ?? 0
        }
      }
    }
    let baseline = Samples.measure(runs: 7) {
      for _ in 0..<repetitions {
        sink &+= (try? JSONSerialization.jsonObject(with: data)) == nil ? 0 : 1
      }
    }
    let ratio = subject.median.seconds / baseline.median.seconds
    results.append(
      BenchmarkResult(
        name: name, subject: subject, baseline: baseline,
        baselineName: "JSONSerialization.jsonObject on the same bytes", ratio: ratio,
        ratioMeaning: "time relative to the baseline:", goal: "≤ 1.5× the baseline's time",
        met: ratio <= 1.5))
    _ = sink
  }
  results.append(try codableBaseline(single: single))
  return results
}

/// The fields of a connection payload as a plain `Codable` struct, decoded by `JSONDecoder`: what
/// an app would write without Courier's parsers, which also check every field and name what is
/// wrong.
private struct CodableConnection: Decodable {
  let from: UUID
  let to: UUID
  let status: String
  let conversation: UUID?
  let lastUpdate: Date
  let message: String?

  enum CodingKeys: String, CodingKey {
    case from, to, status, conversation, message
    case lastUpdate = "last_update"
  }
}

/// One connection payload parsed by Courier's parser against `JSONDecoder` and `Codable`.
private func codableBaseline(single: Data) throws -> BenchmarkResult {
  let decoder = JSONDecoder()
  let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
  decoder.dateDecodingStrategy = .custom { decoder in
    try style.parse(try decoder.singleValueContainer().decode(String.self))
  }
  guard (try? decoder.decode(CodableConnection.self, from: single)) != nil else {
    throw BenchError.mismatch("the Codable baseline does not decode the payload")
  }
  let repetitions = 20_000
  var sink = 0
  let subject = Samples.measure(runs: 7) {
    for _ in 0..<repetitions {
      sink &+= (try? ConnectionPayload.parse(single))?.message?.count ?? 0
    }
  }
  let baseline = Samples.measure(runs: 7) {
    for _ in 0..<repetitions {
      sink &+= (try? decoder.decode(CodableConnection.self, from: single))?.message?.count ?? 0
    }
  }
  _ = sink
  let speedUp = baseline.median.seconds / subject.median.seconds
  return BenchmarkResult(
    name: "parse-vs-codable: one connection payload ×20,000", subject: subject,
    baseline: baseline, baselineName: "JSONDecoder + Codable on the same bytes", ratio: speedUp,
    ratioMeaning: "times faster than the baseline:", goal: "≥ 2× faster", met: speedUp >= 2)
}

enum BenchError: Error, CustomStringConvertible {
  case mismatch(String)
  var description: String {
    switch self {
    case .mismatch(let text): text
    }
  }
}
