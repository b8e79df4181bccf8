// The logic behind the scripts in Tools/: each script builds this executable and calls one of its
// subcommands. Run without arguments for the list.
import CourierTooling
import Foundation
import JSON

/// Prints `message` to standard error and exits with `code`.
func fail(_ message: String, code: Int32 = 2) -> Never {
  FileHandle.standardError.write(Data("courier-tools: \(message)\n".utf8))
  exit(code)
}

/// The contents of the file at `path`.
func read(_ path: String) -> String {
  guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
  return String(decoding: data, as: UTF8.self)
}

/// Writes `text` to `path`, creating folders on the way.
func write(_ text: String, to path: String) {
  let url = URL(fileURLWithPath: path)
  do {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  } catch {
    fail("cannot write \(path): \(error)")
  }
}

/// The values of every `--name value` pair, and the other arguments in order.
func options(_ arguments: ArraySlice<String>, names: Set<String>) -> ([String: [String]], [String])
{
  var values: [String: [String]] = [:]
  var rest: [String] = []
  var iterator = arguments.makeIterator()
  while let argument = iterator.next() {
    if names.contains(argument) {
      guard let value = iterator.next() else { fail("\(argument) needs a value") }
      values[argument, default: []].append(value)
    } else {
      rest.append(argument)
    }
  }
  return (values, rest)
}

func records(_ path: String) -> [TestRecord] {
  do {
    return try TestRecord.records(fromEventStream: read(path))
  } catch {
    fail("\(error)")
  }
}

let usage = """
  usage: courier-tools <command> …
    select LIST [--tag T]… [--skip-tag T]… [--shard I/N [--timings FILE]]
                                              print the --filter expression for those tags
                                              (and that shard of them)
    timings FILE EVENTS…                      merge the test durations of the runs into FILE
    coverage EXPORT --root DIR [--json FILE] [--floor P] [--only A,B]
                                              print line and function coverage per module from
                                              an llvm-cov export; exit 1 below the floor
    retry [--flaky-is-failure] EVENTS…        for a first run and its retries: with --next,
          [--next]                            print the filter of the tests still failing
                                              (exit 1 when none); else the flaky cases and
                                              the summary, exiting by the retry policy
    list LIST                                 print every test with its tags
    list-tags LIST                            print each tag with its number of tests
    report EVENTS [--flaky]                   print failed cases and the summary (or varying cases)
    new-module NAME [--depends-on A,B] [--root DIR]
    disabled-tests [--root DIR]               list disabled and conditional tests
    affected --root DIR [--dry-run] PATH…     print the modules whose suites the changed PATHs
                                              can affect (ALL, or nothing when none)
    junit EVENTS OUTPUT                       write the run as a JUnit XML file
    snippets OUTPUT FILE…                     write every Swift block of the Markdown FILEs
                                              as sources in the folder OUTPUT
    record-run FOLDER NAME TITLE STATUS SECONDS OUTPUT COMMAND…
                                              append a search run to FOLDER/NAME.jsonl and
                                              render FOLDER/NAME.md
    instructions THRESHOLDS [--record] NAME=CALLGRIND_OUT…
                                              compare callgrind counts with the thresholds
                                              (exit 1 above 5 %), or record them
    code-path CALLGRIND_OUT NAMES DEMANGLED [--server M] [--list]
                                              count the files and types of the client's modules
                                              that ran; NAMES and DEMANGLED hold each function
                                              name, mangled and demangled, one per line
    check-docs FILE…                          list dates, seeds, commit hashes, measured times
                                              and broken relative links; exit 1 on any
  LIST and EVENTS are event-stream files (--event-stream-version 0).
  """

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "select":
  let (values, rest) = options(
    arguments.dropFirst(), names: ["--tag", "--skip-tag", "--shard", "--timings"])
  guard let list = rest.first else { fail(usage) }
  do {
    var selected = try TagSelection(records: records(list)).select(
      including: values["--tag"] ?? [], excluding: values["--skip-tag"] ?? [])
    if let shard = values["--shard"]?.last {
      let plan = try ShardPlan(shard)
      var timings = TestTimings()
      if let path = values["--timings"]?.last, FileManager.default.fileExists(atPath: path) {
        timings = try TestTimings(fileText: read(path))
      }
      selected = plan.tests(of: selected, timings: timings)
      guard !selected.isEmpty else {
        fail("shard \(shard) holds no test: there are fewer tests than shards", code: 3)
      }
    }
    print(TagSelection.filterExpression(for: selected))
  } catch {
    fail("\(error)")
  }
case "retry":
  let rest = Array(arguments.dropFirst())
  let paths = rest.filter { !$0.hasPrefix("--") }
  guard !paths.isEmpty else { fail(usage) }
  do {
    let report = try RetryReport(eventStreams: paths.map(read))
    if rest.contains("--next") {
      let tests = report.testsToRetry.map { TestRecord(id: $0, displayName: $0, kind: .function) }
      guard !tests.isEmpty else { exit(1) }
      print(TagSelection.filterExpression(for: tests))
      exit(0)
    }
    for line in report.flakyLines { print(line) }
    for id in report.failing { print("FAILS  \(id)  in all \(report.attempts) attempts") }
    print(report.summary)
    exit(report.exitCode(under: rest.contains("--flaky-is-failure") ? .flakyFails : .flakyPasses))
  } catch {
    fail("\(error)")
  }
case "coverage":
  let (values, rest) = options(
    arguments.dropFirst(), names: ["--root", "--json", "--floor", "--only"])
  guard let export = rest.first, let root = values["--root"]?.last else { fail(usage) }
  let only = Set((values["--only"] ?? []).flatMap { $0.split(separator: ",").map(String.init) })
  do {
    let report = try CoverageReport(llvmCovExport: read(export), root: root, only: only)
    print(report.table, terminator: "")
    if let path = values["--json"]?.last {
      write(report.jsonText + "\n", to: path)
    }
    if let text = values["--floor"]?.last {
      guard let floor = Double(text) else { fail("--floor takes a percentage, such as 85") }
      let below = report.modules(below: floor)
      guard below.isEmpty else {
        for module in below {
          print("below the floor of \(text) % lines: \(module.name)")
        }
        exit(1)
      }
      print("every module covers at least \(text) % of its lines")
    }
  } catch {
    fail("\(error)")
  }
case "timings":
  let rest = Array(arguments.dropFirst())
  guard let file = rest.first, rest.count >= 2 else { fail(usage) }
  do {
    var timings = TestTimings()
    if FileManager.default.fileExists(atPath: file) {
      timings = try TestTimings(fileText: read(file))
    }
    for events in rest.dropFirst() {
      timings = timings.merging(try TestTimings(eventStream: read(events)))
    }
    write(timings.fileText, to: file)
  } catch {
    fail("\(error)")
  }
case "junit":
  let rest = Array(arguments.dropFirst())
  guard rest.count == 2 else { fail(usage) }
  do {
    let report = try JUnitReport(eventStream: read(rest[0]))
    write(report.xml, to: rest[1])
  } catch {
    fail("\(error)")
  }
case "affected":
  let (values, rest) = options(arguments.dropFirst(), names: ["--root"])
  let root = values["--root"]?.last ?? "."
  let dryRun = rest.contains("--dry-run")
  let paths = rest.filter { $0 != "--dry-run" }
  let manifest: Manifest
  do {
    manifest = try Manifest(text: read(root + "/Package.swift"))
  } catch {
    fail("\(error)")
  }
  let suites = (["TestSupport"] + manifest.moduleNames).filter { module in
    FileManager.default.fileExists(atPath: "\(root)/Tests/\(module)Tests")
  }
  let affected = AffectedSuites(
    changedPaths: paths, manifest: manifest, modulesWithSuites: suites)
  if dryRun { FileHandle.standardError.write(Data((affected.explanation + "\n").utf8)) }
  switch affected.scope {
  case .everything: print("ALL")
  case .some: print(affected.suites.map(\.module).joined(separator: " "))
  }
case "list":
  guard let list = arguments.dropFirst().first else { fail(usage) }
  let selection = TagSelection(records: records(list))
  for function in selection.functions {
    let tags = selection.tags(of: function).sorted().joined(separator: ", ")
    print("\(function.path)  [\(tags)]  \(function.displayName)")
  }
case "list-tags":
  guard let list = arguments.dropFirst().first else { fail(usage) }
  for (tag, count) in TagSelection(records: records(list)).tagCounts {
    print("\(tag)\t\(count)")
  }
case "report":
  let rest = Array(arguments.dropFirst())
  guard let events = rest.first(where: { !$0.hasPrefix("--") }) else { fail(usage) }
  do {
    let report = try RunReport(eventStream: read(events))
    if rest.contains("--flaky") {
      for (id, tally) in report.flakyCases {
        print("FLAKY  \(id)  passed \(tally.passed), failed \(tally.failed)")
      }
      for id in report.failingCases { print("FAILS  \(id)  every run") }
      if report.flakyCases.isEmpty { print("no test changed outcome between runs") }
    } else {
      for id in report.failingCases { print("FAILED  \(id)") }
    }
    print(report.summary)
  } catch {
    fail("\(error)")
  }
case "new-module":
  let (values, rest) = options(arguments.dropFirst(), names: ["--depends-on", "--root"])
  guard let rawName = rest.first else { fail(usage) }
  let root = values["--root"]?.last ?? "."
  let dependencies = (values["--depends-on"] ?? []).flatMap { $0.split(separator: ",") }
    .map { String($0) }
  do {
    var manifest = try Manifest(text: read("\(root)/Package.swift"))
    let name = try ModuleName(rawName, existing: Set(manifest.moduleNames))
    try manifest.addModule(name, dependsOn: dependencies)
    let scaffold = Scaffold(name: name)
    let tags = try scaffold.addingTag(to: read("\(root)/TestSupport/Tags.swift"))
    for file in scaffold.files where FileManager.default.fileExists(atPath: "\(root)/\(file.path)")
    {
      fail("\(file.path) exists already")
    }
    write(manifest.text, to: "\(root)/Package.swift")
    write(tags, to: "\(root)/TestSupport/Tags.swift")
    for file in scaffold.files {
      write(file.contents, to: "\(root)/\(file.path)")
      print(file.path)
    }
  } catch {
    fail("\(error)")
  }
case "disabled-tests":
  let (values, _) = options(arguments.dropFirst(), names: ["--root"])
  let root = values["--root"]?.last ?? "."
  var findings: [DisabledTestScanner.Finding] = []
  for folder in ["Tests", "TestSupport", "Modules"] {
    let enumerator = FileManager.default.enumerator(atPath: "\(root)/\(folder)")
    while let path = enumerator?.nextObject() as? String {
      guard path.hasSuffix(".swift") else { continue }
      let file = "\(folder)/\(path)"
      findings += DisabledTestScanner().scan(read("\(root)/\(file)"), file: file)
    }
  }
  findings.sort { ($0.file, $0.line) < ($1.file, $1.line) }
  for finding in findings { print(finding) }
  let missing = findings.filter { $0.reason == nil }
  print(
    "\(findings.count) disabled or conditional, \(missing.count) without a reason")
  if !missing.isEmpty { exit(1) }
case "snippets":
  let rest = Array(arguments.dropFirst())
  guard let output = rest.first, rest.count > 1 else { fail(usage) }
  // A snippet's errors point at its document through #sourceLocation, whose #fileID keeps only
  // the file's name: two documents of one name would clash in an optimised build.
  let withSnippets = rest.dropFirst().filter {
    !DocSnippet.extract(from: read($0), document: $0).isEmpty
  }
  let byName = Dictionary(grouping: withSnippets) { URL(fileURLWithPath: $0).lastPathComponent }
  if let (name, paths) = byName.first(where: { $0.value.count > 1 }) {
    fail(
      "documents share the name \(name), which the snippet check cannot tell apart: "
        + paths.joined(separator: ", ") + "; rename one")
  }
  try? FileManager.default.removeItem(atPath: output)
  var count = 0
  for document in rest.dropFirst() {
    for snippet in DocSnippet.extract(from: read(document), document: document) {
      count += 1
      let source = snippet.source(number: count, commonImports: DocSnippet.commonImports)
      write(source, to: "\(output)/Snippet\(count).swift")
    }
  }
  print("\(count) Swift blocks written to \(output)")
case "record-run":
  // record-run FOLDER NAME TITLE STATUS SECONDS OUTPUT COMMAND…: one search run into
  // FOLDER/NAME.jsonl, and FOLDER/NAME.md rendered from it.
  let rest = Array(arguments.dropFirst())
  guard rest.count >= 7, let status = Int(rest[3]), let seconds = Int(rest[4]) else { fail(usage) }
  let (folder, name, title, output) = (rest[0], rest[1], rest[2], read(rest[5]))
  let lines = output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
  let environment = ProcessInfo.processInfo.environment
  let context = ReportLog.Context(
    date: Date(), commit: environment["COURIER_COMMIT"] ?? "unknown",
    toolchain: environment["COURIER_TOOLCHAIN"] ?? "unknown",
    machine: environment["COURIER_MACHINE"] ?? "unknown",
    cores: ProcessInfo.processInfo.activeProcessorCount)
  let record: [String: JSONValue] = [
    "command": .string(rest[6...].joined(separator: " ")), "exit_status": .integer(status),
    "passed": .bool(status == 0), "seconds": .integer(seconds),
    "summary": .string(lines.suffix(3).joined(separator: " / ")),
  ]
  let logPath = "\(folder)/\(name).jsonl"
  let old = FileManager.default.fileExists(atPath: logPath) ? read(logPath) : ""
  let log = old + ReportLog.line(for: record, context: context) + "\n"
  write(log, to: logPath)
  do {
    let page = try ReportLog.page(
      title: title, tool: "Tools/\(name) --record", log: log, latestPer: nil,
      columns: ["date", "command", "passed", "seconds", "summary", "commit", "machine", "cores"])
    write(page, to: "\(folder)/\(name).md")
  } catch {
    fail("\(logPath): \(error)")
  }
  print("recorded in \(folder)/\(name).md")
case "instructions":
  // instructions THRESHOLDS [--record] NAME=CALLGRIND_OUT…: compare with the thresholds, or
  // write the counts as the thresholds.
  var rest = Array(arguments.dropFirst())
  guard let thresholdsPath = rest.first else { fail(usage) }
  rest.removeFirst()
  let recording = rest.contains("--record")
  var measured: [String: Int] = [:]
  for pair in rest where pair != "--record" {
    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2 else { fail("expected NAME=FILE, got \(pair)") }
    do {
      measured[parts[0]] = try InstructionGate.count(fromCallgrindOutput: read(parts[1]))
    } catch {
      fail("\(parts[1]): \(error)")
    }
  }
  if recording {
    write(InstructionGate.thresholdsJSON(measured), to: thresholdsPath)
    print("recorded \(measured.count) thresholds in \(thresholdsPath)")
    exit(0)
  }
  guard FileManager.default.fileExists(atPath: thresholdsPath) else {
    fail(
      "no thresholds at \(thresholdsPath) for this toolchain; record them with --record", code: 1)
  }
  let thresholds: [String: Int]
  do {
    thresholds = try InstructionGate.thresholds(fromJSON: read(thresholdsPath))
  } catch {
    fail("\(thresholdsPath): \(error)")
  }
  let verdicts = InstructionGate.verdicts(measured: measured, thresholds: thresholds)
  for verdict in verdicts { print(verdict) }
  if verdicts.contains(where: { !$0.passed }) {
    fail("instruction counts regressed by more than 5 % (or a workload has no threshold)", code: 1)
  }
case "code-path":
  let (values, rest) = options(arguments.dropFirst(), names: ["--server"])
  let files = rest.filter { $0 != "--list" }
  guard files.count == 3 else { fail(usage) }
  let names = read(files[1]).split(separator: "\n").map(String.init)
  let demangled = read(files[2]).split(separator: "\n").map(String.init)
  guard names.count == demangled.count else { fail("\(files[1]) and \(files[2]) differ in length") }
  let server = values["--server"]?.last ?? "FakeBackend"
  // The server and what only tests and tools use are not the client's path.
  let notClient: Set<String> = [
    server, "LoopbackServer", "Simulation", "UpstreamModelCheck", "CourierTooling",
    "FuzzProperties", "ModelsTestSupport", "SyncTestSupport", "CourierDemo", "CSQLite",
  ]
  let modules = (try? FileManager.default.contentsOfDirectory(atPath: "Modules")) ?? []
  let client = Set(modules).subtracting(notClient)
  let path = CodePath(
    callgrindOutput: read(files[0]),
    demangled: Dictionary(zip(names, demangled)) { first, _ in first },
    server: server, isCounted: client.contains)
  if rest.contains("--list") {
    for file in path.files { print(file) }
    for type in path.types { print(type) }
  }
  let reached = Set(path.files.compactMap { $0.split(separator: "/").dropFirst().first })
  print("modules the rename ran in: \(reached.count)")
  print("types the rename ran in: \(path.types.count)")
  print("files the rename ran in: \(path.files.count)")
case "check-docs":
  let documents = Array(arguments.dropFirst())
  guard !documents.isEmpty else { fail(usage) }
  var findings: [DocumentCheck.Finding] = []
  for document in documents {
    let folder = URL(fileURLWithPath: document).deletingLastPathComponent()
    findings += DocumentCheck.findings(in: read(document), document: document) { target in
      FileManager.default.fileExists(atPath: folder.appendingPathComponent(target).path)
    }
  }
  for finding in findings { print(finding) }
  if !findings.isEmpty {
    fail(
      "\(findings.count) finding(s): dates, seeds, commit hashes and measured times belong in "
        + "CHANGELOG.md, docs/history/ and docs/reports/; links must lead to a file", code: 1)
  }
  print(
    "\(documents.count) documents hold no date, seed, commit hash or measured time, "
      + "and no broken link")
default:
  fail(usage)
}
