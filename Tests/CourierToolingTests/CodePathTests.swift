import CourierTooling
import TestSupport
import Testing

@Suite("CodePath", .tags(.tools), .timeBudget(.seconds(5)))
struct CodePathTests {
  /// A profile in callgrind's uncompressed format: the client's save calls a function of the
  /// shared JSON module and sends to the server, which calls another JSON function of its own;
  /// an inlined helper of the client runs inside the save.
  static let profile = """
    events: Ir
    fl=/repo/Modules/Models/ModelContext.swift
    fn=save
    3 10
    fi=/repo/Modules/Models/Table.swift
    4 2
    fe=/repo/Modules/Models/ModelContext.swift
    cfl=/repo/Modules/JSON/JSONValue.swift
    cfn=write
    calls=1 5
    5 40
    cfl=/repo/Modules/FakeBackend/FakeBackend.swift
    cfn=serve
    calls=1 7
    6 90
    fl=/repo/Modules/JSON/JSONValue.swift
    fn=write
    1 40
    fl=/repo/Modules/FakeBackend/FakeBackend.swift
    fn=serve
    2 60
    cfl=/repo/Modules/JSON/JSONParser.swift
    cfn=parse
    calls=1 3
    7 30
    fl=/repo/Modules/JSON/JSONParser.swift
    fn=parse
    3 30
    fl=/repo/Modules/Models/Unused.swift
    fn=idle
    9 0
    totals: 182
    """

  @Test("It counts the client's files, inlined ones too, and leaves out what only the server ran")
  func countsClientFiles() {
    // given
    let demangled = [
      "save": "Models.ModelContext.save() throws -> ()",
      "write": "JSON.JSONValue.write(into: inout [Swift.UInt8]) -> ()",
      "serve": "FakeBackend.FakeBackend.serve() -> ()",
      "parse": "static JSON.JSONParser.parse(Swift.String) -> JSON.JSONValue",
      "idle": "Models.Unused.idle() -> ()",
    ]

    // when
    let path = CodePath(
      callgrindOutput: Self.profile, demangled: demangled, server: "FakeBackend",
      isCounted: { ["Models", "JSON"].contains($0) })

    // then
    #expect(
      path.files == [
        "Modules/JSON/JSONValue.swift", "Modules/Models/ModelContext.swift",
        "Modules/Models/Table.swift",
      ])
    #expect(path.types == ["JSON.JSONValue", "Models.ModelContext"])
  }

  @Test(
    "It names the type a function belongs to from its demangled name",
    arguments: [
      ("Models.ModelContext.save() throws -> ()", "Models.ModelContext"),
      (
        "closure #1 (inout A) -> () in Models.ModelContext.update<A>(_: A.Type) -> ()",
        "Models.ModelContext"
      ),
      ("generic specialization <Models.User> of Models.Table.put(A) -> ()", "Models.Table"),
      ("Models.ModelContext.selfUser.getter : Models.User?", "Models.ModelContext"),
      (
        "SyncStrategies.EntityTrack.Flight.(Content in _CD42F83C).__deallocating_deinit",
        "SyncStrategies.EntityTrack.Flight.Content"
      ),
      (
        "SyncEngine.SyncEngine.(deliver in _A19DC91B)(SyncStrategies.UpstreamRequest) async -> ()",
        "SyncEngine.SyncEngine"
      ),
      (
        "protocol witness for Models.ModelObject.id.getter in conformance Models.User : Models.ModelObject in Models",
        "Models.User"
      ),
      (
        "static (extension in Models):Models.ModelObject.field(A.Key) -> Models.Field<A>",
        "Models.ModelObject"
      ),
      ("initializeWithCopy value witness for HTTPRequest.HTTPRequest", "HTTPRequest.HTTPRequest"),
      ("Seams.firstResult<A>(within: Swift.Duration) async -> A?", nil),
      ("outlined copy of Models.Connection??", "Models.Connection"),
    ] as [(String, String?)])
  func owningType(name: String, type: String?) {
    #expect(CodePath.owningType(ofDemangled: name) == type)
  }
}
