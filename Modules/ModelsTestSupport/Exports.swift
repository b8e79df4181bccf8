// Suites that import ModelsTestSupport also get the generic helpers and the model layer, so a
// model test needs one import for its fixtures.
@_exported import Models
@_exported import TestSupport
