// Suites that import SyncTestSupport get everything a sync test touches in one import: the
// engine, the strategies, the typed API, the fake backend, the transport seam and the model
// fixtures (which bring the model layer and TestSupport).
@_exported import CourierAPI
@_exported import FakeBackend
@_exported import HTTPRequest
@_exported import JSON
@_exported import ModelsTestSupport
@_exported import SyncEngine
@_exported import SyncStrategies
@_exported import Transport
