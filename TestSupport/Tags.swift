import Testing

// The project's tags, all in one place. Give every suite the tag of its module area, and add the
// cross-cutting ones that apply; `Tools/test --tag NAME` selects by them.
extension Tag {
  // MARK: - Module areas

  /// Percent-encoding, JSON writing and anything that turns values into bytes for the wire.
  @Tag public static var encoding: Self
  /// Turning backend payloads into validated values, and the errors bad payloads produce.
  @Tag public static var parsing: Self
  /// The model layer: entities, contexts, change tracking, saving and merging.
  @Tag public static var models: Self
  /// Upstream and downstream synchronisation: strategies, the upstream tracker, the engine.
  @Tag public static var sync: Self
  /// The transport seam: requests on the wire, the URLSession client, the fake backend.
  @Tag public static var transport: Self
  /// The test helpers themselves: traits, expectations, assertions and fixtures.
  @Tag public static var testSupport: Self
  /// The injectable seams production code takes: UUID sources, work tracking, logging.
  @Tag public static var seams: Self
  /// The contributor tools under `Tools/`.
  @Tag public static var tools: Self

  /// Tests of the LoopbackServer module.
  @Tag public static var loopbackServer: Self
  /// Seeded simulations of whole clients under faults, and the simulator itself.
  @Tag public static var simulation: Self

  /// The model-based check of the upstream tracker: seeded sequences against a reference model.
  @Tag public static var upstreamModelCheck: Self

  // MARK: - Cross-cutting

  /// Several real modules working together through their public API, usually with the fake backend.
  @Tag public static var integration: Self
  /// Tests that take more than a second; they run only when `COURIER_SLOW_TESTS=1`.
  @Tag public static var slow: Self
  /// Tests that feed many generated inputs through one property (round trips, invariants).
  @Tag public static var generated: Self
  /// Tests of what happens on malformed, hostile or out-of-range input.
  @Tag public static var robustness: Self
}
