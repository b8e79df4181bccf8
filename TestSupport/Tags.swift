import Testing

// Courier's own tags, all in one place, with package access: apps define their own. Give every
// suite the tag of its module area, and add the cross-cutting ones that apply; `Tools/test --tag
// NAME` selects by them.
extension Tag {
  // MARK: - Module areas

  /// Percent-encoding, JSON writing and anything that turns values into bytes for the wire.
  @Tag package static var encoding: Self
  /// Turning backend payloads into validated values, and the errors bad payloads produce.
  @Tag package static var parsing: Self
  /// The model layer: entities, contexts, change tracking, saving and merging.
  @Tag package static var models: Self
  /// Upstream and downstream synchronisation: strategies, the upstream tracker, the engine.
  @Tag package static var sync: Self
  /// The transport seam: requests on the wire, the URLSession client, the fake backend.
  @Tag package static var transport: Self
  /// The test helpers themselves: traits, expectations, assertions and fixtures.
  @Tag package static var testSupport: Self
  /// The injectable seams production code takes: UUID sources, work tracking, logging.
  @Tag package static var seams: Self
  /// The contributor tools under `Tools/`.
  @Tag package static var tools: Self

  /// Tests of the LoopbackServer module.
  @Tag package static var loopbackServer: Self
  /// Seeded simulations of whole clients under faults, and the simulator itself.
  @Tag package static var simulation: Self

  /// The model-based check of the upstream tracker: seeded sequences against a reference model.
  @Tag package static var upstreamModelCheck: Self

  // MARK: - Cross-cutting

  /// Several real modules working together through their public API, usually with the fake backend.
  @Tag package static var integration: Self
  /// Tests that take more than a second; they run only when `COURIER_SLOW_TESTS=1`.
  @Tag package static var slow: Self
  /// Tests that feed many generated inputs through one property (round trips, invariants).
  @Tag package static var generated: Self
  /// Tests of what happens on malformed, hostile or out-of-range input.
  @Tag package static var robustness: Self
}
